"use client";

import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { useQuery } from "@connectrpc/connect-query";
import { AccessService, type AuditEvent } from "@switchyard/proto/switchyard/v1/access_pb";
import type { Route } from "next";
import { useRouter, useSearchParams } from "next/navigation";
import { Fragment, type ReactNode, useId, useState } from "react";
import { Chip } from "@/components/config/states";
import { TextDiff } from "@/components/diff/text-diff";
import { inputClass } from "@/components/form/field";
import { Button, buttonClass } from "@/components/ui/button";
import { ChevronRightIcon, DownloadIcon, ScrollTextIcon } from "@/components/ui/icons";
import { EmptyState, LoadError, PageHeader, TableSkeleton } from "@/components/ui/page-states";
import { RelativeTime } from "@/components/ui/relative-time";
import {
  AUDIT_ACTIONS,
  type AuditFilter,
  auditDiffOf,
  auditExportHref,
  auditFilterFromParams,
  instantOf,
  NO_AUDIT_FILTER,
  searchOfAuditFilter,
  stableJson,
} from "@/lib/audit-filter";
import { AdminOnly } from "./admin-only";

/** Events a page shows: the API's default page size is 100; 50 keeps a page easy to scan. */
const PAGE_SIZE = 50;

export function AuditView() {
  // The page draws this in the browser only (BrowserOnly in app/audit/page.tsx): a placeholder
  // drawn on the server could hydrate after WhoAmI answered, and mismatch.
  const params = useSearchParams();
  return (
    <AdminOnly title="Audit log" what="read the audit log">
      <AuditLog params={params} />
    </AdminOnly>
  );
}

/**
 * The audit log, newest first: filters and the page are in the URL (lib/audit-filter.ts), a row
 * opens to its detail (a before/after diff when it has one), and the export links download the
 * same filtered events as CSV or NDJSON.
 */
function AuditLog({ params }: { params: Pick<URLSearchParams, "get"> }) {
  const router = useRouter();
  const filter = auditFilterFromParams(params);
  const page = params.get("page") ?? "";
  const start = instantOf(filter.from);
  const end = instantOf(filter.to);
  const query = useQuery(AccessService.method.listAuditEvents, {
    actor: filter.actor,
    action: filter.action,
    target: filter.target,
    ...(start ? { startTime: timestampFromDate(start) } : {}),
    ...(end ? { endTime: timestampFromDate(end) } : {}),
    pageSize: PAGE_SIZE,
    pageToken: page,
  });
  const go = (next: AuditFilter, nextPage = "") =>
    router.push(`/audit${searchOfAuditFilter(next, nextPage)}` as Route);
  const filtered = searchOfAuditFilter(filter) !== "";

  let body: ReactNode;
  if (query.data) {
    const { events, nextPageToken } = query.data;
    body =
      events.length === 0 ? (
        filtered || page !== "" ? (
          <EmptyState
            icon={<ScrollTextIcon className="size-5" />}
            title="No event matches"
            actions={
              <Button variant="primary" onClick={() => go(NO_AUDIT_FILTER)}>
                Clear the filters
              </Button>
            }
          >
            Nothing was recorded for these filters. An actor is an exact username; a target such as{" "}
            <code className="font-mono">cluster/*</code> matches by prefix.
          </EmptyState>
        ) : (
          <EmptyState icon={<ScrollTextIcon className="size-5" />} title="Nothing recorded yet">
            Sign-ins, configuration changes, publishes, rollbacks, token use and changes to users
            and teams are recorded here as they happen, with who, when and from where.
          </EmptyState>
        )
      ) : (
        <>
          <AuditTable events={events} />
          <nav
            aria-label="Audit log, pages"
            className="flex flex-wrap items-center justify-between gap-3 text-xs text-fg-muted"
          >
            <p>
              {events.length} {events.length === 1 ? "event" : "events"}, newest first
              {page !== "" ? " (an older page)" : ""}
            </p>
            <div className="flex items-center gap-1.5">
              <Button disabled={page === ""} onClick={() => go(filter)}>
                Newest
              </Button>
              <Button disabled={nextPageToken === ""} onClick={() => go(filter, nextPageToken)}>
                Older
              </Button>
            </div>
          </nav>
        </>
      );
  } else if (query.error) {
    body = (
      <LoadError
        what="the audit log"
        error={query.error}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
      />
    );
  } else {
    body = <TableSkeleton label="the audit log" />;
  }

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Audit log"
        description="Who did what, when and from where: sign-ins, changes with their diff, publishes, tokens."
        actions={
          <>
            <a href={auditExportHref(filter, "csv")} download className={buttonClass("secondary")}>
              <DownloadIcon className="size-4" />
              Export CSV
            </a>
            <a
              href={auditExportHref(filter, "ndjson")}
              download
              className={buttonClass("secondary")}
            >
              <DownloadIcon className="size-4" />
              Export NDJSON
            </a>
          </>
        }
      />
      {/* Keyed by the URL's filters, so going back in history shows them in the fields. */}
      <FilterForm key={searchOfAuditFilter(filter)} filter={filter} onApply={(next) => go(next)} />
      {body}
    </div>
  );
}

function FilterForm({
  filter,
  onApply,
}: {
  filter: AuditFilter;
  onApply: (filter: AuditFilter) => void;
}) {
  const [values, setValues] = useState(filter);
  const id = useId();
  const set = (key: keyof AuditFilter) => (e: { target: { value: string } }) =>
    setValues((v) => ({ ...v, [key]: e.target.value }));
  const actions = AUDIT_ACTIONS.some((a) => a.value === values.action)
    ? AUDIT_ACTIONS
    : [...AUDIT_ACTIONS, { value: values.action, label: values.action }];
  const label = "text-[13px] font-medium text-fg";
  return (
    <form
      aria-label="Filter the audit log"
      className="grid grid-cols-1 gap-3 rounded-xl border bg-surface p-4 shadow-xs sm:grid-cols-2 lg:grid-cols-3"
      onSubmit={(e) => {
        e.preventDefault();
        onApply({
          actor: values.actor.trim(),
          action: values.action,
          target: values.target.trim(),
          from: values.from,
          to: values.to,
        });
      }}
    >
      <div className="flex min-w-0 flex-col gap-1.5">
        <label htmlFor={`${id}-actor`} className={label}>
          Actor
        </label>
        <input
          id={`${id}-actor`}
          value={values.actor}
          onChange={set("actor")}
          placeholder="username"
          spellCheck={false}
          autoComplete="off"
          className={`${inputClass} font-mono text-[13px]`}
        />
      </div>
      <div className="flex min-w-0 flex-col gap-1.5">
        <label htmlFor={`${id}-action`} className={label}>
          Action
        </label>
        <select
          id={`${id}-action`}
          value={values.action}
          onChange={set("action")}
          className={`${inputClass} pr-8`}
        >
          {actions.map((a) => (
            <option key={a.value} value={a.value}>
              {a.label}
            </option>
          ))}
        </select>
      </div>
      <div className="flex min-w-0 flex-col gap-1.5">
        <label htmlFor={`${id}-target`} className={label}>
          Target
        </label>
        <input
          id={`${id}-target`}
          value={values.target}
          onChange={set("target")}
          placeholder="cluster/payments or cluster/*"
          spellCheck={false}
          autoComplete="off"
          className={`${inputClass} font-mono text-[13px]`}
        />
      </div>
      <div className="flex min-w-0 flex-col gap-1.5">
        <label htmlFor={`${id}-from`} className={label}>
          From
        </label>
        <input
          id={`${id}-from`}
          type="datetime-local"
          value={values.from}
          onChange={set("from")}
          className={inputClass}
        />
      </div>
      <div className="flex min-w-0 flex-col gap-1.5">
        <label htmlFor={`${id}-to`} className={label}>
          Until
        </label>
        <input
          id={`${id}-to`}
          type="datetime-local"
          value={values.to}
          onChange={set("to")}
          className={inputClass}
        />
      </div>
      <div className="flex items-end justify-end gap-2">
        <Button type="submit" variant="primary">
          Apply
        </Button>
        <Button
          onClick={() => onApply(NO_AUDIT_FILTER)}
          disabled={searchOfAuditFilter(filter) === ""}
        >
          Clear
        </Button>
      </div>
    </form>
  );
}

const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

function AuditTable({ events }: { events: readonly AuditEvent[] }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((o) => {
      const next = new Set(o);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const columns = 6;
  return (
    <div className="overflow-x-auto rounded-lg border bg-surface shadow-xs">
      <table className="w-full min-w-[760px] text-left">
        <caption className="sr-only">Audit events, newest first</caption>
        <thead className="border-b bg-surface-muted text-xs text-fg-subtle">
          <tr>
            <th scope="col" className="px-4 py-2.5 font-medium">
              When
            </th>
            <th scope="col" className="px-4 py-2.5 font-medium">
              Who
            </th>
            <th scope="col" className="px-4 py-2.5 font-medium">
              From
            </th>
            <th scope="col" className="px-4 py-2.5 font-medium">
              Action
            </th>
            <th scope="col" className="px-4 py-2.5 font-medium">
              Target
            </th>
            <th scope="col" className="px-4 py-2.5 font-medium">
              <span className="sr-only">Detail</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y">
          {events.map((event) => {
            const expanded = open.has(event.id);
            const detailId = `audit-detail-${event.id}`;
            const when = event.time ? timestampDate(event.time) : undefined;
            return (
              <Fragment key={event.id}>
                <tr className="align-middle transition-colors hover:bg-surface-hover">
                  <th scope="row" className="px-4 py-2.5 font-medium whitespace-nowrap">
                    {when ? (
                      <>
                        <RelativeTime date={when} />
                        <span className="block text-xs font-normal text-fg-subtle">
                          {absolute.format(when)}
                        </span>
                      </>
                    ) : null}
                  </th>
                  <td className="px-4 py-2.5 whitespace-nowrap text-fg-muted">
                    <span className="font-mono text-[13px] text-fg">{event.actor}</span>
                    {event.actorKind === "token" && (
                      <span className="ml-1.5">
                        <Chip>{event.actorKind}</Chip>
                      </span>
                    )}
                  </td>
                  <td className="px-4 py-2.5 font-mono text-xs text-fg-muted">{event.ip || "—"}</td>
                  <td className="px-4 py-2.5">
                    <Chip tone={event.action.endsWith("failed") ? "warning" : "muted"}>
                      <span className="font-mono">{event.action}</span>
                    </Chip>
                  </td>
                  <td className="px-4 py-2.5 font-mono text-[13px] text-fg-muted [overflow-wrap:anywhere]">
                    {event.target || "—"}
                  </td>
                  <td className="px-4 py-2.5 text-right">
                    <Button
                      variant="ghost"
                      aria-expanded={expanded}
                      aria-controls={expanded ? detailId : undefined}
                      aria-label={`${expanded ? "Hide" : "Show"} detail of ${event.action} by ${event.actor}`}
                      onClick={() => toggle(event.id)}
                    >
                      <ChevronRightIcon
                        className={`size-4 transition-transform ${expanded ? "rotate-90" : ""}`}
                      />
                      Detail
                    </Button>
                  </td>
                </tr>
                {expanded && (
                  <tr id={detailId} className="bg-surface-muted/50">
                    <td colSpan={columns} className="px-4 py-3">
                      <EventDetail event={event} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function EventDetail({ event }: { event: AuditEvent }) {
  const { diff, rest } = auditDiffOf(event.detail);
  const restJson = Object.keys(rest).length === 0 ? "" : stableJson(rest);
  return (
    <div className="flex flex-col gap-3">
      {diff && (
        <div className="overflow-hidden rounded-lg border bg-surface">
          <TextDiff
            before={diff.before}
            after={diff.after}
            mode="unified"
            label={`Changes to ${event.target || event.action}`}
          />
        </div>
      )}
      {restJson !== "" && (
        <pre className="overflow-x-auto rounded-lg border bg-surface p-3 font-mono text-xs text-fg">
          {restJson}
        </pre>
      )}
      {!diff && restJson === "" && <p className="text-fg-subtle">No further detail.</p>}
    </div>
  );
}
