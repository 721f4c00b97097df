"use client";

import type { ConnectError } from "@connectrpc/connect";
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { AlertTriangleIcon, RefreshIcon } from "@/components/ui/icons";

export function Bar({ className }: { className: string }) {
  return <div className={`rounded bg-surface-muted motion-safe:animate-pulse ${className}`} />;
}

/** A list still loading: a table's outline with placeholder rows. */
export function TableSkeleton({ label }: { label: string }) {
  return (
    <div aria-busy="true" className="rounded-lg border bg-surface shadow-xs">
      <p role="status" className="sr-only">
        Loading {label}…
      </p>
      <div className="h-10 border-b bg-surface-muted" />
      {[0, 1, 2, 3, 4].map((i) => (
        <div key={i} className="flex items-center gap-6 border-b px-4 py-3.5 last:border-b-0">
          <Bar className="h-3 w-[22%]" />
          <Bar className="h-3 w-[14%]" />
          <Bar className="h-3 flex-1" />
          <Bar className="h-3 w-20" />
        </div>
      ))}
    </div>
  );
}

/** An object still loading: the editor's sections in outline. */
export function EditorSkeleton({ label }: { label: string }) {
  return (
    <div aria-busy="true" className="flex flex-col gap-6">
      <p role="status" className="sr-only">
        Loading {label}…
      </p>
      {[0, 1].map((s) => (
        <div key={s} className="rounded-xl border bg-surface shadow-xs">
          <div className="border-b px-5 py-4">
            <Bar className="h-4 w-40" />
          </div>
          <div className="grid grid-cols-3 gap-4 p-5">
            {[0, 1, 2, 3, 4, 5].map((i) => (
              <div key={i} className="flex flex-col gap-2">
                <Bar className="h-3 w-20" />
                <Bar className="h-8 w-full" />
              </div>
            ))}
          </div>
        </div>
      ))}
    </div>
  );
}

export function LoadError({
  what,
  error,
  onRetry,
  retrying,
}: {
  what: string;
  error: ConnectError;
  onRetry: () => void;
  retrying: boolean;
}) {
  return (
    <div
      role="alert"
      className="flex gap-4 rounded-xl border border-danger-border bg-surface p-6 shadow-xs"
    >
      <div className="grid size-9 shrink-0 place-items-center rounded-full bg-danger-soft text-danger">
        <AlertTriangleIcon className="size-[18px]" />
      </div>
      <div className="min-w-0 flex-1">
        <h2 className="text-base font-semibold">Couldn’t load {what}</h2>
        <p className="mt-1 text-fg-muted [overflow-wrap:anywhere]">{error.rawMessage}</p>
        <Button className="mt-4" variant="primary" onClick={onRetry} disabled={retrying}>
          <RefreshIcon className={`size-4 ${retrying ? "motion-safe:animate-spin" : ""}`} />
          {retrying ? "Retrying…" : "Try again"}
        </Button>
      </div>
    </div>
  );
}

/** Nothing of this kind yet: what it is, and the button that creates the first one. */
export function EmptyState({
  icon,
  title,
  children,
  action,
}: {
  icon: ReactNode;
  title: string;
  children: ReactNode;
  action: ReactNode;
}) {
  return (
    <section className="flex flex-col items-center rounded-xl border border-dashed border-border-strong bg-surface px-6 py-14 text-center">
      <div className="grid size-11 place-items-center rounded-full bg-accent-soft text-accent">
        {icon}
      </div>
      <h2 className="mt-4 text-base font-semibold text-fg">{title}</h2>
      <div className="mt-1.5 max-w-md text-fg-muted">{children}</div>
      <div className="mt-5">{action}</div>
    </section>
  );
}

export function PageHeader({
  title,
  description,
  actions,
  eyebrow,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  eyebrow?: ReactNode;
}) {
  return (
    <header className="flex flex-wrap items-end justify-between gap-4">
      <div className="min-w-0">
        {eyebrow && <div className="mb-1 text-[13px] text-fg-subtle">{eyebrow}</div>}
        <h1 className="text-2xl font-semibold tracking-tight text-fg [overflow-wrap:anywhere]">
          {title}
        </h1>
        {description && <p className="mt-1 text-fg-muted">{description}</p>}
      </div>
      {actions && <div className="flex items-center gap-2">{actions}</div>}
    </header>
  );
}

export function Chip({
  children,
  tone = "muted",
}: {
  children: ReactNode;
  tone?: "muted" | "accent" | "warning";
}) {
  const tones = {
    muted: "bg-surface-muted text-fg-muted ring-border",
    accent: "bg-accent-soft text-accent ring-accent/25",
    warning: "bg-warning-soft text-warning ring-warning-border",
  };
  return (
    <span
      className={`inline-flex items-center rounded-md px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${tones[tone]}`}
    >
      {children}
    </span>
  );
}
