/**
 * Splitting a response larger than the client's message limit (response-size.ts in
 * @switchyard/snapshot) into parts: the first part of what a subscription would send, packed
 * greedily in the order given, the rest left for the responses after it. Pure.
 *
 * Where the protocol allows it (xDS protocol page, "Grouping Resources into Responses"): a Delta
 * response may carry any subset of the resources that changed, and so may a SotW response of any
 * type but Listener and Cluster, whose resources the client keeps when a response does not name
 * them. Each part is a response of its own, with its own nonce and version, answered by the
 * client on its own; the subscription sends the next part once it is (one response in flight per
 * type), so a part's ACK or NACK is about that part's resources only.
 *
 * Cheap for a response under the limit: a snapshot's map of a type (or a plan step's) has its
 * total size computed once for every stream, and a response of it is split only when that
 * total exceeds the budget. A split's part is found once per shared list (subscription.ts
 * sharedList) and is itself a shared list, so the fleet's streams encode it once.
 */
import {
  type ResourceForm,
  removedNameBytes,
  resourceBytes,
  totalBytes,
  type XdsResource,
} from "@switchyard/snapshot";
import { isSharedList, sharedList } from "./subscription.js";

/** What a response may carry: bytes of resources (and removed names), and their form. */
export interface ResponseBudget {
  /** responseBudget(limit): the limit less room for the response's own fields. */
  readonly bytes: number;
  readonly form: ResourceForm;
}

/** The first part of shared lists, by list, for the budget it was cut at. */
const firstParts = new WeakMap<
  readonly XdsResource[],
  { readonly bytes: number; readonly form: ResourceForm; readonly part: readonly XdsResource[] }
>();

/**
 * The first part of `resources` (resources of `basis`, in order) that fits in `budget` besides
 * `reserved` bytes of other content: `resources` itself when all of it fits. A part holds at
 * least one resource: one larger than the budget goes alone (validation refuses to publish it
 * unless its node group accepts larger messages; sending it lets such a client have it).
 */
export function firstPart(
  resources: readonly XdsResource[],
  basis: ReadonlyMap<string, XdsResource>,
  budget: ResponseBudget,
  reserved = 0,
): readonly XdsResource[] {
  if (totalBytes(basis, budget.form) + reserved <= budget.bytes) return resources;
  const shared = reserved === 0 && isSharedList(resources);
  if (shared) {
    const known = firstParts.get(resources);
    if (known?.bytes === budget.bytes && known.form === budget.form) return known.part;
  }
  let bytes = reserved;
  let count = 0;
  for (const resource of resources) {
    const size = resourceBytes(resource, budget.form);
    if (count > 0 && bytes + size > budget.bytes) break;
    bytes += size;
    count += 1;
  }
  const part =
    count === resources.length ? resources : sharedList(resources.slice(0, count), basis);
  if (shared) firstParts.set(resources, { bytes: budget.bytes, form: budget.form, part });
  return part;
}

/** The bytes of Delta `removed_resources` entries. */
function removedBytes(names: readonly string[]): number {
  let bytes = 0;
  for (const name of names) bytes += removedNameBytes(name);
  return bytes;
}

/**
 * The first part of a Delta response's `resources` and `removed` names: undefined when all of it
 * fits. Removed names go first (the client drops them as soon as it reads them, whatever part
 * they come in); when they alone exceed the budget, they are cut too.
 */
export function firstDeltaPart(
  resources: readonly XdsResource[],
  removed: readonly string[],
  basis: ReadonlyMap<string, XdsResource>,
  budget: ResponseBudget,
): { readonly resources: readonly XdsResource[]; readonly removed: readonly string[] } | undefined {
  const reserved = removed.length === 0 ? 0 : removedBytes(removed);
  if (totalBytes(basis, budget.form) + reserved <= budget.bytes) return undefined;
  if (reserved > budget.bytes) {
    let bytes = 0;
    let count = 0;
    for (const name of removed) {
      const size = removedNameBytes(name);
      if (count > 0 && bytes + size > budget.bytes) break;
      bytes += size;
      count += 1;
    }
    return { resources: [], removed: removed.slice(0, count) };
  }
  const part = firstPart(resources, basis, budget, reserved);
  return part === resources ? undefined : { resources: part, removed };
}
