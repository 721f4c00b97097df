/**
 * What a client holds of a type (name → version), after it ACKs a response: one map shared by
 * every client that got there the same way. A fleet in sync ACKs the same responses from the same
 * holdings, so the xDS subscriptions and the status ledger each keep one map per (earlier map,
 * response) rather than one per stream: thousands of copies of a hundred clusters' names and
 * versions otherwise. Held maps are never altered, only replaced.
 */
import { versionOf, type XdsResource } from "./resource-snapshot.js";

/** What a response changes in what the client holds (a version may be unknown: undefined). */
export interface HoldingChange<V extends string | undefined> {
  /** The response is the whole state of the type (SotW LDS/CDS): it replaces what is held. */
  readonly replace: boolean;
  /** Never altered once passed: held maps are found by the list's identity too. */
  readonly sent: readonly { readonly name: string; readonly version: V }[];
  readonly removed: readonly string[];
}

/** Nothing held: where every holding starts, shared. */
export const NOTHING_HELD: ReadonlyMap<string, never> = new Map<string, never>();

/**
 * The derivations kept per earlier holding: enough for the responses of a few publishes, and for
 * the first responses of every type and subscription a fleet's streams start from nothing with.
 */
const DERIVATIONS_KEPT = 64;
/** Earlier held map → what a response changed → the held map after it. */
const derivations = new WeakMap<
  ReadonlyMap<string, string | undefined>,
  Map<string, ReadonlyMap<string, string | undefined>>
>();

/**
 * Earlier held map → list of sent resources → the held map after it, for responses that remove
 * nothing: streams planned alike send the same list (plans are shared, plan.ts), and finding it by
 * identity spares spelling out its names and versions as a key for each of them.
 */
const bySentList = {
  added: new WeakMap<object, WeakMap<object, ReadonlyMap<string, string | undefined>>>(),
  replaced: new WeakMap<object, WeakMap<object, ReadonlyMap<string, string | undefined>>>(),
};

/** What is held after `change` on top of `before`, shared with whoever got there the same way. */
export function heldAfter<V extends string | undefined>(
  before: ReadonlyMap<string, V>,
  change: HoldingChange<V>,
): ReadonlyMap<string, V> {
  if (change.removed.length > 0) return derive(before, change);
  const lists = change.replace ? bySentList.replaced : bySentList.added;
  let bySent = lists.get(before);
  if (bySent === undefined) {
    bySent = new WeakMap();
    lists.set(before, bySent);
  }
  let held = bySent.get(change.sent) as ReadonlyMap<string, V> | undefined;
  if (held === undefined) {
    held = derive(before, change);
    bySent.set(change.sent, held);
  }
  return held;
}

/** heldAfter by content: the held map of whoever got there from `before` with the same change. */
function derive<V extends string | undefined>(
  before: ReadonlyMap<string, V>,
  change: HoldingChange<V>,
): ReadonlyMap<string, V> {
  let derived = derivations.get(before);
  if (derived === undefined) {
    derived = new Map();
    derivations.set(before, derived);
  }
  // Each string length-prefixed: whatever characters names and versions hold, no two changes
  // spell the same key.
  let key = change.replace ? "R" : "A";
  for (const r of change.sent)
    key += `${r.name.length}:${r.name}${r.version === undefined ? "~" : `${r.version.length}:${r.version}`}`;
  key += "|";
  for (const name of change.removed) key += `${name.length}:${name}`;
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

/** A snapshot's map of a type → its versionOf: computed once per map (maps are never altered). */
const resourceVersions = new WeakMap<ReadonlyMap<string, XdsResource>, string>();

/**
 * The version of all of `resources` (versionOf their names and versions): a whole-state SotW
 * response's version_info when the client subscribes to all of a type, the same for every node
 * that is sent the same map.
 */
export function resourcesVersion(resources: ReadonlyMap<string, XdsResource>): string {
  let version = resourceVersions.get(resources);
  if (version === undefined) {
    version = versionOf([...resources.values()].map((r) => [r.name, r.version]));
    resourceVersions.set(resources, version);
  }
  return version;
}
