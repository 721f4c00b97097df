import type { ConnectError } from "@connectrpc/connect";
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { AlertTriangleIcon, RefreshIcon } from "@/components/ui/icons";
import { classifyError, codeName } from "@/lib/classify-error";

/*
 * The states every console page goes through: its header, placeholders while loading, the
 * failed read with a retry, and the explained empty state.
 */

/** A page's title, its one-line explanation, and actions at the right. */
export function PageHeader({
  title,
  description,
  actions,
  eyebrow,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  /** A line above the title, e.g. a link back to the list. */
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
      {actions && <div className="flex items-center gap-3">{actions}</div>}
    </header>
  );
}

export function Bar({ className }: { className: string }) {
  return <div className={`rounded bg-surface-muted motion-safe:animate-pulse-late ${className}`} />;
}

/** Placeholder bars while a page's data loads. */
export function LoadingBlock({ label, rows = 4 }: { label: string; rows?: number }) {
  return (
    <div aria-busy="true" className="rounded-lg border bg-surface p-4">
      <p role="status" className="sr-only">
        {label}
      </p>
      <div className="flex flex-col gap-3">
        {Array.from({ length: rows }, (_, i) => (
          <div
            // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
            key={i}
            className="h-4 rounded bg-surface-muted motion-safe:animate-pulse-late"
            style={{ width: `${90 - i * 12}%` }}
          />
        ))}
      </div>
    </div>
  );
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

const reasons = {
  unreachable: "The Switchyard server did not answer. Check that it is running (switchyard serve).",
  "not-served":
    "This address does not serve the Switchyard API: open the console through the Switchyard server.",
  "unexpected-response":
    "Something other than the Switchyard API answered, such as a proxy’s error page.",
  timeout: "The server took too long to answer; it may be waiting for its database.",
  server: "",
} as const;

/**
 * A read failed: what was being loaded, why, and a retry. Given the API `procedure`, it also
 * says in plain words why the read probably failed (lib/classify-error.ts) and shows the
 * procedure, code and server message underneath, for a bug report.
 */
export function LoadError({
  what,
  procedure,
  error,
  retrying,
  onRetry,
}: {
  /** "the pending changes", "clusters" */
  what: string;
  /** e.g. "switchyard.v1.ConfigService/Diff" */
  procedure?: string;
  error: ConnectError;
  retrying: boolean;
  onRetry: () => void;
}) {
  const reason = procedure === undefined ? "" : reasons[classifyError(error)];
  return (
    <section role="alert" className="rounded-xl border border-danger-border bg-surface shadow-xs">
      <div className="flex gap-4 p-5">
        <div className="grid size-9 shrink-0 place-items-center rounded-full bg-danger-soft text-danger">
          <AlertTriangleIcon className="size-[18px]" />
        </div>
        <div className="min-w-0 flex-1">
          <h2 className="text-base font-semibold text-fg">Couldn’t load {what}</h2>
          <p className="mt-1 text-fg-muted [overflow-wrap:anywhere]">
            {reason || error.rawMessage}
          </p>
          <Button variant="primary" className="mt-4" onClick={onRetry} disabled={retrying}>
            <RefreshIcon className={`size-4 ${retrying ? "motion-safe:animate-spin" : ""}`} />
            {retrying ? "Retrying…" : "Try again"}
          </Button>
        </div>
      </div>
      {procedure !== undefined && (
        <div className="rounded-b-xl border-t border-danger-border bg-danger-soft px-5 py-2 font-mono text-xs text-fg-muted [overflow-wrap:anywhere]">
          {procedure} · {codeName(error)} · {error.rawMessage}
        </div>
      )}
    </section>
  );
}

/** Nothing to show yet: say why, and what to do next. */
export function EmptyState({
  icon,
  title,
  children,
  actions,
}: {
  icon: ReactNode;
  title: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <section className="flex flex-col items-center rounded-xl border border-dashed border-border-strong bg-surface px-6 py-12 text-center">
      <div className="grid size-11 place-items-center rounded-full bg-accent-soft text-accent">
        {icon}
      </div>
      <h2 className="mt-4 text-base font-semibold text-fg">{title}</h2>
      <div className="mt-1.5 max-w-md text-fg-muted">{children}</div>
      {actions && <div className="mt-5 flex flex-wrap justify-center gap-3">{actions}</div>}
    </section>
  );
}
