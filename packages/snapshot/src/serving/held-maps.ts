/**
 * What a client holds of a type (name → version), after it ACKs a response: one map shared by
 * every client that got there the same way. A fleet in sync ACKs the same responses from the same
 * holdings, so the xDS subscriptions and the status ledger each keep one map per (earlier map,
 * response) rather than one per stream: thousands of copies of a hundred clusters' names and
 * versions otherwise. Held maps are never altered, only replaced.
 */
import { versionOf } from "./resource-snapshot.js";

/** What a response changes in what the client holds (a version may be unknown: undefined). */
export interface HoldingChange<V extends string | undefined> {
  /** The response is the whole state of the type (SotW LDS/CDS): it replaces what is held. */
  readonly replace: boolean;
  readonly sent: readonly { readonly name: string; readonly version: V }[];
  readonly removed: readonly string[];
}

/** Nothing held: where every holding starts, shared. */
export const NOTHING_HELD: ReadonlyMap<string, never> = new Map<string, never>();

/** The derivations kept per earlier holding: enough for the responses of a few publishes. */
const DERIVATIONS_KEPT = 16;
/** Earlier held map → what a response changed → the held map after it. */
const derivations = new WeakMap<
  ReadonlyMap<string, string | undefined>,
  Map<string, ReadonlyMap<string, string | undefined>>
>();

/** What is held after `change` on top of `before`, shared with whoever got there the same way. */
export function heldAfter<V extends string | undefined>(
  before: ReadonlyMap<string, V>,
  change: HoldingChange<V>,
): ReadonlyMap<string, V> {
  let derived = derivations.get(before);
  if (derived === undefined) {
    derived = new Map();
    derivations.set(before, derived);
  }
  let key = change.replace ? "R" : "A";
  for (const r of change.sent) key += `\u0000${r.name}\u0001${r.version ?? "\u0002"}`;
  key += "\u0003";
  for (const name of change.removed) key += `\u0000${name}`;
  const known = derived.get(key) as ReadonlyMap<string, V> | undefined;
  if (known !== undefined) return known;
  const held = new Map<string, V>(change.replace ? [] : before);
  for (const r of change.sent) held.set(r.name, r.version);
  for (const name of change.removed) held.delete(name);
  derived.set(key, held);
  if (derived.size > DERIVATIONS_KEPT) derived.delete(derived.keys().next().value as string);
  return held;
}

/** Held map → its versionOf: computed once per map, which is shared and never altered. */
const versions = new WeakMap<ReadonlyMap<string, string>, string>();

/**
 * The version of what a client holds (versionOf its names and versions): a SotW response's
 * version_info, a Delta response's system_version_info. A fleet's nodes that hold the same map
 * share one computation.
 */
export function heldVersion(held: ReadonlyMap<string, string>): string {
  let version = versions.get(held);
  if (version === undefined) {
    version = versionOf(held);
    versions.set(held, version);
  }
  return version;
}
