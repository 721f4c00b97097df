"use client";

import { useCaller } from "@/components/access/use-caller";
import { CopyCommand } from "@/components/ui/copy-command";
import { TerminalIcon } from "@/components/ui/icons";
import { bootstrapCommand } from "@/lib/bootstrap-command";

/** No proxy was ever seen: the commands that connect the first one. */
export function NoNodes() {
  const xdsAddress = useCaller().server?.xdsAddress;
  return (
    <section
      aria-labelledby="no-nodes-title"
      className="flex flex-col items-center rounded-xl border border-dashed border-border-strong bg-surface px-6 py-12 text-center"
    >
      <div className="grid size-11 place-items-center rounded-full bg-accent-soft text-accent">
        <TerminalIcon className="size-5" />
      </div>
      <h2 id="no-nodes-title" className="mt-4 text-base font-semibold text-fg">
        No proxy connected yet
      </h2>
      <p className="mt-1.5 max-w-lg text-fg-muted">
        Point an Envoy or a proxyless gRPC client at Switchyard’s xDS port. This prints an Envoy
        bootstrap for a node named <code className="font-mono text-fg">edge-1</code>; add{" "}
        <code className="font-mono text-fg">--grpc</code> for a gRPC client (its{" "}
        <code className="font-mono text-fg">GRPC_XDS_BOOTSTRAP</code>):
      </p>
      <div className="mt-5 w-full max-w-xl text-left">
        <CopyCommand
          command={`${bootstrapCommand({ id: "edge-1", cluster: "", variant: "", userAgentName: "", xdsAddress })} > envoy.json`}
        />
      </div>
      <p className="mt-4 text-xs text-fg-subtle">
        Then <code className="font-mono">envoy -c envoy.json</code>. The node shows up here the
        moment it connects: this page is live.
      </p>
    </section>
  );
}
