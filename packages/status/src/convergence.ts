import { versionOf } from "@switchyard/snapshot";
import type {
  AckedState,
  NackRecord,
  StatusChange,
  TypeLedger,
  TypeStatus,
} from "./node-status.js";
import { type DurationSummary, summarizeDurations } from "./percentiles.js";

/** Where convergence reads node state from; NodeStatusTracker is one. */
export interface NodeStatusSource {
  /**
   * The node's type ledgers, in any order, as they are (no status view built: convergence reads
   * them on every ACK of every targeted node); undefined when the node is unknown.
   */
  ledgers(nodeId: string): Iterable<TypeLedger> | undefined;
  /** A ledger's status now (NodeStatusTracker.statusOf); NACKED carries the ledger's `nack`. */
  statusOf(ledger: TypeLedger): TypeStatus;
}

/**
 * Whether `nodeId`, with its latest ACK of `typeUrl` (undefined: never ACKed), holds what the
 * published version gives it for that type. A type the version has no opinion on returns true.
 */
export type HoldsPredicate = (
  nodeId: string,
  typeUrl: string,
  acked: AckedState | undefined,
) => boolean;

export interface Publication {
  /** The published config version (the publish id, not an xDS version_info). */
  readonly version: string;
  readonly publishedAt: number;
  /** The nodes the version is meant for. */
  readonly targets: Iterable<string>;
  readonly holds: HoldsPredicate;
}

/**
 * One target node's progress towards a version:
 * - converged: every type the node requested is ACKed holding this version's resources (the
 *   `holds` predicate); `at` is the latest of those ACKs, `ms` the time from publish to it
 *   (0 when the node already held them before the publish). Final once reached.
 * - nacked: not converged, and a type's latest answer is a NACK received after the publish; the
 *   first such type (by type URL) with Envoy's text.
 * - pending: neither (not connected yet, not sent yet, or sent and not answered).
 */
export type NodeConvergence =
  | { readonly t: "pending" }
  | { readonly t: "converged"; readonly at: number; readonly ms: number }
  | { readonly t: "nacked"; readonly typeUrl: string; readonly nack: NackRecord };

export interface ConvergenceReport {
  readonly version: string;
  readonly publishedAt: number;
  readonly targeted: number;
  /** Sorted by node id, as are `nacked` and `pending`. */
  readonly converged: readonly {
    readonly nodeId: string;
    readonly at: number;
    readonly ms: number;
  }[];
  readonly nacked: readonly {
    readonly nodeId: string;
    readonly typeUrl: string;
    readonly nack: NackRecord;
  }[];
  readonly pending: readonly string[];
  /** Publish → ACK times of the converged nodes; nearest-rank percentiles (percentiles.ts). */
  readonly durations: DurationSummary;
}

export interface ConvergenceTrackerOptions {
  readonly nodes: NodeStatusSource;
  /** How many published versions are kept; the oldest is forgotten first. */
  readonly retainVersions?: number;
  /**
   * Called once when a target node converges on a version after its publish, with the time it
   * took (for a histogram). Not called for a node that already held the version when it was
   * published: it had nothing to converge on.
   */
  readonly onConverged?: (version: string, nodeId: string, ms: number) => void;
}

export const DEFAULT_RETAIN_VERSIONS = 16;

/**
 * What one replica saw of a version's convergence, small enough to write at every status flush
 * and to add up across replicas (the fleet's convergence timeline): its targets, each converged
 * target's publish → converged time, and the NACKs.
 */
export interface VersionTally {
  readonly version: string;
  readonly publishedAt: number;
  readonly targeted: number;
  /** Ascending; 0 for a target that held the version when it was published. */
  readonly convergedMs: readonly number[];
  /** Targets whose latest answer is a NACK of this version (not converged since). */
  readonly nacked: number;
  /** Targets that NACKed this version at any time, recovered or not. */
  readonly nackedEver: number;
  /** The first NACK of this version by a target, ms since the epoch. */
  readonly firstNackAt: number | undefined;
}

const PENDING: NodeConvergence = { t: "pending" };

interface PublicationState {
  readonly publication: Publication;
  readonly targets: Map<string, NodeConvergence>;
  /** Targets not converged yet: a version every target reached is not looked at again. */
  unconverged: number;
  /** Targets that NACKed this version at some point (VersionTally.nackedEver). */
  readonly nackedEver: Set<string>;
  firstNackAt: number | undefined;
}

/**
 * Convergence of published versions: for each, the nodes targeted and which have converged,
 * NACKed or are pending, and publish→ACK percentiles. Pure; re-evaluates a node when told it
 * changed: wire it with `tracker.subscribe((change) => convergence.onChange(change))`.
 */
export class ConvergenceTracker {
  readonly #nodes: NodeStatusSource;
  readonly #retain: number;
  readonly #publications = new Map<string, PublicationState>();
  readonly #onConverged: ConvergenceTrackerOptions["onConverged"];
  /** Versions whose tally changed since `takeChanged` last ran. */
  readonly #changed = new Set<string>();

  constructor(options: ConvergenceTrackerOptions) {
    this.#nodes = options.nodes;
    this.#retain = options.retainVersions ?? DEFAULT_RETAIN_VERSIONS;
    this.#onConverged = options.onConverged;
  }

  /** Starts tracking `publication` (replacing one of the same version) and evaluates its targets. */
  publish(publication: Publication): void {
    this.#publications.delete(publication.version);
    const state: PublicationState = {
      publication,
      targets: new Map(),
      unconverged: 0,
      nackedEver: new Set(),
      firstNackAt: undefined,
    };
    for (const nodeId of publication.targets) state.targets.set(nodeId, PENDING);
    state.unconverged = state.targets.size;
    this.#publications.set(publication.version, state);
    for (const [oldest] of this.#publications) {
      if (this.#publications.size <= this.#retain) break;
      this.#publications.delete(oldest);
      this.#changed.delete(oldest);
    }
    this.#changed.add(publication.version);
    for (const nodeId of state.targets.keys()) this.#evaluate(state, nodeId);
  }

  /**
   * The tallies of the kept versions that changed (a new publication, a target converging or
   * NACKing) since the last call, oldest version first; each version once, as it is now.
   */
  takeChanged(): VersionTally[] {
    const tallies: VersionTally[] = [];
    for (const version of this.#changed) {
      const tally = this.tally(version);
      if (tally !== undefined) tallies.push(tally);
    }
    this.#changed.clear();
    return tallies;
  }

  /** The version's tally now; undefined when it is not kept. */
  tally(version: string): VersionTally | undefined {
    const state = this.#publications.get(version);
    if (state === undefined) return undefined;
    const convergedMs: number[] = [];
    let nacked = 0;
    for (const c of state.targets.values()) {
      if (c.t === "converged") convergedMs.push(c.ms);
      else if (c.t === "nacked") nacked += 1;
    }
    return {
      version,
      publishedAt: state.publication.publishedAt,
      targeted: state.targets.size,
      convergedMs: convergedMs.sort((a, b) => a - b),
      nacked,
      nackedEver: state.nackedEver.size,
      firstNackAt: state.firstNackAt,
    };
  }

  /**
   * Re-evaluates the node of `change`, unless all that changed is a response sent to it: a node
   * converges or NACKs by what it answers (what it holds and its NACKs), never by what it is sent.
   */
  onChange(change: StatusChange): void {
    if (change.sent === true) return;
    this.observe(change.nodeId);
  }

  /** Re-evaluates `nodeId` against every kept version that targets it. */
  observe(nodeId: string): void {
    for (const state of this.#publications.values()) {
      if (state.unconverged > 0 && state.targets.has(nodeId)) this.#evaluate(state, nodeId);
    }
  }

  /** The kept versions, oldest first. */
  versions(): string[] {
    return [...this.#publications.keys()];
  }

  report(version: string): ConvergenceReport | undefined {
    const state = this.#publications.get(version);
    if (state === undefined) return undefined;
    const converged: { nodeId: string; at: number; ms: number }[] = [];
    const nacked: { nodeId: string; typeUrl: string; nack: NackRecord }[] = [];
    const pending: string[] = [];
    for (const [nodeId, c] of [...state.targets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (c.t === "converged") converged.push({ nodeId, at: c.at, ms: c.ms });
      else if (c.t === "nacked") nacked.push({ nodeId, typeUrl: c.typeUrl, nack: c.nack });
      else pending.push(nodeId);
    }
    const { publication } = state;
    return {
      version,
      publishedAt: publication.publishedAt,
      targeted: state.targets.size,
      converged,
      nacked,
      pending,
      durations: summarizeDurations(converged.map((c) => c.ms)),
    };
  }

  #evaluate(state: PublicationState, nodeId: string): void {
    const before = state.targets.get(nodeId);
    if (before?.t === "converged") return;
    const next = convergenceOf(state.publication, nodeId, this.#nodes);
    state.targets.set(nodeId, next);
    if (next.t !== before?.t) this.#changed.add(state.publication.version);
    if (next.t === "nacked") {
      state.nackedEver.add(nodeId);
      if (state.firstNackAt === undefined || next.nack.at < state.firstNackAt)
        state.firstNackAt = next.nack.at;
    }
    if (next.t !== "converged") return;
    state.unconverged -= 1;
    if (next.ms > 0) this.#onConverged?.(state.publication.version, nodeId, next.ms);
  }
}

function convergenceOf(
  publication: Publication,
  nodeId: string,
  nodes: NodeStatusSource,
): NodeConvergence {
  let lastAck = Number.NEGATIVE_INFINITY;
  let allHeld = true;
  let requested = 0;
  for (const ledger of nodes.ledgers(nodeId) ?? []) {
    requested += 1;
    if (!publication.holds(nodeId, ledger.typeUrl, ledger.acked)) allHeld = false;
    else if (ledger.acked !== undefined) lastAck = Math.max(lastAck, ledger.acked.at);
  }
  // A node that requested no type yet holds nothing: pending, not vacuously converged.
  if (requested === 0) return PENDING;
  if (allHeld) {
    const at = Math.max(lastAck, publication.publishedAt);
    return { t: "converged", at, ms: at - publication.publishedAt };
  }
  // Reading NACKED takes a NACK since the publish: a node with none is pending, found without
  // sorting its types or building their statuses (a publish evaluates every target this way).
  let nackedSince = false;
  for (const ledger of nodes.ledgers(nodeId) ?? []) {
    if (ledger.nack !== undefined && ledger.nack.at >= publication.publishedAt) nackedSince = true;
  }
  if (!nackedSince) return PENDING;
  const byTypeUrl = [...(nodes.ledgers(nodeId) ?? [])].sort((a, b) =>
    a.typeUrl < b.typeUrl ? -1 : a.typeUrl > b.typeUrl ? 1 : 0,
  );
  for (const ledger of byTypeUrl) {
    const status = nodes.statusOf(ledger);
    if (status.t === "NACKED" && status.nack.at >= publication.publishedAt) {
      return { t: "nacked", typeUrl: ledger.typeUrl, nack: status.nack };
    }
  }
  return PENDING;
}

/**
 * A HoldsPredicate from the resources each node should hold: `expected(nodeId, typeUrl)` gives
 * name → version, or undefined when the version has no opinion on the type. A node holds the
 * type when its latest ACK holds exactly those resources at those versions. When the ACK's
 * resource versions are unknown (the transports do not report them yet), the ACKed version_info
 * is compared instead: the server sets it to `versionOf` of what the node holds after the
 * response (packages/xds/src/sotw-subscription.ts, delta-subscription.ts).
 */
export function holdsExactly(
  expected: (nodeId: string, typeUrl: string) => ReadonlyMap<string, string> | undefined,
): HoldsPredicate {
  return (nodeId, typeUrl, acked) => {
    const want = expected(nodeId, typeUrl);
    if (want === undefined) return true;
    if (acked === undefined) return false;
    if (!acked.resourceVersionsKnown) return acked.versionInfo === versionOf(want);
    if (acked.held.size !== want.size) return false;
    for (const [name, version] of want) {
      if (acked.held.get(name) !== version) return false;
    }
    return true;
  };
}
