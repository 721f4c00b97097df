"use client";

import type { ConnectError } from "@connectrpc/connect";
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { CopyCommand } from "@/components/ui/copy-command";
import { AlertTriangleIcon, RefreshIcon, TerminalIcon } from "@/components/ui/icons";
import { RelativeTime } from "@/components/ui/relative-time";
import { useOrigin } from "@/components/ui/use-origin";
import { classifyError, codeName, type ErrorClass } from "@/lib/classify-error";
import { knownKinds } from "@/lib/inventory";

/** The RPC behind this page, as operators will find it in server logs and proxies. */
const procedure = "switchyard.v1.ConfigService/ListResources";

export function InventorySkeleton({ retrying }: { retrying: boolean }) {
  return (
    <div aria-busy="true" className="flex flex-col gap-8">
      <p role="status" className="sr-only">
        Loading the stored configuration…
      </p>
      <div className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        {knownKinds.map((k) => (
          <div key={k.slug} className="h-[88px] rounded-lg border bg-surface p-4">
            <Bar className="h-3 w-24" />
            <Bar className="mt-4 h-6 w-10" />
          </div>
        ))}
      </div>
      <div>
        <Bar className="mb-3 h-4 w-32" />
        <div className="rounded-lg border bg-surface">
          <div className="h-10 border-b bg-surface-muted" />
          {[0, 1, 2, 3, 4].map((i) => (
            <div key={i} className="flex items-center gap-6 border-b px-4 py-3.5 last:border-b-0">
              <Bar className="h-3 w-[20%]" />
              <Bar className="h-3 flex-1" />
              <Bar className="h-3 w-[18%]" />
              <Bar className="h-3 w-20" />
            </div>
          ))}
        </div>
      </div>
      {retrying && (
        <p className="text-center text-sm text-fg-subtle">Still trying to reach the API…</p>
      )}
    </div>
  );
}

function Bar({ className }: { className: string }) {
  return <div className={`rounded bg-surface-muted motion-safe:animate-pulse-late ${className}`} />;
}

interface ErrorCopy {
  title: string;
  what: ReactNode;
  /** What to do about it, most likely fix first, as `<li>` items. */
  fixes: ReactNode;
}

function errorCopy(kind: ErrorClass, origin: string, error: ConnectError): ErrorCopy {
  const at = <Mono>{origin || "this address"}</Mono>;
  switch (kind) {
    case "unreachable":
      return {
        title: "Can’t reach the Switchyard API",
        what: <>The console asked {at} for the stored configuration and got no answer.</>,
        fixes: (
          <>
            <li>
              Check that the Switchyard server is running; start it with{" "}
              <Mono>switchyard serve</Mono>.
            </li>
            <li>
              Open the console at the address the server prints: it serves the console and its API
              together, on one address.
            </li>
          </>
        ),
      };
    case "not-served":
      return {
        title: "This address doesn’t serve the Switchyard API",
        what: (
          <>
            {at} answered, but the API is not there: asking it for the stored configuration returned
            HTTP 404.
          </>
        ),
        fixes: (
          <>
            <li>
              Open the console through the Switchyard server, started with{" "}
              <Mono>switchyard serve</Mono>, rather than a standalone web server: it serves the
              console and its API together.
            </li>
            <li>
              Behind a proxy, forward <Mono>/switchyard.v1.ConfigService/</Mono> to the Switchyard
              server as well as the pages.
            </li>
          </>
        ),
      };
    case "unexpected-response":
      return {
        title: "Unexpected answer from the API address",
        what: (
          <>
            {at} answered the request for the stored configuration with something other than the
            Switchyard API, such as an error page from a proxy.
          </>
        ),
        fixes: (
          <>
            <li>
              Check that the Switchyard server behind it is running; start it with{" "}
              <Mono>switchyard serve</Mono>.
            </li>
            <li>
              Behind a proxy, forward <Mono>/switchyard.v1.ConfigService/</Mono> to the Switchyard
              server unchanged.
            </li>
          </>
        ),
      };
    case "timeout":
      return {
        title: "The Switchyard API is not responding",
        what: <>{at} took too long to list the stored configuration.</>,
        fixes: (
          <li>
            The server may be overloaded or waiting for its database: check its logs, then try
            again.
          </li>
        ),
      };
    case "server":
      return {
        title: "The Switchyard API reported an error",
        what: <>Listing the stored configuration failed: {error.rawMessage}</>,
        fixes: <li>Check the Switchyard server’s logs for the cause, then try again.</li>,
      };
  }
}

/** Nothing could be loaded: say what failed, why it probably did, and what to do. */
export function InventoryError({
  error,
  retrying,
  onRetry,
}: {
  error: ConnectError;
  retrying: boolean;
  onRetry: () => void;
}) {
  const origin = useOrigin();
  const copy = errorCopy(classifyError(error), origin, error);
  return (
    <section
      role="alert"
      aria-labelledby="inventory-error-title"
      className="rounded-xl border border-danger-border bg-surface shadow-xs"
    >
      <div className="flex gap-4 p-6">
        <div className="grid size-9 shrink-0 place-items-center rounded-full bg-danger-soft text-danger">
          <AlertTriangleIcon className="size-[18px]" />
        </div>
        <div className="min-w-0 flex-1">
          <h2 id="inventory-error-title" className="text-base font-semibold text-fg">
            {copy.title}
          </h2>
          <p className="mt-1 text-fg-muted">{copy.what}</p>
          <h3 className="mt-5 text-xs font-medium uppercase tracking-wider text-fg-subtle">
            How to fix it
          </h3>
          <ul className="mt-2 flex list-disc flex-col gap-1.5 pl-5 text-fg-muted marker:text-fg-subtle">
            {copy.fixes}
          </ul>
          <div className="mt-6 flex flex-wrap items-center gap-3">
            <Button variant="primary" onClick={onRetry} disabled={retrying}>
              <RefreshIcon className={`size-4 ${retrying ? "motion-safe:animate-spin" : ""}`} />
              {retrying ? "Retrying…" : "Try again"}
            </Button>
          </div>
        </div>
      </div>
      <div className="rounded-b-xl border-t border-danger-border bg-danger-soft px-6 py-2.5 font-mono text-xs text-fg-muted [overflow-wrap:anywhere]">
        {procedure} · {codeName(error)} · {error.rawMessage}
      </div>
    </section>
  );
}

/** Loaded once, but the latest refresh failed: keep showing what we have, and say so. */
export function StaleBanner({
  error,
  loadedAt,
  retrying,
  onRetry,
}: {
  error: ConnectError;
  loadedAt: Date;
  retrying: boolean;
  onRetry: () => void;
}) {
  const origin = useOrigin();
  const copy = errorCopy(classifyError(error), origin, error);
  return (
    <div
      role="alert"
      className="flex flex-wrap items-center gap-x-4 gap-y-2 rounded-lg border border-warning-border bg-warning-soft px-4 py-3"
    >
      <AlertTriangleIcon className="size-4 shrink-0 text-warning" />
      <p className="min-w-0 flex-1 text-fg-muted">
        <span className="font-medium text-fg">Couldn’t refresh: {copy.title}.</span> Showing the
        configuration as loaded <RelativeTime date={loadedAt} />.
      </p>
      <Button onClick={onRetry} disabled={retrying}>
        <RefreshIcon className={`size-4 ${retrying ? "motion-safe:animate-spin" : ""}`} />
        Try again
      </Button>
    </div>
  );
}

/** Nothing is stored: show the one command that fixes that. */
export function InventoryEmpty() {
  return (
    <section
      aria-labelledby="inventory-empty-title"
      className="flex flex-col items-center rounded-xl border border-dashed border-border-strong bg-surface px-6 py-14 text-center"
    >
      <div className="grid size-11 place-items-center rounded-full bg-accent-soft text-accent">
        <TerminalIcon className="size-5" />
      </div>
      <h2 id="inventory-empty-title" className="mt-4 text-base font-semibold text-fg">
        Nothing stored yet
      </h2>
      <p className="mt-1.5 max-w-md text-fg-muted">
        Switchyard has no clusters, listeners, route configurations or node groups. Import an
        existing Envoy configuration to get started:
      </p>
      <div className="mt-5 w-full max-w-sm text-left">
        <CopyCommand command="switchyard apply -f envoy.yaml" />
      </div>
      <p className="mt-4 text-xs text-fg-subtle">This page refreshes when you come back to it.</p>
    </section>
  );
}

function Mono({ children }: { children: ReactNode }) {
  return (
    <code className="rounded bg-surface-muted px-1 py-px font-mono text-[0.92em] text-fg">
      {children}
    </code>
  );
}
