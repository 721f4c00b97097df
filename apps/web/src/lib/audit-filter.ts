/*
 * The Audit page's filters and page in its URL, so a filtered view can be shared or reloaded:
 * `?actor=sam&action=token.*&target=cluster/*&from=2026-01-31T09:00&to=…&page=CURSOR`.
 * `from` and `to` are what a datetime-local input holds (the reader's local time, to the minute).
 */

export interface AuditFilter {
  /** Exact username. */
  readonly actor: string;
  /** Exact action, or a family "token.*". */
  readonly action: string;
  /** Exact target, or a prefix ending in "*". */
  readonly target: string;
  /** Local date-time "YYYY-MM-DDTHH:MM", inclusive; "" for none. */
  readonly from: string;
  /** Local date-time, exclusive; "" for none. */
  readonly to: string;
}

export const NO_AUDIT_FILTER: AuditFilter = { actor: "", action: "", target: "", from: "", to: "" };

const KEYS = ["actor", "action", "target", "from", "to"] as const;

/** The action filter's choices: exact actions and families (server: audit.ts auditWhere). */
export const AUDIT_ACTIONS: readonly { readonly value: string; readonly label: string }[] = [
  { value: "", label: "Any action" },
  { value: "login", label: "Sign-ins" },
  { value: "login.failed", label: "Failed sign-ins" },
  { value: "logout", label: "Sign-outs" },
  { value: "publish", label: "Publishes" },
  { value: "rollback", label: "Rollbacks" },
  { value: "review.*", label: "Review requests (review.*)" },
  { value: "cluster.*", label: "Clusters (cluster.*)" },
  { value: "routeConfiguration.*", label: "Routes (routeConfiguration.*)" },
  { value: "listener.*", label: "Listeners (listener.*)" },
  { value: "nodeGroup.*", label: "Node groups (nodeGroup.*)" },
  { value: "runtimeLayer.*", label: "Runtime layers (runtimeLayer.*)" },
  { value: "secret.*", label: "Secrets (secret.*)" },
  { value: "user.*", label: "Users (user.*)" },
  { value: "team.*", label: "Teams (team.*)" },
  { value: "token.*", label: "API tokens (token.*)" },
];

export function auditFilterFromParams(params: Pick<URLSearchParams, "get">): AuditFilter {
  const value = (key: (typeof KEYS)[number]) => (params.get(key) ?? "").trim();
  return {
    actor: value("actor"),
    action: value("action"),
    target: value("target"),
    from: localDateTime(value("from")),
    to: localDateTime(value("to")),
  };
}

/** A datetime-local value, or "" when `value` is not one (an edited URL). */
function localDateTime(value: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value) &&
    !Number.isNaN(new Date(value).getTime())
    ? value
    : "";
}

/** The search part of the page's URL, "?…" or "" with no filter and the first page. */
export function searchOfAuditFilter(filter: AuditFilter, page = ""): string {
  const params = new URLSearchParams();
  for (const key of KEYS) if (filter[key] !== "") params.set(key, filter[key]);
  if (page !== "") params.set("page", page);
  const search = params.toString();
  return search === "" ? "" : `?${search}`;
}

/** A local date-time as an instant; undefined for "". */
export function instantOf(local: string): Date | undefined {
  if (local === "") return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * The export's URL for `filter` (server: access/audit-export.ts), with the times as ISO 8601
 * instants so the server reads them as the reader meant them, whatever its own time zone.
 */
export function auditExportHref(filter: AuditFilter, format: "csv" | "ndjson"): string {
  const params = new URLSearchParams({ format });
  if (filter.actor !== "") params.set("actor", filter.actor);
  if (filter.action !== "") params.set("action", filter.action);
  if (filter.target !== "") params.set("target", filter.target);
  const start = instantOf(filter.from);
  const end = instantOf(filter.to);
  if (start) params.set("start", start.toISOString());
  if (end) params.set("end", end.toISOString());
  return `/api/audit/export?${params.toString()}`;
}

/**
 * An event's detail split into the before/after of its change (config writes, user and team
 * changes store `diff: { before, after }`) and the rest. Each side is indented JSON with sorted
 * keys, so two versions of an object line up in a text diff; "" when absent (a creation).
 */
export function auditDiffOf(detail: unknown): {
  readonly diff: { readonly before: string; readonly after: string } | undefined;
  readonly rest: Record<string, unknown>;
} {
  if (detail === null || typeof detail !== "object" || Array.isArray(detail))
    return { diff: undefined, rest: detail === undefined || detail === null ? {} : { detail } };
  const { diff, ...rest } = detail as Record<string, unknown>;
  if (diff === null || typeof diff !== "object" || Array.isArray(diff))
    return { diff: undefined, rest: diff === undefined ? rest : { ...rest, diff } };
  const { before, after } = diff as { before?: unknown; after?: unknown };
  return { diff: { before: stableJson(before), after: stableJson(after) }, rest };
}

/** Indented JSON with object keys sorted; "" for null and undefined. */
export function stableJson(value: unknown): string {
  if (value === null || value === undefined) return "";
  return JSON.stringify(sortKeys(value), null, 2);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}
