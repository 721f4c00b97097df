import type { ConnectError } from "@connectrpc/connect";
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { AlertTriangleIcon, RefreshIcon } from "@/components/ui/icons";
import { classifyError, codeName } from "@/lib/classify-error";

/** A page's title, its one-line explanation, and actions at the right. */
export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <header className="flex flex-wrap items-end justify-between gap-4">
      <div className="min-w-0">
        <h1 className="text-2xl font-semibold tracking-tight text-fg">{title}</h1>
        <p className="mt-1 text-fg-muted">{description}</p>
      </div>
      {actions && <div className="flex items-center gap-3">{actions}</div>}
    </header>
  );
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
            className="h-4 rounded bg-surface-muted motion-safe:animate-pulse"
            style={{ width: `${90 - i * 12}%` }}
          />
        ))}
      </div>
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

/** A read failed: what was being loaded, why it probably failed, and a retry. */
export function LoadError({
  what,
  procedure,
  error,
  retrying,
  onRetry,
}: {
  /** "the pending changes", "the version history" */
  what: string;
  procedure: string;
  error: ConnectError;
  retrying: boolean;
  onRetry: () => void;
}) {
  const kind = classifyError(error);
  return (
    <section role="alert" className="rounded-xl border border-danger-border bg-surface shadow-xs">
      <div className="flex gap-4 p-5">
        <div className="grid size-9 shrink-0 place-items-center rounded-full bg-danger-soft text-danger">
          <AlertTriangleIcon className="size-[18px]" />
        </div>
        <div className="min-w-0 flex-1">
          <h2 className="text-base font-semibold text-fg">Couldn’t load {what}</h2>
          <p className="mt-1 text-fg-muted">{reasons[kind] || error.rawMessage}</p>
          <Button variant="primary" className="mt-4" onClick={onRetry} disabled={retrying}>
            <RefreshIcon className={`size-4 ${retrying ? "motion-safe:animate-spin" : ""}`} />
            {retrying ? "Retrying…" : "Try again"}
          </Button>
        </div>
      </div>
      <div className="rounded-b-xl border-t border-danger-border bg-danger-soft px-5 py-2 font-mono text-xs text-fg-muted [overflow-wrap:anywhere]">
        {procedure} · {codeName(error)} · {error.rawMessage}
      </div>
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
