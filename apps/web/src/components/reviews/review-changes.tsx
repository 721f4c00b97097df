"use client";

import { useQuery } from "@connectrpc/connect-query";
import { ConfigService, type ReviewRequest } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { ChangeBadge, ChangeList, OPEN_BY_DEFAULT_MAX } from "@/components/diff/change-list";
import { Link } from "@/components/ui/link";
import { LoadError, LoadingBlock } from "@/components/ui/page-states";
import { changeKey, changeVerb, kindLabel, objectHref, sortChanges } from "@/lib/object-changes";

/** The objects a request changes, by name (a request records names only). */
export function ChangeNames({ request }: { request: ReviewRequest }) {
  return (
    <ul aria-label={`Changes of review #${request.id}`} className="flex flex-col gap-1.5">
      {sortChanges(request.changes).map((change) => {
        const verb = changeVerb(change.change);
        const href = objectHref(change.kind, change.name);
        return (
          <li key={changeKey(change)} className="flex min-w-0 items-center gap-2.5">
            <ChangeBadge verb={verb} />
            <span className="text-xs text-fg-subtle">{kindLabel(change.kind)}</span>
            {href && verb !== "removed" ? (
              <Link
                href={href as Route}
                className="min-w-0 truncate font-mono text-[13px] font-medium text-fg hover:text-accent hover:underline"
              >
                {change.name}
              </Link>
            ) : (
              <span className="min-w-0 truncate font-mono text-[13px] font-medium text-fg">
                {change.name}
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/**
 * The diff of a current request's objects: the draft against the version it was requested on,
 * only those objects (Diff's `bodies.only`). A long list comes by name, each card fetching its
 * own YAML when opened. Should the draft have changed since the request was listed, the diff is
 * not that request's any more: it says so instead of showing it.
 */
export function ReviewDiff({ request }: { request: ReviewRequest }) {
  const lazy = request.changes.length > OPEN_BY_DEFAULT_MAX;
  const only = request.changes.map((c) => ({ kind: c.kind, name: c.name }));
  const diff = useQuery(ConfigService.method.diff, {
    fromVersion: request.baseVersion,
    bodies: lazy ? { omit: true, only } : { only },
  });
  if (diff.error)
    return (
      <LoadError
        what={`the diff of review #${request.id}`}
        procedure="switchyard.v1.ConfigService/Diff"
        error={diff.error}
        retrying={diff.isFetching}
        onRetry={() => void diff.refetch()}
      />
    );
  if (!diff.data) return <LoadingBlock label={`Loading the diff of review #${request.id}…`} />;
  if (diff.data.draftRevision !== request.draftRevision)
    return (
      <p role="note" className="rounded-lg border border-dashed px-4 py-3 text-fg-muted">
        The draft changed after this request was made: it is out of date, and its diff is no longer
        the draft’s. Refresh to see its state.
      </p>
    );
  return (
    <ChangeList
      changes={diff.data.changes}
      lazyBodies={
        lazy ? { from: "diff", fromVersion: request.baseVersion, toVersion: 0n } : undefined
      }
      empty={
        <p className="rounded-lg border border-dashed px-4 py-3 text-center text-fg-muted">
          The draft no longer differs from version {request.baseVersion.toString()}.
        </p>
      }
    />
  );
}
