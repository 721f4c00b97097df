import { truncateUtf8 } from "@switchyard/snapshot";

/**
 * The size bound of an audit event's detail, applied where every event is written (audit.ts
 * auditRow): a caller's text in it (a comment, a user agent, a reason, an object's body in a diff)
 * is stored cut to size, with the marker of truncateUtf8, so no request makes the audit log, its
 * pages or its export large. Pinned by test/audit-bounds.e2e.spec.ts.
 */

/** Each string in a detail, at most (UTF-8 bytes). */
export const AUDIT_TEXT_BYTES = 16 * 1024;
/**
 * A whole detail, as JSON, at most: a larger one is stored as `{ truncatedJson }`, its JSON text
 * cut to this size with the marker (stored as JSON itself, its escaped quotes make it at most
 * twice that).
 */
export const AUDIT_DETAIL_BYTES = 64 * 1024;

function boundStrings(value: unknown): unknown {
  if (typeof value === "string") return truncateUtf8(value, AUDIT_TEXT_BYTES);
  if (Array.isArray(value)) return value.map(boundStrings);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => [
        truncateUtf8(key, AUDIT_TEXT_BYTES),
        boundStrings(field),
      ]),
    );
  return value;
}

/** `detail` within AUDIT_TEXT_BYTES per string and AUDIT_DETAIL_BYTES in all. */
export function boundedAuditDetail(
  detail: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const bounded = boundStrings(detail) as Record<string, unknown>;
  const json = JSON.stringify(bounded);
  if (Buffer.byteLength(json, "utf8") <= AUDIT_DETAIL_BYTES) return bounded;
  return { truncatedJson: truncateUtf8(json, AUDIT_DETAIL_BYTES) };
}
