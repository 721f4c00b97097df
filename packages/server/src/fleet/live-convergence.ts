import { type CompiledConfig, selectNodeGroup, TYPE_ORDER } from "@switchyard/snapshot";
import type { AckedState, NodeIdentity, NodeStatusTracker, Publication } from "@switchyard/status";
import { heldMatches, stringMetadata } from "./convergence-reader.js";

const NOTHING: ReadonlyMap<string, string> = new Map();

/** What `holds` answered for an ACK, and for which node identity, type and subscription. */
interface Answered {
  readonly identity: NodeIdentity;
  readonly typeUrl: string;
  readonly wildcard: boolean;
  readonly holds: boolean;
}

/**
 * The publication of `config` as `version` to the nodes connected to this replica now, for the
 * in-process ConvergenceTracker that feeds the convergence-time histogram (metrics.ts). A node
 * holds a type when its latest ACK holds what its node group's snapshot gives it, by the same
 * rule as the database-backed convergence (convergence-reader.ts heldMatches).
 *
 * What each group gives per type (name → version) is taken once, here: `holds` runs on every
 * status change of a targeted node (the ACK path), and the tracker keeps the publications of the
 * last versions (ConvergenceTracker's retainVersions), which must not keep each version's encoded
 * resources alive with them (live-convergence.spec.ts).
 */
export function publicationOf(
  config: CompiledConfig,
  version: number,
  tracker: NodeStatusTracker,
  publishedAt: number,
): Publication {
  const targets = tracker.connectedNodeIds();
  const groups = config.groups.map((group) => ({
    isDefault: group.isDefault,
    selector: group.selector,
    wants: new Map(
      TYPE_ORDER.map((typeUrl) => [
        typeUrl as string,
        new Map(
          [...group.snapshot.resources(typeUrl)].map(([name, resource]) => [
            name,
            resource.version,
          ]),
        ),
      ]),
    ),
  }));
  const groupOf = new WeakMap<object, ReadonlyMap<string, ReadonlyMap<string, string>>>();
  // heldMatches once per wanted set and acked version: an ACK's version_info is the server's hash
  // of everything the node holds of the type after that response (versionOf, @switchyard/
  // snapshot), so the nodes holding the same set share one answer, and a publish evaluating ten
  // thousand targets compares a few sets. Not when the held set no longer follows from it (a
  // partly rejected response, names unsubscribed since) or versions are unknown.
  const byVersion = new WeakMap<ReadonlyMap<string, string>, Map<string, boolean>>();
  // And the answer for an ACK seen before, while the node's identity and subscription are what
  // they were: an ACK of one type re-evaluates the node's other types, whose ACKs are unchanged.
  const byAck = new WeakMap<AckedState, Answered>();
  return {
    version: String(version),
    publishedAt,
    targets,
    holds: (nodeId, typeUrl, acked) => {
      if (acked === undefined) return false;
      const subscription = tracker.subscription(nodeId, typeUrl);
      if (subscription === undefined) return false;
      const { identity, wildcard } = subscription;
      const seen = byAck.get(acked);
      if (
        seen !== undefined &&
        seen.identity === identity &&
        seen.typeUrl === typeUrl &&
        seen.wildcard === wildcard
      )
        return seen.holds;
      const holds = answer(identity, typeUrl, wildcard, acked);
      byAck.set(acked, { identity, typeUrl, wildcard, holds });
      return holds;
    },
  };

  function answer(
    identity: NodeIdentity,
    typeUrl: string,
    wildcard: boolean,
    acked: AckedState,
  ): boolean {
    // A node's group follows from its identity, which the tracker replaces (a new object)
    // only when the node reconnects: chosen once per identity, not on every ACK.
    let wants = groupOf.get(identity);
    if (wants === undefined) {
      wants = selectNodeGroup(groups, {
        id: identity.id,
        cluster: identity.cluster,
        metadata: stringMetadata(identity.metadata),
      }).wants;
      groupOf.set(identity, wants);
    }
    const want = wants.get(typeUrl) ?? NOTHING;
    if (!acked.resourceVersionsKnown || acked.partial === true)
      return heldMatches(wildcard, acked.held, want);
    let answers = byVersion.get(want);
    if (answers === undefined) {
      answers = new Map();
      byVersion.set(want, answers);
    }
    const key = `${wildcard ? "*" : "="}${acked.versionInfo}`;
    let holds = answers.get(key);
    if (holds === undefined) {
      holds = heldMatches(wildcard, acked.held, want);
      answers.set(key, holds);
    }
    return holds;
  }
}
