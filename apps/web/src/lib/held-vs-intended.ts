import type { HeldResources } from "@switchyard/proto/switchyard/v1/status_pb";

/**
 * One resource, what the node holds (its latest ACK) against what the latest published version
 * gives it (HeldResources.intended):
 * - `in-sync`: held at the intended version.
 * - `different-version`: held, but at another version than the intended one.
 * - `missing`: intended, not held.
 * - `extra`: held, not intended.
 * - `unknown`: held and intended, but the transport did not report the held version, so the two
 *   cannot be compared.
 */
export type ResourceVerdict = "in-sync" | "different-version" | "missing" | "extra" | "unknown";

export interface ResourceRow {
  readonly name: string;
  /** The version the node ACKed ("" when not reported); undefined: not held. */
  readonly held: string | undefined;
  /** The version the latest published version gives the node; undefined: not intended. */
  readonly intended: string | undefined;
  readonly verdict: ResourceVerdict;
}

export interface TypeComparison {
  readonly typeUrl: string;
  readonly versionsKnown: boolean;
  /** Sorted by name. */
  readonly rows: readonly ResourceRow[];
  /** Every row is `in-sync` (true for a type with no resource held or intended). */
  readonly inSync: boolean;
}

const has = (record: { readonly [name: string]: string }, name: string): string | undefined =>
  Object.hasOwn(record, name) ? record[name] : undefined;

function verdict(
  held: string | undefined,
  intended: string | undefined,
  versionsKnown: boolean,
): ResourceVerdict {
  if (held === undefined) return "missing";
  if (intended === undefined) return "extra";
  if (!versionsKnown && held === "") return "unknown";
  return held === intended ? "in-sync" : "different-version";
}

/**
 * Resource by resource, `resources` (held) against `intended`, for each type the node requested.
 * The server fills `intended` from the latest published version and the node's group (for EDS and
 * RDS only the names the node holds), so the comparison is direct; the caller says when nothing
 * was published (NodeDetail.intended_version 0), where every held resource would read `extra`.
 */
export function compareHeld(held: readonly HeldResources[]): TypeComparison[] {
  return held.map((h) => {
    const names = [...new Set([...Object.keys(h.resources), ...Object.keys(h.intended)])].sort();
    const rows = names.map((name): ResourceRow => {
      const heldVersion = has(h.resources, name);
      const intendedVersion = has(h.intended, name);
      return {
        name,
        held: heldVersion,
        intended: intendedVersion,
        verdict: verdict(heldVersion, intendedVersion, h.versionsKnown),
      };
    });
    return {
      typeUrl: h.typeUrl,
      versionsKnown: h.versionsKnown,
      rows,
      inSync: rows.every((r) => r.verdict === "in-sync"),
    };
  });
}

/**
 * The rows worth showing first, in their order: every row that is not in sync, then in-sync rows
 * while fewer than `room` rows are taken.
 */
export function rowsWorthShowing(rows: readonly ResourceRow[], room: number): ResourceRow[] {
  let inSync = Math.max(0, room - rows.filter((r) => r.verdict !== "in-sync").length);
  return rows.filter((r) => r.verdict !== "in-sync" || inSync-- > 0);
}
