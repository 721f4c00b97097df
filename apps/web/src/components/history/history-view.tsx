"use client";

import { timestampDate } from "@bufbuild/protobuf/wkt";
import { useQuery } from "@connectrpc/connect-query";
import {
  ConfigService,
  type PublishResponse,
  type SnapshotInfo,
} from "@switchyard/proto/switchyard/v1/config_pb";
import type { Rollout } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { StatusService, type VersionConvergence } from "@switchyard/proto/switchyard/v1/status_pb";
import type { Route } from "next";
import { useRouter, useSearchParams } from "next/navigation";
import { type ReactNode, useMemo, useState } from "react";
import { ConvergencePanel } from "@/components/convergence/convergence-view";
import { ChangeList, type LazyBodies, OPEN_BY_DEFAULT_MAX } from "@/components/diff/change-list";
import { RolloutMarks, useRolloutsByVersion } from "@/components/rollouts/rollout-marks";
import { buttonClass } from "@/components/ui/button";
import { HistoryIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { EmptyState, LoadError, LoadingBlock, PageHeader } from "@/components/ui/page-states";
import { RefreshButton } from "@/components/ui/refresh-button";
import { RelativeTime } from "@/components/ui/relative-time";
import { RollbackButton } from "./rollback-button";
import { VersionTable } from "./version-table";

/** How the listed versions converged (the same 200 as ListSnapshots), read again every 10 s. */
function useConvergenceByVersion(): ReadonlyMap<bigint, VersionConvergence> {
  const query = useQuery(
    StatusService.method.listVersionConvergence,
    { limit: 200 },
    { refetchInterval: 10_000 },
  );
  return useMemo(
    () => new Map((query.data?.versions ?? []).map((v) => [v.version, v])),
    [query.data],
  );
}

function parseVersion(value: string | null): bigint | undefined {
  if (!value || !/^\d+$/.test(value)) return undefined;
  return BigInt(value);
}

/**
 * The History page: every published version (ListSnapshots), the selected one's diff against its
 * predecessor, and rollback to it. The selection is in the URL (`?version=7`), so a version can be
 * linked to.
 */
export function HistoryView() {
  const router = useRouter();
  const params = useSearchParams();
  const snapshots = useQuery(ConfigService.method.listSnapshots, { limit: 200 });
  const [rolledBack, setRolledBack] = useState<PublishResponse | undefined>();
  const rollouts = useRolloutsByVersion();
  const convergence = useConvergenceByVersion();

  const list = snapshots.data?.snapshots ?? [];
  const requested = parseVersion(params.get("version"));
  const selected = list.find((s) => s.version === requested) ?? list[0];
  const latest = list[0];

  let body: ReactNode;
  if (snapshots.error && !snapshots.data) {
    body = (
      <LoadError
        what="the version history"
        procedure="switchyard.v1.ConfigService/ListSnapshots"
        error={snapshots.error}
        retrying={snapshots.isFetching}
        onRetry={() => void snapshots.refetch()}
      />
    );
  } else if (!snapshots.data) {
    body = <LoadingBlock label="Loading the published versions…" rows={6} />;
  } else if (list.length === 0) {
    body = (
      <EmptyState
        icon={<HistoryIcon className="size-5" />}
        title="Nothing published yet"
        actions={
          <Link href={"/changes" as Route} className={buttonClass("primary")}>
            Review and publish the draft
          </Link>
        }
      >
        Every publish becomes an immutable version listed here, with its author, message and diff,
        and any version can be rolled back to.
      </EmptyState>
    );
  } else {
    body = (
      <>
        <VersionTable
          snapshots={list}
          selected={selected?.version}
          rollouts={rollouts}
          convergence={convergence}
        />
        {selected && latest && (
          <VersionDetail
            key={selected.version.toString()}
            snapshot={selected}
            latest={latest}
            rollouts={rollouts.get(selected.version)}
            onRolledBack={(response) => {
              setRolledBack(response);
              if (response.snapshot)
                router.replace(`/history?version=${response.snapshot.version}` as Route, {
                  scroll: false,
                });
            }}
          />
        )}
      </>
    );
  }

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="History"
        description="Every published version, newest first. Select one to see what it changed."
        actions={
          <RefreshButton
            fetching={snapshots.isFetching}
            shown={snapshots.data !== undefined}
            onClick={() => void snapshots.refetch()}
          />
        }
      />
      {rolledBack?.snapshot && (
        <ConvergencePanel key={rolledBack.snapshot.version} version={rolledBack.snapshot.version} />
      )}
      {body}
    </div>
  );
}

/** One version: who published it, when and why, what it changed, and rollback to it. */
function VersionDetail({
  snapshot,
  latest,
  rollouts,
  onRolledBack,
}: {
  snapshot: SnapshotInfo;
  latest: SnapshotInfo;
  rollouts: readonly Rollout[] | undefined;
  onRolledBack: (response: PublishResponse) => void;
}) {
  const first = snapshot.previousVersion === 0n;
  // A long list (a first version adds every object) comes by name only, and each card fetches
  // its object's YAML when opened: the page does not wait for thousands of objects rendered.
  const namesOnly = snapshot.added + snapshot.modified + snapshot.removed > OPEN_BY_DEFAULT_MAX;
  const bodies = namesOnly ? { omit: true } : {};
  // Against its predecessor (Diff with both versions); the first version has none, and its
  // snapshot record holds its changes against nothing.
  const diff = useQuery(
    ConfigService.method.diff,
    { fromVersion: snapshot.previousVersion, toVersion: snapshot.version, bodies },
    { enabled: !first, staleTime: Number.POSITIVE_INFINITY },
  );
  const record = useQuery(
    ConfigService.method.getSnapshot,
    { version: snapshot.version, bodies },
    { enabled: first, staleTime: Number.POSITIVE_INFINITY },
  );
  const lazyBodies: LazyBodies | undefined = !namesOnly
    ? undefined
    : first
      ? { from: "snapshot", version: snapshot.version }
      : { from: "diff", fromVersion: snapshot.previousVersion, toVersion: snapshot.version };
  const query = first ? record : diff;
  const changes = first ? record.data?.changes : diff.data?.changes;
  const isLatest = snapshot.version === latest.version;

  return (
    <section
      aria-labelledby="version-title"
      className="flex scroll-mt-20 flex-col gap-4 rounded-xl border bg-surface p-5 shadow-xs"
    >
      <header className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <h2 id="version-title" className="text-lg font-semibold tracking-tight text-fg">
            Version {snapshot.version.toString()}
            {isLatest && (
              <span className="ml-2 align-middle rounded-full bg-success/10 px-2 py-0.5 text-xs font-medium text-success ring-1 ring-success/30 ring-inset">
                live
              </span>
            )}
          </h2>
          <p className="mt-1 text-fg">{snapshot.message || "No message"}</p>
          <p className="mt-1 text-xs text-fg-muted">
            Published by{" "}
            <span className="font-medium text-fg">{snapshot.author || "anonymous"}</span>
            {snapshot.createTime && (
              <>
                {" "}
                <RelativeTime date={timestampDate(snapshot.createTime)} />
              </>
            )}
            {first ? (
              " · the first version"
            ) : (
              <> · compared with version {snapshot.previousVersion.toString()}</>
            )}
            {snapshot.rolledBackFrom > 0n && (
              <> · republishes version {snapshot.rolledBackFrom.toString()}</>
            )}
          </p>
          <RolloutMarks rollouts={rollouts} className="mt-2" />
        </div>
        {isLatest ? (
          <p className="max-w-56 text-right text-xs text-fg-subtle">
            This is the version proxies are served. Select an older one to roll back to it.
          </p>
        ) : (
          <RollbackButton target={snapshot} latest={latest} onRolledBack={onRolledBack} />
        )}
      </header>
      {query.error ? (
        <LoadError
          what={`the changes of version ${snapshot.version}`}
          procedure={
            first ? "switchyard.v1.ConfigService/GetSnapshot" : "switchyard.v1.ConfigService/Diff"
          }
          error={query.error}
          retrying={query.isFetching}
          onRetry={() => void query.refetch()}
        />
      ) : changes ? (
        <ChangeList
          changes={changes}
          lazyBodies={lazyBodies}
          empty={
            <p className="rounded-lg border border-dashed px-4 py-5 text-center text-fg-muted">
              This version has the same content as version {snapshot.previousVersion.toString()}.
            </p>
          }
        />
      ) : (
        <LoadingBlock label={`Loading the changes of version ${snapshot.version}…`} />
      )}
    </section>
  );
}
