"use client";

/**
 * One node's page (NodeDetailView below). Long because the page is several panels (NACKs, held
 * back resources, identity, per-type status, timeline, bootstrap), each drawn from the same
 * WatchNode detail and used nowhere else.
 */
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import {
  LoadBreakdown,
  type NodeDetail,
  type NodeEvent,
  NodeTypeStatus,
  type TypeStatus,
} from "@switchyard/proto/switchyard/v1/status_pb";
import type { ReactNode } from "react";
import { useCaller } from "@/components/access/use-caller";
import { LoadPanel } from "@/components/load/load-panel";
import { Card } from "@/components/ui/card";
import { CopyCommand } from "@/components/ui/copy-command";
import { AlertTriangleIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { Bar, LoadError, PageHeader } from "@/components/ui/page-states";
import { RelativeTime } from "@/components/ui/relative-time";
import { bootstrapCommand, xdstpAuthorityIn } from "@/lib/bootstrap-command";
import { localityText, metadataEntries } from "@/lib/node-identity";
import { nodeHealth, typeLabel, userAgent } from "@/lib/node-list";
import { CopyableText } from "./copy-text";
import { HeldVsIntended } from "./held-vs-intended";
import { LiveBadge } from "./live-badge";
import { NodeHistoryPanel } from "./node-history-panel";
import { HealthBadge, typeStatusPresentation } from "./status-chips";
import { useNode, useWhenNodeSeen } from "./use-node";

/** Renders nothing: reopens the node's stream when a node of this id appears (use-node.ts). */
function WaitForNode({ id, onSeen }: { id: string; onSeen: () => void }) {
  useWhenNodeSeen(id, onSeen);
  return null;
}

const when = (t: Timestamp | undefined) => (t ? <RelativeTime date={timestampDate(t)} /> : null);

/**
 * One node, live over WatchNode: who it is, where each xDS type stands (with the full NACK text),
 * what it holds against the latest published version, what happened to it, and how to bootstrap
 * it again.
 */
export function NodeDetailView({ id }: { id: string }) {
  const { node, state, reconnectNow } = useNode(id);
  const caller = useCaller();
  const eyebrow = (
    <Link href="/nodes" className="hover:text-fg hover:underline">
      Nodes
    </Link>
  );
  const header = (
    <PageHeader
      eyebrow={eyebrow}
      title={<span className="font-mono text-[22px]">{id}</span>}
      description={
        node?.summary ? (
          <span className="inline-flex flex-wrap items-center gap-2">
            <HealthBadge health={nodeHealth(node.summary)} />
            {node.summary.cluster ? `cluster ${node.summary.cluster}` : "no cluster"}
            {node.summary.userAgentName && <> · {userAgent(node.summary)}</>}
          </span>
        ) : undefined
      }
      actions={<LiveBadge state={state} onReconnect={reconnectNow} />}
    />
  );

  if (state.t === "ended" && state.error.code === Code.NotFound) {
    return (
      <div className="flex flex-col gap-6">
        {header}
        <WaitForNode id={id} onSeen={reconnectNow} />
        <section className="rounded-xl border border-dashed border-border-strong bg-surface px-6 py-12 text-center">
          <h2 className="text-base font-semibold text-fg">No node with this id</h2>
          <p className="mx-auto mt-1.5 max-w-lg text-fg-muted">
            No replica has seen a proxy present the node id{" "}
            <code className="font-mono text-fg">{id}</code>, or it was disconnected for longer than
            the retention (<code className="font-mono">--node-retention</code>). A proxy shows up
            the moment it connects with this bootstrap:
          </p>
          <div className="mx-auto mt-5 max-w-lg text-left">
            <CopyCommand
              command={bootstrapCommand({
                id,
                cluster: "",
                variant: "",
                userAgentName: "",
                xdsAddress: caller.server?.xdsAddress,
              })}
            />
          </div>
          <Link
            href="/nodes"
            className="mt-5 inline-block font-medium text-accent underline-offset-2 hover:underline"
          >
            All nodes
          </Link>
        </section>
      </div>
    );
  }
  if (node === undefined) {
    return (
      <div className="flex flex-col gap-6">
        {header}
        {state.t === "ended" ? (
          <LoadError what="this node" error={state.error} onRetry={reconnectNow} retrying={false} />
        ) : (
          <DetailSkeleton />
        )}
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-6">
      {header}
      <NackAlerts node={node} />
      <TypeTable types={node.summary?.types ?? []} />
      <HeldVsIntended node={node} />
      <div className="grid gap-6 lg:grid-cols-2">
        <Identity node={node} />
        <Timeline events={node.events} />
      </div>
      <NodeHistoryPanel nodeId={node.summary?.id ?? id} changed={node} />
      <LoadPanel
        id="node-traffic-title"
        title="Traffic"
        nodeId={node.summary?.id ?? ""}
        breakdowns={[LoadBreakdown.CLUSTER, LoadBreakdown.LOCALITY]}
        empty="This node reported no load in the last 5 minutes (only clusters with Report load are reported)."
      />
      <Bootstrap node={node} />
    </div>
  );
}

function DetailSkeleton() {
  return (
    <div aria-busy="true" className="flex flex-col gap-6">
      <p role="status" className="sr-only">
        Loading the node…
      </p>
      <div className="grid gap-6 lg:grid-cols-2">
        {[0, 1].map((i) => (
          <div key={i} className="flex flex-col gap-3 rounded-xl border bg-surface p-5">
            <Bar className="h-4 w-32" />
            {[0, 1, 2, 3, 4].map((j) => (
              <Bar key={j} className="h-3 w-full" />
            ))}
          </div>
        ))}
      </div>
      <div className="h-40 rounded-xl border bg-surface p-5">
        <Bar className="h-4 w-48" />
      </div>
    </div>
  );
}

/** Every type whose latest answer is a NACK, with Envoy's text in full, first on the page. */
function NackAlerts({ node }: { node: NodeDetail }) {
  const nacked = (node.summary?.types ?? []).filter((t) => t.status === NodeTypeStatus.NACKED);
  if (nacked.length === 0) return null;
  return (
    <section
      aria-labelledby="nack-title"
      className="rounded-xl border border-danger-border bg-surface p-5 shadow-xs"
    >
      <h2 id="nack-title" className="flex items-center gap-2 text-sm font-semibold text-danger">
        <AlertTriangleIcon className="size-4" />
        The node rejected {nacked.map((t) => typeLabel(t.typeUrl)).join(", ")}
      </h2>
      <p className="mt-1 text-fg-muted">
        It keeps its last accepted version of what it rejected; only that, and what needs it, is
        held back: every other change still reaches it. Fix the configuration and publish, or roll
        back in{" "}
        <Link href="/history" className="text-accent hover:underline">
          History
        </Link>
        .
      </p>
      <div className="mt-4 flex flex-col gap-4">
        {nacked.map((t) => (
          <div key={t.typeUrl}>
            <p className="mb-1.5 text-xs text-fg-subtle">
              <span className="font-mono font-medium text-fg">{typeLabel(t.typeUrl)}</span> version{" "}
              {t.nackVersion || "—"} · {when(t.nackTime)} · rejected{" "}
              {t.nackRejected.length > 0 ? (
                <span className="font-mono text-fg">{t.nackRejected.join(", ")}</span>
              ) : (
                "the whole response (the client named no resource)"
              )}
            </p>
            <CopyableText text={t.nackMessage} label={`${typeLabel(t.typeUrl)} NACK text`} />
          </div>
        ))}
      </div>
      <HeldBack node={node} />
    </section>
  );
}

/** The resources the node is not sent because of its NACKs, and why. */
function HeldBack({ node }: { node: NodeDetail }) {
  const rows = (node.summary?.types ?? []).flatMap((t) =>
    t.heldBack.map((resource) => ({ typeUrl: t.typeUrl, resource })),
  );
  if (rows.length === 0) return null;
  return (
    <div className="mt-4">
      <h3 className="text-xs font-semibold text-fg">Held back</h3>
      <table className="mt-1.5 w-full text-left text-xs" aria-label="Held back">
        <thead className="text-fg-subtle">
          <tr>
            <th scope="col" className="py-1 pr-4 font-medium">
              Type
            </th>
            <th scope="col" className="py-1 pr-4 font-medium">
              Name
            </th>
            <th scope="col" className="py-1 font-medium">
              Why
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ typeUrl, resource }) => (
            <tr key={`${typeUrl} ${resource.name}`}>
              <td className="py-1 pr-4 font-mono">{typeLabel(typeUrl)}</td>
              <td className="py-1 pr-4 font-mono [overflow-wrap:anywhere]">{resource.name}</td>
              <td className="py-1">
                {resource.reason.case === "needs"
                  ? `needs ${typeLabel(resource.reason.value.typeUrl)} ${resource.reason.value.name}`
                  : "rejected by the node"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Identity({ node }: { node: NodeDetail }) {
  const s = node.summary;
  const metadata = metadataEntries(node.metadata);
  if (!s) return null;
  return (
    <Card title="Identity" id="identity-title">
      <dl className="grid grid-cols-[8.5rem_minmax(0,1fr)] gap-x-4 gap-y-2.5 px-5 py-4">
        <Row label="Node id">
          <span className="font-mono [overflow-wrap:anywhere]">{s.id}</span>
        </Row>
        <Row label="Cluster">{s.cluster || <span className="text-fg-subtle">none</span>}</Row>
        <Row label="Connection">
          {s.connected ? (
            <>
              Connected {when(s.connectedSince)}
              {s.openStreams > 1 && (
                <span className="text-fg-subtle"> · {s.openStreams} streams</span>
              )}
            </>
          ) : (
            <>Disconnected {when(s.disconnectedAt)}</>
          )}
        </Row>
        <Row label="Remote address">
          <span className="font-mono">{s.remoteAddress || "—"}</span>
        </Row>
        <Row label="Credential">
          {s.authenticatedAs ? (
            <span className="font-mono [overflow-wrap:anywhere]">{s.authenticatedAs}</span>
          ) : (
            <span className="text-fg-subtle">
              none: the xDS port requires no client authentication
            </span>
          )}
        </Row>
        <Row label="Replica">
          <span className="font-mono [overflow-wrap:anywhere]">{s.replica || "—"}</span>
        </Row>
        <Row label="Variant">
          <span className="font-mono">{s.variant || "—"}</span>
        </Row>
        <Row label="User agent">{userAgent(s) || "—"}</Row>
        <Row label="Status updated">{when(s.updateTime) ?? "—"}</Row>
        <Row label="Locality">{localityText(node.locality) || <None />}</Row>
        <Row label="Metadata">
          {metadata.length === 0 ? (
            <None />
          ) : (
            <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 font-mono text-xs">
              {metadata.map(([key, value]) => (
                <div key={key} className="contents">
                  <dt className="text-fg-muted">{key}</dt>
                  <dd className="text-fg [overflow-wrap:anywhere]">{value}</dd>
                </div>
              ))}
            </dl>
          )}
        </Row>
        <Row label="Client features">
          {node.clientFeatures.length === 0 ? (
            <None />
          ) : (
            <ul className="flex flex-col gap-0.5 font-mono text-xs">
              {node.clientFeatures.map((feature) => (
                <li key={feature} className="[overflow-wrap:anywhere]">
                  {feature}
                </li>
              ))}
            </ul>
          )}
        </Row>
      </dl>
    </Card>
  );
}

const None = () => <span className="text-fg-subtle">none reported</span>;

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-fg-subtle">{label}</dt>
      <dd className="min-w-0 text-fg">{children}</dd>
    </>
  );
}

function Versioned({ version, at }: { version: string; at: Timestamp | undefined }) {
  if (!version) return <span className="text-fg-subtle">—</span>;
  return (
    <span className="whitespace-nowrap">
      <span className="font-mono text-fg">{version}</span>
      {at && <span className="block text-xs text-fg-subtle">{when(at)}</span>}
    </span>
  );
}

function TypeTable({ types }: { types: readonly TypeStatus[] }) {
  return (
    <Card title="Status by type" id="types-title">
      {types.length === 0 ? (
        <p className="px-5 py-6 text-center text-fg-subtle">
          The node has not requested any resource type yet.
        </p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-left">
            <caption className="sr-only">Status by xDS type</caption>
            <thead className="border-b bg-surface-muted text-xs text-fg-subtle">
              <tr>
                <th scope="col" className="px-4 py-2 font-medium">
                  Type
                </th>
                <th scope="col" className="px-4 py-2 font-medium">
                  Status
                </th>
                <th scope="col" className="px-4 py-2 font-medium">
                  Sent
                </th>
                <th scope="col" className="px-4 py-2 font-medium">
                  ACKed
                </th>
                <th scope="col" className="px-4 py-2 font-medium">
                  Last NACK
                </th>
              </tr>
            </thead>
            <tbody className="divide-y">
              {types.map((t) => {
                const p = typeStatusPresentation[t.status];
                return (
                  <tr key={t.typeUrl} className="align-top">
                    <th scope="row" className="px-4 py-2.5 font-medium" title={t.typeUrl}>
                      <span className="font-mono">{typeLabel(t.typeUrl)}</span>
                    </th>
                    <td className="px-4 py-2.5">
                      <span
                        className={`inline-flex rounded px-1.5 py-0.5 text-[11px] font-semibold ring-1 ring-inset ${p.chip}`}
                      >
                        {p.label}
                      </span>
                      {t.status === NodeTypeStatus.PENDING && t.staleTime && (
                        <span className="block pt-1 text-xs text-fg-subtle">
                          stale {when(t.staleTime)}
                        </span>
                      )}
                    </td>
                    <td className="px-4 py-2.5">
                      <Versioned version={t.sentVersion} at={t.sentTime} />
                    </td>
                    <td className="px-4 py-2.5">
                      <Versioned version={t.ackedVersion} at={t.ackedTime} />
                    </td>
                    <td className="max-w-[28rem] px-4 py-2.5 text-xs">
                      {t.nackMessage ? (
                        <span
                          className={
                            t.status === NodeTypeStatus.NACKED ? "text-danger" : "text-fg-subtle"
                          }
                        >
                          <span className="font-mono">{t.nackVersion}</span> {when(t.nackTime)}
                          {t.status !== NodeTypeStatus.NACKED && " (recovered since)"}
                          <span className="mt-0.5 line-clamp-2 font-mono" title={t.nackMessage}>
                            {t.nackMessage}
                          </span>
                        </span>
                      ) : (
                        <span className="text-fg-subtle">—</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}

const eventTone: Record<string, string> = {
  connect: "bg-success",
  disconnect: "bg-fg-subtle",
  nack: "bg-danger",
  recovered: "bg-success",
};
const eventTitle: Record<string, string> = {
  connect: "Connected",
  disconnect: "Disconnected",
  nack: "NACK",
  recovered: "Recovered",
};

function Timeline({ events }: { events: readonly NodeEvent[] }) {
  return (
    <Card title="Events" id="events-title" aside="newest first, at most 50">
      {events.length === 0 ? (
        <p className="px-5 py-6 text-center text-fg-subtle">No event recorded yet.</p>
      ) : (
        <ol className="max-h-[28rem] overflow-y-auto px-5 py-3">
          {events.map((e, i) => (
            <li
              // Events have no id; their order is fixed (newest first) and the list is replaced whole.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              key={i}
              className="relative flex gap-3 pb-3 last:pb-0"
            >
              <span
                aria-hidden="true"
                className={`mt-1.5 size-2 shrink-0 rounded-full ${eventTone[e.kind] ?? "bg-fg-subtle"}`}
              />
              <div className="min-w-0 flex-1">
                <p className="text-[13px]">
                  <span className="font-medium text-fg">{eventTitle[e.kind] ?? e.kind}</span>
                  {e.typeUrl && (
                    <span className="font-mono text-fg-muted"> {typeLabel(e.typeUrl)}</span>
                  )}
                  <span className="text-fg-subtle">
                    {" "}
                    · {when(e.time)}
                    {e.replica && <> · {e.replica}</>}
                  </span>
                </p>
                {e.detail && (
                  <p
                    className={`mt-0.5 line-clamp-3 font-mono text-xs [overflow-wrap:anywhere] ${e.kind === "nack" ? "text-danger" : "text-fg-muted"}`}
                    title={e.detail}
                  >
                    {e.detail}
                  </p>
                )}
              </div>
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}

function Bootstrap({ node }: { node: NodeDetail }) {
  const xdsAddress = useCaller().server?.xdsAddress;
  const s = node.summary;
  if (!s) return null;
  return (
    <Card title="Bootstrap" id="bootstrap-title">
      <div className="flex flex-col gap-3 px-5 py-4">
        <p className="text-fg-muted">
          Prints a bootstrap that connects a proxy as this node
          {xdsAddress ? (
            <>
              {" "}
              to the xDS port at <code className="font-mono text-fg">{xdsAddress}</code>, where the
              server says proxies reach it (
              <code className="font-mono">serve --advertise-xds-address</code> changes it)
            </>
          ) : null}
          .
        </p>
        <CopyCommand
          command={bootstrapCommand({
            ...s,
            xdsAddress,
            xdstpAuthority: xdstpAuthorityIn(
              node.held.flatMap((held) => Object.keys(held.resources)),
            ),
          })}
        />
      </div>
    </Card>
  );
}
