"use client";

import { skipToken, useQuery } from "@connectrpc/connect-query";
import {
  ConfigService,
  type Issue,
  type ObjectChange,
} from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { type ReactNode, useId, useMemo, useState } from "react";
import { Button } from "@/components/ui/button";
import { ChevronRightIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { LoadError, LoadingBlock } from "@/components/ui/page-states";
import {
  type ChangeVerb,
  changeKey,
  changeVerb,
  countChanges,
  issuesFor,
  kindLabel,
  objectHref,
  sortChanges,
} from "@/lib/object-changes";
import { IssueList } from "./issue-list";
import { type DiffMode, LineStats, TextDiff } from "./text-diff";

const verbStyle: Record<ChangeVerb, { label: string; className: string }> = {
  added: { label: "Added", className: "bg-success/10 text-success ring-success/30" },
  modified: { label: "Modified", className: "bg-warning-soft text-warning ring-warning-border" },
  removed: { label: "Removed", className: "bg-danger-soft text-danger ring-danger-border" },
};

export function ChangeBadge({ verb }: { verb: ChangeVerb }) {
  const s = verbStyle[verb];
  return (
    <span
      className={`inline-flex h-5 items-center rounded px-1.5 text-[11px] font-semibold uppercase tracking-wide ring-1 ring-inset ${s.className}`}
    >
      {s.label}
    </span>
  );
}

/** "3 added · 1 modified · 0 removed", as coloured counters. */
export function ChangeCounters({ changes }: { changes: readonly ObjectChange[] }) {
  const counts = countChanges(changes);
  return (
    <ul className="flex items-center gap-3 text-xs text-fg-muted" aria-label="Change summary">
      <li>
        <span className="font-semibold text-success tabular-nums">{counts.added}</span> added
      </li>
      <li>
        <span className="font-semibold text-warning tabular-nums">{counts.modified}</span> modified
      </li>
      <li>
        <span className="font-semibold text-danger tabular-nums">{counts.removed}</span> removed
      </li>
    </ul>
  );
}

/** A two-option segmented control choosing how diffs are drawn; a radio group for keyboards. */
export function DiffModeToggle({
  mode,
  onChange,
}: {
  mode: DiffMode;
  onChange: (mode: DiffMode) => void;
}) {
  const name = useId();
  const options: { value: DiffMode; label: string }[] = [
    { value: "unified", label: "Unified" },
    { value: "split", label: "Split" },
  ];
  return (
    <fieldset className="flex items-center gap-2">
      <legend className="sr-only">Diff layout</legend>
      <div className="flex rounded-md border bg-surface-muted p-0.5">
        {options.map((o) => (
          <label
            key={o.value}
            className={`cursor-pointer rounded px-2.5 py-1 text-xs font-medium transition-colors has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-1 ${
              mode === o.value ? "bg-surface text-fg shadow-xs" : "text-fg-muted hover:text-fg"
            }`}
          >
            <input
              type="radio"
              name={name}
              value={o.value}
              checked={mode === o.value}
              onChange={() => onChange(o.value)}
              className="sr-only"
            />
            {o.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/**
 * Every changed object, edge inwards (listeners, route configurations, clusters), each a card with
 * its diff. Issues are shown on the card of the object they concern. Cards start open when there
 * are few, so a small change reads at a glance and a large one stays scannable; a diff is computed
 * only when its card is open. A long list (a first version adds every object) shows CARDS_SHOWN
 * cards, objects with issues first, and more on request.
 */
/** Lists with at most this many changes show every card open. */
export const OPEN_BY_DEFAULT_MAX = 8;

/**
 * Where the YAML of changes listed by name only (ChangeBodies.omit) comes from: a card asks for
 * its own object's when it is opened. A diff with `toVersion` 0 is the draft's against
 * `fromVersion` (a review request's objects).
 */
export type LazyBodies =
  | { readonly from: "snapshot"; readonly version: bigint }
  | { readonly from: "diff"; readonly fromVersion: bigint; readonly toVersion: bigint };

export function ChangeList({
  changes,
  lazyBodies,
  issues = [],
  empty,
  toolbar,
}: {
  changes: readonly ObjectChange[];
  /** Set when `changes` came by name only. */
  lazyBodies?: LazyBodies | undefined;
  issues?: readonly Issue[];
  /** Shown instead of the list when nothing changed. */
  empty: ReactNode;
  /** Extra controls at the right of the list's toolbar. */
  toolbar?: ReactNode;
}) {
  const [mode, setMode] = useState<DiffMode>("unified");
  const [shown, setShown] = useState(CARDS_SHOWN);
  const sorted = useMemo(() => {
    const all = sortChanges(changes);
    // What needs attention first: an object with issues must not hide behind "Show more".
    const flagged = all.filter((c) => issuesFor(issues, c).length > 0);
    return flagged.length === 0 ? all : [...flagged, ...all.filter((c) => !flagged.includes(c))];
  }, [changes, issues]);
  if (sorted.length === 0) return <>{empty}</>;
  const openByDefault = sorted.length <= OPEN_BY_DEFAULT_MAX;
  const hidden = sorted.length - shown;
  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <ChangeCounters changes={sorted} />
        <div className="flex items-center gap-3">
          {toolbar}
          <DiffModeToggle mode={mode} onChange={setMode} />
        </div>
      </div>
      <ul className="flex flex-col gap-3">
        {sorted.slice(0, shown).map((change) => (
          <li key={changeKey(change)}>
            <ChangeCard
              change={change}
              lazyBodies={lazyBodies}
              mode={mode}
              issues={issuesFor(issues, change)}
              defaultOpen={openByDefault}
            />
          </li>
        ))}
      </ul>
      {hidden > 0 && (
        <div className="flex items-center justify-center gap-3 text-xs text-fg-muted">
          <span className="tabular-nums">
            {shown} of {sorted.length} objects shown
          </span>
          <Button onClick={() => setShown((n) => n + CARDS_SHOWN)}>
            Show {Math.min(hidden, CARDS_SHOWN)} more
          </Button>
          <Button variant="ghost" onClick={() => setShown(sorted.length)}>
            Show all {sorted.length}
          </Button>
        </div>
      )}
    </div>
  );
}

/** Cards rendered at first, and added by each "Show more". */
const CARDS_SHOWN = 50;

/** The change with its YAML: as listed, or fetched for this object once the card is open. */
function useChangeBodies(change: ObjectChange, lazy: LazyBodies | undefined, open: boolean) {
  const only = [{ kind: change.kind, name: change.name }];
  const fetch = { staleTime: Number.POSITIVE_INFINITY };
  const snapshot = useQuery(
    ConfigService.method.getSnapshot,
    open && lazy?.from === "snapshot" ? { version: lazy.version, bodies: { only } } : skipToken,
    fetch,
  );
  const diff = useQuery(
    ConfigService.method.diff,
    open && lazy?.from === "diff"
      ? { fromVersion: lazy.fromVersion, toVersion: lazy.toVersion, bodies: { only } }
      : skipToken,
    fetch,
  );
  if (lazy === undefined) return { full: change, query: undefined };
  const query = lazy.from === "snapshot" ? snapshot : diff;
  return { full: query.data?.changes[0], query };
}

function ChangeCard({
  change,
  lazyBodies,
  mode,
  issues,
  defaultOpen,
}: {
  change: ObjectChange;
  lazyBodies: LazyBodies | undefined;
  mode: DiffMode;
  issues: readonly Issue[];
  defaultOpen: boolean;
}) {
  const [open, setOpen] = useState(defaultOpen);
  const bodyId = useId();
  const { full, query } = useChangeBodies(change, lazyBodies, open);
  const verb = changeVerb(change.change);
  const kind = kindLabel(change.kind);
  const href = objectHref(change.kind, change.name);
  return (
    <article
      aria-label={`${kind} ${change.name}`}
      className="overflow-hidden rounded-lg border bg-surface shadow-xs"
    >
      <header className="flex items-center gap-3 px-3 py-2">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => setOpen(!open)}
          className="grid size-6 shrink-0 place-items-center rounded text-fg-subtle transition-colors hover:bg-surface-hover hover:text-fg"
        >
          <ChevronRightIcon className={`size-4 transition-transform ${open ? "rotate-90" : ""}`} />
          <span className="sr-only">
            {open ? "Hide" : "Show"} the diff of {kind} {change.name}
          </span>
        </button>
        <ChangeBadge verb={verb} />
        <span className="text-xs text-fg-subtle">{kind}</span>
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
        {issues.length > 0 && (
          <span className="rounded-full bg-warning-soft px-2 py-0.5 text-xs font-medium text-warning ring-1 ring-warning-border ring-inset">
            {issues.length} {issues.length === 1 ? "issue" : "issues"}
          </span>
        )}
        <span className="ml-auto">
          {full && <LineStats before={full.before} after={full.after} />}
        </span>
      </header>
      <div id={bodyId} hidden={!open} className="border-t">
        {open && (
          <>
            {issues.length > 0 && (
              <div className="border-b bg-surface-muted px-3 py-2">
                <IssueList issues={issues} compact />
              </div>
            )}
            {full ? (
              <TextDiff
                before={full.before}
                after={full.after}
                mode={mode}
                label={`Changes to ${kind} ${change.name}`}
              />
            ) : query?.error ? (
              <div className="p-3">
                <LoadError
                  what={`the YAML of ${kind} ${change.name}`}
                  error={query.error}
                  retrying={query.isFetching}
                  onRetry={() => void query.refetch()}
                />
              </div>
            ) : (
              <div className="p-3">
                <LoadingBlock label={`Loading ${kind} ${change.name}…`} rows={3} />
              </div>
            )}
          </>
        )}
      </div>
    </article>
  );
}
