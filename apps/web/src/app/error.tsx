"use client";

import { Button } from "@/components/ui/button";
import { AlertTriangleIcon } from "@/components/ui/icons";

/** A page crashed while rendering: keep the shell, say so, and offer to render it again. */
export default function PageError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <section
      role="alert"
      className="rounded-xl border border-danger-border bg-surface p-6 shadow-xs"
    >
      <div className="flex items-center gap-3">
        <AlertTriangleIcon className="size-5 text-danger" />
        <h1 className="text-base font-semibold text-fg">This page failed to display</h1>
      </div>
      <p className="mt-2 text-fg-muted">
        Something went wrong in the console itself, not in Switchyard’s stored configuration.
        Reloading usually helps; if it does not, report the error below.
      </p>
      <p className="mt-3 font-mono text-xs text-fg-muted [overflow-wrap:anywhere]">
        {error.digest ? `${error.message} (digest ${error.digest})` : error.message}
      </p>
      <Button variant="primary" className="mt-5" onClick={reset}>
        Try again
      </Button>
    </section>
  );
}
