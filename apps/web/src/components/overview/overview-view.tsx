"use client";

import { timestampDate } from "@bufbuild/protobuf/wkt";
import { useQuery } from "@connectrpc/connect-query";
import { ConfigService, type SnapshotInfo } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type Convergence,
  type FleetSummary,
  LoadBreakdown,
} from "@switchyard/proto/switchyard/v1/status_pb";
import type { Route } from "next";
import { type ReactNode, useMemo } from "react";
import { ConvergenceTimeline } from "@/components/convergence/convergence-timeline";
import { RolloutBar, RolloutHeadline, RolloutStat } from "@/components/convergence/rollout-summary";
import { KindIcon } from "@/components/inventory/kind-icon";
import { LoadPanel } from "@/components/load/load-panel";
import { LiveBadge } from "@/components/nodes/live-badge";
import { NoNodes } from "@/components/nodes/no-nodes";
import { healthPresentation } from "@/components/nodes/status-chips";
import { useFleet, useLatestConvergenceSummary } from "@/components/nodes/use-node";
import { RunningRollouts } from "@/components/rollouts/running-rollouts";
import { Card } from "@/components/ui/card";
import { CopyCommand } from "@/components/ui/copy-command";
import { CheckIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { Bar, PageHeader } from "@/components/ui/page-states";
import { RelativeTime } from "@/components/ui/relative-time";
import { summarizeRollout } from "@/lib/convergence";
import { buildInventory } from "@/lib/inventory";
import { type NodeHealth, nodeHref, typeLabel } from "@/lib/node-list";

/**
 * The home page: the fleet at a glance, live. How many proxies are connected and where they
 * stand, with the latest NACKs (WatchFleet: counted by the server), a rollout running in waves,
 * the latest publish and how far it has rolled out (WatchConvergence on the
 * latest version), the latest NACKs with their text, how the latest versions converged (the
 * NACK and convergence timeline), and what is stored.
 */
export function OverviewView() {
  const { fleet, state, reconnectNow } = useFleet(5);
  return (
    <div className="flex flex-col gap-8">
      <PageHeader
        title="Overview"
        description="Your Envoy fleet and the configuration it runs, live."
        actions={<LiveBadge state={state} onReconnect={reconnectNow} />}
      />
      <RunningRollouts />
      <FleetCounts fleet={fleet} />
      <div className="grid gap-6 lg:grid-cols-[minmax(0,1.25fr)_minmax(0,1fr)]">
        <LastPublish />
        <RecentNacks fleet={fleet} />
      </div>
      <ConvergenceTimeline />
      <LoadPanel
        id="traffic-title"
        title="Traffic"
        breakdowns={[LoadBreakdown.CLUSTER]}
        total="All clusters"
        empty="No load reported in the last 5 minutes. Turn on Report load on a cluster, and its proxies report its requests and errors here."
      />
      <StoredConfiguration />
    </div>
  );
}

const countOrder: readonly NodeHealth[] = ["synced", "stale", "nacked", "pending", "disconnected"];

function FleetCounts({ fleet }: { fleet: FleetSummary | undefined }) {
  const counts = fleet?.counts;
  if (counts === undefined) {
    return (
      <div aria-busy="true" className="grid grid-cols-3 gap-3 lg:grid-cols-6">
        <p role="status" className="sr-only">
          Loading the fleet…
        </p>
        {[0, 1, 2, 3, 4, 5].map((i) => (
          <div key={i} className="h-[84px] rounded-lg border bg-surface p-4">
            <Bar className="h-3 w-20" />
            <Bar className="mt-4 h-6 w-8" />
          </div>
        ))}
      </div>
    );
  }
  if (counts.total === 0) return <NoNodes />;
  return (
    <section aria-labelledby="fleet-title">
      <h2 id="fleet-title" className="sr-only">
        Nodes by status
      </h2>
      <dl className="grid grid-cols-3 gap-3 lg:grid-cols-6">
        <div className="rounded-lg border bg-surface p-4 shadow-xs">
          <dt className="text-xs font-medium text-fg-muted">Connected</dt>
          <dd className="mt-1.5 text-2xl font-semibold tabular-nums tracking-tight text-fg">
            {counts.connected}
          </dd>
        </div>
        {countOrder.map((h) => {
          const p = healthPresentation[h];
          const n = counts[h];
          return (
            <div key={h} className="rounded-lg border bg-surface p-4 shadow-xs">
              <dt className="flex items-center gap-1.5 text-xs font-medium text-fg-muted">
                <span aria-hidden="true" className={`size-1.5 rounded-full ${p.dot}`} />
                {p.label}
              </dt>
              <dd
                className={`mt-1.5 text-2xl font-semibold tabular-nums tracking-tight ${n === 0 ? "text-fg-subtle" : p.text}`}
              >
                {n}
              </dd>
            </div>
          );
        })}
      </dl>
      <p className="mt-2 text-right text-xs">
        <Link href="/nodes" className="font-medium text-accent hover:underline">
          All nodes →
        </Link>
      </p>
    </section>
  );
}

/** A Card whose content is padded and fills the card's height (the panels sit side by side). */
function Panel({
  id,
  title,
  aside,
  children,
}: {
  id: string;
  title: string;
  aside?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card id={id} title={title} aside={aside}>
      <div className="flex-1 p-5">{children}</div>
    </Card>
  );
}

function LastPublish() {
  const latest = useQuery(ConfigService.method.listSnapshots, { limit: 1 });
  const { convergence } = useLatestConvergenceSummary();
  const info = latest.data?.snapshots[0];
  let body: ReactNode;
  if (latest.isPending) {
    body = (
      <div aria-busy="true" className="flex flex-col gap-3">
        <Bar className="h-4 w-48" />
        <Bar className="h-2 w-full" />
        <Bar className="h-3 w-32" />
      </div>
    );
  } else if (latest.error) {
    body = (
      <p role="alert" className="text-fg-muted">
        Couldn’t read the history: {latest.error.rawMessage}
      </p>
    );
  } else if (info === undefined && convergence === undefined) {
    body = (
      <div className="flex flex-col gap-3">
        <p className="font-medium text-fg">Nothing published yet</p>
        <p className="text-fg-muted">
          Proxies get configuration once a version is published. Import an existing Envoy
          configuration, or build one in the console and publish it from{" "}
          <Link href="/changes" className="text-accent hover:underline">
            Changes
          </Link>
          :
        </p>
        <CopyCommand command="npx switchyard apply -f envoy.yaml" />
      </div>
    );
  } else {
    body = <Rollout info={info} convergence={convergence} />;
  }
  return (
    <Panel
      id="last-publish-title"
      title="Last publish"
      aside={
        <Link href="/history" className="font-medium text-accent hover:underline">
          History →
        </Link>
      }
    >
      {body}
    </Panel>
  );
}

function Rollout({
  info,
  convergence,
}: {
  info: SnapshotInfo | undefined;
  convergence: Convergence | undefined;
}) {
  // The convergence follows publishes live; the history read may be older than it.
  const current =
    convergence && (!info || convergence.version >= info.version) ? convergence : undefined;
  const version = current?.version ?? info?.version ?? 0n;
  const summary = current ? summarizeRollout(current) : undefined;
  const published = current?.publishTime ?? info?.createTime;
  return (
    <div className="flex flex-col gap-4">
      <div>
        <p className="text-[15px] font-semibold text-fg">
          Version <span className="tabular-nums">{version.toString()}</span>
          {info && info.version === version && info.message && (
            <span className="font-normal text-fg-muted"> · {info.message}</span>
          )}
        </p>
        <p className="text-xs text-fg-subtle">
          Published {published ? <RelativeTime date={timestampDate(published)} /> : "—"}
          {info && info.version === version && info.author && <> by {info.author}</>}
          {info && info.version === version && info.rolledBackFrom > 0n && (
            <> · rollback to version {info.rolledBackFrom.toString()}</>
          )}
        </p>
      </div>
      {summary ? (
        <>
          <RolloutHeadline summary={summary} />
          <RolloutBar summary={summary} />
          <dl className="grid grid-cols-4 gap-3">
            <RolloutStat label="Converged" value={`${summary.acked} of ${summary.targeted}`} />
            <RolloutStat
              label="Rejected"
              value={summary.nacked}
              tone={summary.nacked > 0 ? "text-danger" : "text-fg"}
            />
            <RolloutStat label="p50 to ACK" value={summary.p50 ?? "—"} />
            <RolloutStat
              label="p99 to ACK"
              value={summary.p99 ?? "—"}
              note={summary.connectedLater}
            />
          </dl>
        </>
      ) : (
        <p role="status" className="text-fg-muted">
          Reading the rollout…
        </p>
      )}
    </div>
  );
}

function RecentNacks({ fleet }: { fleet: FleetSummary | undefined }) {
  const nacks = useMemo(
    () =>
      (fleet?.recentNacks ?? []).map((n) => ({
        ...n,
        at: n.time ? timestampDate(n.time) : undefined,
      })),
    [fleet],
  );
  return (
    <Panel id="nacks-title" title="Recent NACKs">
      {fleet === undefined ? (
        <div aria-busy="true" className="flex flex-col gap-3">
          <Bar className="h-3 w-40" />
          <Bar className="h-3 w-full" />
        </div>
      ) : nacks.length === 0 ? (
        <div className="flex items-start gap-3 text-fg-muted">
          <CheckIcon className="mt-0.5 size-4 shrink-0 text-success" />
          <p>
            No proxy rejected anything. When one does, its error text shows up here, and the publish
            that caused it is one click away in History.
          </p>
        </div>
      ) : (
        <ul className="flex flex-col divide-y">
          {nacks.map((n) => (
            <li key={`${n.nodeId}\n${n.typeUrl}`} className="py-2.5 first:pt-0 last:pb-0">
              <p className="flex flex-wrap items-baseline gap-x-2 text-[13px]">
                <Link
                  href={nodeHref(n.nodeId)}
                  className="font-mono font-medium text-fg hover:text-accent hover:underline [overflow-wrap:anywhere]"
                >
                  {n.nodeId}
                </Link>
                <span className="font-mono text-xs text-fg-muted">{typeLabel(n.typeUrl)}</span>
                <span className="text-xs text-fg-subtle">
                  {n.at && <RelativeTime date={n.at} />}
                  {!n.current && " · recovered since"}
                </span>
              </p>
              <p
                className={`mt-1 line-clamp-3 font-mono text-xs [overflow-wrap:anywhere] ${n.current ? "text-danger" : "text-fg-subtle"}`}
                title={n.message}
              >
                {n.message}
              </p>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

/** Each kind's list page; anything else is listed in the inventory. */
const kindPages: Readonly<Record<string, Route>> = {
  clusters: "/clusters",
  listeners: "/listeners",
  "route-configurations": "/routes",
  "node-groups": "/node-groups",
  "runtime-layers": "/runtime",
  secrets: "/secrets",
};

function StoredConfiguration() {
  const query = useQuery(ConfigService.method.listResources, {});
  const inventory = useMemo(
    () => (query.data ? buildInventory(query.data.resources) : undefined),
    [query.data],
  );
  return (
    <section aria-labelledby="stored-title">
      <div className="mb-3 flex items-baseline gap-3">
        <h2 id="stored-title" className="text-sm font-semibold text-fg">
          Stored configuration
        </h2>
        <Link href="/inventory" className="ml-auto text-xs font-medium text-accent hover:underline">
          Everything stored →
        </Link>
      </div>
      <ul className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        {(inventory?.groups ?? []).map((group) => (
          <li key={group.kind.slug}>
            <Link
              href={kindPages[group.kind.slug] ?? "/inventory"}
              className="group flex items-center justify-between rounded-lg border bg-surface px-4 py-3 shadow-xs transition-colors hover:border-border-strong"
            >
              <span className="flex items-center gap-2 text-fg-muted group-hover:text-fg">
                <KindIcon kind={group.kind} className="size-4" />
                {group.kind.title}
              </span>
              <span className="text-lg font-semibold tabular-nums text-fg">
                {group.rows.length}
              </span>
            </Link>
          </li>
        ))}
        {inventory === undefined &&
          [0, 1, 2, 3].map((i) => (
            <li key={i} className="h-[52px] rounded-lg border bg-surface px-4 py-3">
              <Bar className="h-3 w-24" />
            </li>
          ))}
      </ul>
    </section>
  );
}
