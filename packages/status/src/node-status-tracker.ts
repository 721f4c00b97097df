/**
 * NodeStatusTracker (per-node xDS status, fed by the xDS server's callbacks) and the rules it
 * applies to each event: what a node holds after an ACK, a NACK, an unsubscribe or a declared
 * holding, and when a subscription is to the whole set. Long because only the callbacks call those
 * rules, on the tracker's own ledgers, so they stay beside them.
 */
import { type HeldBack, heldAfter, isFullStateType, NOTHING_HELD } from "@switchyard/snapshot";
import type { DeltaVerdict, RequestVerdict, XdsCallbacks, XdsVariant } from "@switchyard/xds";
import type {
  AckedState,
  HeldBackResource,
  HeldResource,
  NodeConnection,
  NodeIdentity,
  NodeLike,
  NodeStatus,
  SentResponse,
  StatusChange,
  StatusEvent,
  StreamInfo,
  TypeLedger,
  TypeStatus,
  TypeView,
} from "./node-status.js";
import { RingBuffer } from "./ring-buffer.js";

/**
 * Longer than Envoy's default initial_fetch_timeout (15 s), so a node still warming a cluster is
 * not reported STALE.
 */
export const DEFAULT_STALE_AFTER_MS = 30_000;
export const DEFAULT_EVENT_CAPACITY = 1_000;

export interface NodeStatusTrackerOptions {
  /** The control-plane replica this tracker runs in; recorded on every stream. */
  readonly replicaId: string;
  /** How long a response may go unanswered before its type is STALE. */
  readonly staleAfterMs?: number;
  /** How many events the ring keeps; older ones are dropped. */
  readonly eventCapacity?: number;
  /** The clock, in ms since the epoch; injected by tests. */
  readonly now?: () => number;
  /**
   * Receives an error thrown by a change listener. Listeners run on the xDS stream's path, which
   * must not throw (callbacks.ts), so the error is handed here instead. Default: console.error.
   */
  readonly onListenerError?: (error: unknown, change: StatusChange) => void;
}

export interface StreamOpenEvent {
  readonly streamId: number;
  readonly node: NodeLike;
  readonly variant: XdsVariant;
  readonly remoteAddress: string;
  /** The credential the stream authenticated with on the xDS port; "" or absent when none. */
  readonly identity?: string;
}

export interface RequestEvent {
  readonly streamId: number;
  readonly typeUrl: string;
  readonly verdict: RequestVerdict | DeltaVerdict;
  readonly resourceNames: readonly string[];
  /** Delta: the names the request unsubscribes from. */
  readonly unsubscribed?: readonly string[];
  /** Delta, on a stream's first request: what the client says it holds already. */
  readonly initialResourceVersions?: Readonly<Record<string, string>>;
}

export interface ResponseEvent {
  readonly streamId: number;
  readonly typeUrl: string;
  readonly versionInfo: string;
  readonly nonce: string;
  readonly resourceNames: readonly string[];
  /**
   * The version of each resource the response carried (the xDS transports send them; without
   * them the held resources are known by name only: `AckedState.resourceVersionsKnown` false).
   */
  readonly resources?: readonly { readonly name: string; readonly version: string }[];
  /** Delta `removed_resources`. Not sent by the transports yet: without it removals are missed. */
  readonly removed?: readonly string[];
}

interface StreamState {
  readonly info: StreamInfo;
  /** The latest response sent on this stream, per type: the one an ACK or NACK answers. */
  readonly lastSent: Map<string, SentResponse>;
  /** The types requested on this stream: those its held-back reports are about. */
  readonly types: Set<string>;
}

interface NodeState {
  identity: NodeIdentity;
  connection: NodeConnection;
  readonly types: Map<string, TypeLedger>;
}

const NOTHING_HELD_BACK: readonly HeldBackResource[] = [];

const NO_LEDGER = (typeUrl: string): TypeLedger => ({
  typeUrl,
  sent: undefined,
  acked: undefined,
  nack: undefined,
  lastAnswer: undefined,
  heldBack: NOTHING_HELD_BACK,
  wildcard: true,
  requested: NOTHING_REQUESTED,
});

/** Whether the type reads NACKED (TypeStatus rule 1). */
function isNacked(ledger: TypeLedger): boolean {
  return ledger.nack !== undefined && (ledger.lastAnswer === "nack" || holdsBackRejected(ledger));
}

/** Whether some resource of the type is held back because the node rejected it. */
function holdsBackRejected(ledger: TypeLedger): boolean {
  return ledger.heldBack.some((resource) => resource.reason.t === "rejected");
}

/**
 * Per-node xDS status, fed by the xDS server's callbacks (pass it as `XdsCallbacks`): who each
 * node is and how it is connected, per type the nonce ledger (latest sent, latest ACK with what
 * the node holds, latest NACK with Envoy's text) and a status (TypeStatus), and a bounded ring of
 * connect / disconnect / nack / recovered events. Pure: no I/O, no timers; time comes from `now`.
 *
 * `subscribe` feeds every change (node id, and type when one type changed) synchronously, for
 * streaming APIs and for batching writes to storage.
 */
export class NodeStatusTracker implements XdsCallbacks {
  readonly replicaId: string;
  readonly staleAfterMs: number;
  readonly #now: () => number;
  readonly #onListenerError: (error: unknown, change: StatusChange) => void;
  readonly #streams = new Map<number, StreamState>();
  readonly #nodes = new Map<string, NodeState>();
  readonly #events: RingBuffer<StatusEvent>;
  readonly #listeners = new Set<(change: StatusChange) => void>();
  /**
   * Subscriptions by name, shared: nodes of a fleet mostly ask for the same names, so a node's
   * changed subscription is this set when another node holds one with the same names in the same
   * order (the most recent REQUESTED_SETS kept). One set per distinct subscription, not one per
   * node. Keyed by the names in the order the set holds them, as the client listed them: the
   * proxies of a fleet list them alike, and sorting every list (a connecting node's EDS names)
   * cost more than what another order's set of its own costs.
   */
  readonly #requestedSets = new Map<string, ReadonlySet<string>>();
  #seq = 0;

  constructor(options: NodeStatusTrackerOptions) {
    this.replicaId = options.replicaId;
    this.staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    this.#now = options.now ?? Date.now;
    this.#onListenerError =
      options.onListenerError ??
      ((error, change) => console.error("node status listener failed on", change, error));
    this.#events = new RingBuffer(options.eventCapacity ?? DEFAULT_EVENT_CAPACITY);
  }

  // --- XdsCallbacks ---------------------------------------------------------------------------

  onStreamOpen(event: StreamOpenEvent): void {
    const at = this.#now();
    const nodeId = event.node.id;
    const info: StreamInfo = {
      streamId: event.streamId,
      nodeId,
      variant: event.variant,
      remoteAddress: event.remoteAddress,
      authenticatedAs: event.identity ?? "",
      replicaId: this.replicaId,
      connectedAt: at,
    };
    this.#streams.set(event.streamId, { info, lastSent: new Map(), types: new Set() });
    const identity = identityOf(event.node);
    const node = this.#nodes.get(nodeId);
    if (node === undefined) {
      this.#nodes.set(nodeId, {
        identity,
        connection: { t: "connected", since: at, streams: [info] },
        types: new Map(),
      });
    } else {
      node.identity = identity;
      node.connection =
        node.connection.t === "connected"
          ? { ...node.connection, streams: [...node.connection.streams, info] }
          : { t: "connected", since: at, streams: [info] };
    }
    const { streamId, variant, remoteAddress, authenticatedAs, replicaId } = info;
    this.#record({
      t: "connect",
      at,
      nodeId,
      streamId,
      variant,
      remoteAddress,
      authenticatedAs,
      replicaId,
    });
    this.#changed(nodeId, undefined);
  }

  onRequest(event: RequestEvent): void {
    const stream = this.#streams.get(event.streamId);
    const node = stream && this.#nodes.get(stream.info.nodeId);
    if (stream === undefined || node === undefined) return;
    const { verdict, typeUrl } = event;
    const nodeId = stream.info.nodeId;
    stream.types.add(typeUrl);
    const at = this.#now();
    const known = node.types.get(typeUrl) ?? NO_LEDGER(typeUrl);
    const wildcard =
      verdict.t === "stale"
        ? known.wildcard
        : subscribesWhole(
            known.wildcard,
            isSotw(stream.info.variant),
            verdict.t === "initial",
            event.resourceNames,
          );
    const asked =
      verdict.t === "stale"
        ? known.requested
        : requestedNames(
            known.requested,
            isSotw(stream.info.variant),
            verdict.t === "initial",
            event.resourceNames,
            event.unsubscribed,
          );
    const requested = asked === known.requested ? asked : this.#shared(asked);
    const ledger =
      wildcard === known.wildcard && requested === known.requested
        ? known
        : { ...known, wildcard, requested };
    const sotw = isSotw(stream.info.variant);
    // The response this request answers: one response per type is in flight on a stream
    // (subscription.ts, flow "awaiting"), so it is the latest sent on this stream.
    const answered = stream.lastSent.get(typeUrl);
    switch (verdict.t) {
      case "initial":
        // A new stream: what the node holds is what this stream receives (Delta: plus what it
        // declares it holds already), and a NACK on a stream that is gone is history, not the
        // type's state (its record is kept as the last NACK).
        node.types.set(typeUrl, {
          ...ledger,
          lastAnswer: undefined,
          acked: sotw ? ledger.acked : declaredState(event.initialResourceVersions, at),
        });
        break;
      case "ack": {
        const acked = ackedState(ledger.acked, answered, verdict.version, at);
        node.types.set(typeUrl, {
          ...ledger,
          acked,
          lastAnswer: "ack",
        });
        if (isNacked(ledger) && !holdsBackRejected(ledger) && ledger.nack !== undefined) {
          this.#record({
            t: "recovered",
            at,
            nodeId,
            streamId: event.streamId,
            typeUrl,
            versionInfo: verdict.version,
            nackedAt: ledger.nack.at,
          });
        }
        break;
      }
      case "nack": {
        const rejected = verdict.rejected === undefined ? [] : [...verdict.rejected].sort();
        const nack = {
          errorDetail: verdict.errorDetail,
          rejectedVersion: verdict.rejectedVersion,
          rejected,
          nonce: answered?.nonce,
          at,
          streamId: event.streamId,
        };
        // The client keeps what it did not name as rejected (gRFC A46): held as if ACKed.
        const acked =
          verdict.rejected === undefined || answered === undefined
            ? ledger.acked
            : acceptedState(ledger.acked, answered, verdict.rejected, at);
        node.types.set(typeUrl, {
          ...ledger,
          acked,
          nack,
          lastAnswer: "nack",
        });
        const { errorDetail, rejectedVersion, nonce } = nack;
        const streamId = event.streamId;
        this.#record({
          t: "nack",
          at,
          nodeId,
          streamId,
          typeUrl,
          errorDetail,
          rejectedVersion,
          rejected,
          nonce,
        });
        break;
      }
      // A stale request is ignored by the server (xDS protocol, "Resource updates"); a Delta
      // "update" changes the subscription only. Neither answers a response.
      case "stale":
        return;
      case "update":
        node.types.set(typeUrl, ledger);
        break;
    }
    // What the client no longer subscribes to, it no longer holds (the xDS protocol page, "How
    // the client specifies what resources to return": a SotW request's resource_names is the
    // whole subscription; Delta unsubscribes by name).
    const current = node.types.get(typeUrl);
    if (current !== undefined) {
      const pruned = withoutUnsubscribed(current, sotw, event.resourceNames, event.unsubscribed);
      if (pruned !== current) node.types.set(typeUrl, pruned);
      else if (verdict.t === "update" && ledger === known) return;
    }
    this.#changed(nodeId, typeUrl);
  }

  onResponse(event: ResponseEvent): void {
    const stream = this.#streams.get(event.streamId);
    const node = stream && this.#nodes.get(stream.info.nodeId);
    if (stream === undefined || node === undefined) return;
    const sent: SentResponse = {
      versionInfo: event.versionInfo,
      nonce: event.nonce,
      at: this.#now(),
      streamId: event.streamId,
      resources: sentResources(event.resourceNames, event.resources),
      removed: event.removed ?? [],
      replace: isSotw(stream.info.variant) && isFullStateType(event.typeUrl),
    };
    stream.lastSent.set(event.typeUrl, sent);
    const ledger = node.types.get(event.typeUrl) ?? NO_LEDGER(event.typeUrl);
    node.types.set(event.typeUrl, { ...ledger, sent });
    this.#changed(stream.info.nodeId, event.typeUrl, true);
  }

  onHeldBack(event: { readonly streamId: number; readonly heldBack: readonly HeldBack[] }): void {
    const stream = this.#streams.get(event.streamId);
    const node = stream && this.#nodes.get(stream.info.nodeId);
    if (stream === undefined || node === undefined) return;
    this.#holdBack(stream, node, event.heldBack);
  }

  /** Sets what the stream's node is held back of, for the types the stream serves. */
  #holdBack(stream: StreamState, node: NodeState, heldBack: readonly HeldBack[]): void {
    const byType = new Map<string, HeldBackResource[]>();
    for (const { typeUrl, name, version, reason } of heldBack) {
      const list = byType.get(typeUrl) ?? [];
      list.push({ name, version, reason });
      byType.set(typeUrl, list);
    }
    for (const typeUrl of stream.types) {
      const ledger = node.types.get(typeUrl);
      const now = byType.get(typeUrl) ?? NOTHING_HELD_BACK;
      if (ledger === undefined || (ledger.heldBack.length === 0 && now.length === 0)) continue;
      const next = { ...ledger, heldBack: now };
      node.types.set(typeUrl, next);
      // The last rejected resource is no longer held back, and the latest answer is an ACK.
      if (isNacked(ledger) && !isNacked(next) && ledger.nack !== undefined) {
        this.#record({
          t: "recovered",
          at: this.#now(),
          nodeId: stream.info.nodeId,
          streamId: stream.info.streamId,
          typeUrl,
          versionInfo: next.acked?.versionInfo ?? "",
          nackedAt: ledger.nack.at,
        });
      }
      this.#changed(stream.info.nodeId, typeUrl);
    }
  }

  onStreamClosed(event: { readonly streamId: number }): void {
    const stream = this.#streams.get(event.streamId);
    if (stream === undefined) return;
    const { nodeId } = stream.info;
    const node = this.#nodes.get(nodeId);
    // What the closing stream held back is gone with it: a new stream plans afresh.
    if (node !== undefined) this.#holdBack(stream, node, []);
    this.#streams.delete(event.streamId);
    if (node === undefined || node.connection.t !== "connected") return;
    const at = this.#now();
    const streams = node.connection.streams.filter((s) => s.streamId !== event.streamId);
    node.connection =
      streams.length > 0
        ? { ...node.connection, streams }
        : { t: "disconnected", since: at, lastStream: stream.info };
    const nodeDisconnected = streams.length === 0;
    this.#record({ t: "disconnect", at, nodeId, streamId: event.streamId, nodeDisconnected });
    this.#changed(nodeId, undefined);
  }

  // --- Reading --------------------------------------------------------------------------------

  /**
   * The node's status with each type's status as of `at` (default now); undefined if unknown.
   * With `only`, just those types' (the status writer writes the types that changed).
   */
  node(
    nodeId: string,
    at: number = this.#now(),
    only?: ReadonlySet<string>,
  ): NodeStatus | undefined {
    const node = this.#nodes.get(nodeId);
    if (node === undefined) return undefined;
    const ledgers: TypeLedger[] = [];
    for (const typeUrl of only ?? node.types.keys()) {
      const ledger = node.types.get(typeUrl);
      if (ledger !== undefined) ledgers.push(ledger);
    }
    if (ledgers.length > 1)
      ledgers.sort((a, b) => (a.typeUrl < b.typeUrl ? -1 : a.typeUrl > b.typeUrl ? 1 : 0));
    const types = ledgers.map(
      (ledger): TypeView => ({ ...ledger, status: this.statusOf(ledger, at) }),
    );
    return { identity: node.identity, connection: node.connection, types };
  }

  /**
   * The node's identity and whether its subscription to `typeUrl` is a wildcard, without
   * building its whole status (`node`): the ACK path asks this for every type of every node.
   */
  subscription(
    nodeId: string,
    typeUrl: string,
  ): { readonly identity: NodeIdentity; readonly wildcard: boolean } | undefined {
    const node = this.#nodes.get(nodeId);
    if (node === undefined) return undefined;
    return { identity: node.identity, wildcard: node.types.get(typeUrl)?.wildcard ?? true };
  }

  /** The node's type ledgers as they are, in no order; undefined if unknown (convergence.ts). */
  ledgers(nodeId: string): Iterable<TypeLedger> | undefined {
    return this.#nodes.get(nodeId)?.types.values();
  }

  /** The ids of the nodes connected now, in no order: a publish's targets, without status views. */
  connectedNodeIds(): string[] {
    const ids: string[] = [];
    for (const [id, node] of this.#nodes) if (node.connection.t === "connected") ids.push(id);
    return ids;
  }

  /** Every known node, connected or not, sorted by id. */
  nodes(at: number = this.#now()): NodeStatus[] {
    return [...this.#nodes.keys()].sort().flatMap((id) => this.node(id, at) ?? []);
  }

  /** A ledger's status at `at`; the rules are on TypeStatus. */
  statusOf(ledger: TypeLedger, at: number = this.#now()): TypeStatus {
    if (isNacked(ledger) && ledger.nack !== undefined) return { t: "NACKED", nack: ledger.nack };
    const { sent, acked } = ledger;
    if (sent === undefined) return { t: "NOT_SENT" };
    if (acked !== undefined && acked.nonce === sent.nonce) {
      return { t: "SYNCED", versionInfo: acked.versionInfo, ackedAt: acked.at };
    }
    const staleAt = sent.at + this.staleAfterMs;
    return at >= staleAt ? { t: "STALE", sent, staleAt } : { t: "PENDING", sent, staleAt };
  }

  /** The kept events, oldest first; only those with `seq` above `afterSeq` when given. */
  events(afterSeq = 0): StatusEvent[] {
    // Numbered as recorded: those after `afterSeq` are the newest, read without copying the ring.
    return this.#events.newestWhile((e) => e.seq > afterSeq);
  }

  /** Calls `listener` on every change until the returned function is called. */
  subscribe(listener: (change: StatusChange) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Forgets nodes disconnected before `before`; returns their ids. Bounds memory over churn. */
  pruneDisconnected(before: number): string[] {
    const pruned: string[] = [];
    for (const [id, node] of this.#nodes) {
      if (node.connection.t === "disconnected" && node.connection.since < before) {
        this.#nodes.delete(id);
        pruned.push(id);
      }
    }
    for (const id of pruned) this.#changed(id, undefined);
    return pruned;
  }

  #record(event: DistributiveOmit<StatusEvent, "seq">): void {
    this.#seq += 1;
    this.#events.push({ ...event, seq: this.#seq } as StatusEvent);
  }

  /** The shared set with the names of `set` (see #requestedSets). */
  #shared(set: ReadonlySet<string>): ReadonlySet<string> {
    if (set.size === 0) return set;
    const key = [...set].join("\u0000");
    const known = this.#requestedSets.get(key);
    if (known !== undefined) {
      // Most recently used last: the oldest goes first when the cache is full.
      this.#requestedSets.delete(key);
      this.#requestedSets.set(key, known);
      return known;
    }
    this.#requestedSets.set(key, set);
    if (this.#requestedSets.size > REQUESTED_SETS) {
      const oldest = this.#requestedSets.keys().next().value;
      if (oldest !== undefined) this.#requestedSets.delete(oldest);
    }
    return set;
  }

  #changed(nodeId: string, typeUrl: string | undefined, sent?: true): void {
    const change: StatusChange =
      sent === undefined ? { nodeId, typeUrl } : { nodeId, typeUrl, sent };
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        this.#onListenerError(error, change);
      }
    }
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function isSotw(variant: XdsVariant): boolean {
  return variant === "sotw" || variant === "ads-sotw";
}

const NOTHING_REQUESTED: ReadonlySet<string> = new Set();
/** How many distinct subscriptions by name are shared between nodes (#requestedSets). */
const REQUESTED_SETS = 1_024;

/**
 * The names subscribed to after a request (`*` aside): a SotW request lists them all; a Delta
 * request adds `names` and removes `unsubscribed`, on a stream's first request from nothing. The
 * same set when they do not change.
 */
export function requestedNames(
  previous: ReadonlySet<string>,
  sotw: boolean,
  first: boolean,
  names: readonly string[],
  unsubscribed: readonly string[] | undefined,
): ReadonlySet<string> {
  const base = first && !sotw ? NOTHING_REQUESTED : previous;
  let next: Set<string> | undefined;
  if (sotw) {
    const listed = names.filter((name) => name !== "*");
    if (listed.length === base.size && listed.every((name) => base.has(name))) return base;
    next = new Set(listed);
  } else {
    for (const name of names) {
      if (name === "*" || base.has(name)) continue;
      next ??= new Set(base);
      next.add(name);
    }
    for (const name of unsubscribed ?? []) {
      if (!(next ?? base).has(name)) continue;
      next ??= new Set(base);
      next.delete(name);
    }
  }
  if (next === undefined) return base;
  return next.size === 0 ? NOTHING_REQUESTED : next;
}

/**
 * Whether a subscription is to the whole set after a request naming `names` (xDS protocol, "How the
 * client specifies what resources to return"): `*` among the names makes it so. A SotW request
 * carries the whole list: names without `*` make it named, and an empty list is a legacy wildcard
 * on a stream's first request and keeps what it was after (wildcard stays, names become "nothing").
 * A Delta request carries changes: its first request's empty list is a legacy wildcard, and later
 * names add to whatever it is.
 */
export function subscribesWhole(
  previous: boolean,
  sotw: boolean,
  first: boolean,
  names: readonly string[],
): boolean {
  if (names.includes("*")) return true;
  if (sotw) return names.length === 0 ? first || previous : false;
  return first ? names.length === 0 : previous;
}

/**
 * What the node holds after ACKing `response` (undefined when no response is known on the
 * stream: then only the version moves). Mirrors the subscription core's `acknowledge`
 * (packages/xds/src/subscription.ts): a full-state response replaces, others add and remove.
 */
function ackedState(
  previous: AckedState | undefined,
  response: SentResponse | undefined,
  versionInfo: string,
  at: number,
): AckedState {
  if (response === undefined) {
    return {
      versionInfo,
      nonce: undefined,
      at,
      held: previous?.held ?? new Map(),
      resourceVersionsKnown: previous?.resourceVersionsKnown ?? false,
    };
  }
  const held = heldAfter(previous?.held ?? NOTHING_HELD, {
    replace: response.replace,
    sent: response.resources,
    removed: response.removed,
  });
  return {
    versionInfo,
    nonce: response.nonce,
    at,
    held,
    resourceVersionsKnown: allVersionsKnown(held),
  };
}

/** The lists of sent resources kept for sharing: those of the latest few distinct responses. */
const SENT_KEPT = 64;
/** Names and versions of a response → its list of sent resources, least recently used first. */
const sentLists = new Map<string, readonly HeldResource[]>();

/**
 * The resources a response carried, by name with their versions: one list shared by every node
 * sent the same response (a fleet's push sends thousands the same), kept by each node's ledger
 * until its next response of the type.
 */
function sentResources(
  names: readonly string[],
  resources: ResponseEvent["resources"],
): readonly HeldResource[] {
  // The transports share a response's lists among the streams that send the same (stream-loop.ts):
  // found by identity, with no key spelled out, when the names are its resources' (no heartbeats).
  const byList = resources !== undefined && sameNames(names, resources);
  if (byList) {
    const known = sentByList.get(resources);
    if (known !== undefined) return known;
  }
  const list = sentByContent(names, resources);
  if (byList) sentByList.set(resources, list);
  return list;
}

/** A transport's list of a response's resources → the shared list of what it carried. */
const sentByList = new WeakMap<object, readonly HeldResource[]>();

function sentByContent(
  names: readonly string[],
  resources: ResponseEvent["resources"],
): readonly HeldResource[] {
  const versions = new Map(resources?.map((r) => [r.name, r.version]));
  let key = "";
  for (const name of names) key += `${name}\u0001${versions.get(name) ?? "\u0002"}\u0000`;
  const known = sentLists.get(key);
  if (known !== undefined) {
    sentLists.delete(key);
    sentLists.set(key, known);
    return known;
  }
  const list = names.map((name) => ({ name, version: versions.get(name) }));
  sentLists.set(key, list);
  if (sentLists.size > SENT_KEPT) sentLists.delete(sentLists.keys().next().value as string);
  return list;
}

function sameNames(names: readonly string[], resources: readonly HeldResource[]): boolean {
  if (names.length !== resources.length) return false;
  for (let i = 0; i < names.length; i++) if (names[i] !== resources[i]?.name) return false;
  return true;
}

/** Whether every version in a held map is known, remembered per (shared, unaltered) map. */
const versionsKnown = new WeakMap<ReadonlyMap<string, string | undefined>, boolean>();
function allVersionsKnown(held: ReadonlyMap<string, string | undefined>): boolean {
  let known = versionsKnown.get(held);
  if (known === undefined) {
    known = [...held.values()].every((v) => v !== undefined);
    versionsKnown.set(held, known);
  }
  return known;
}

/** What a Delta client declares it holds as its stream opens; undefined for nothing. */
function declaredState(
  declared: Readonly<Record<string, string>> | undefined,
  at: number,
): AckedState | undefined {
  const entries = Object.entries(declared ?? {});
  if (entries.length === 0) return undefined;
  return {
    versionInfo: "",
    nonce: undefined,
    at,
    held: new Map(entries),
    resourceVersionsKnown: true,
    partial: true,
  };
}

/**
 * The ledger without what the client stopped subscribing to: for a SotW subscription by name,
 * every held name the request does not list (an xdstp:// glob collection in the list keeps them
 * all: its members are not listed by name); for Delta, the names it unsubscribes. The same
 * ledger when nothing goes.
 */
function withoutUnsubscribed(
  ledger: TypeLedger,
  sotw: boolean,
  names: readonly string[],
  unsubscribed: readonly string[] | undefined,
): TypeLedger {
  const acked = ledger.acked;
  if (acked === undefined || acked.held.size === 0) return ledger;
  let gone: string[];
  if (sotw) {
    if (ledger.wildcard || names.some((name) => name.endsWith("/*"))) return ledger;
    // The ledger's `requested` is this request's list already (requestedNames), shared.
    gone = [];
    for (const name of acked.held.keys()) if (!ledger.requested.has(name)) gone.push(name);
  } else {
    gone = (unsubscribed ?? []).filter((name) => acked.held.has(name));
  }
  if (gone.length === 0) return ledger;
  const held = new Map(acked.held);
  for (const name of gone) held.delete(name);
  return { ...ledger, acked: { ...acked, held, partial: true } };
}

/**
 * What the node holds after NACKing `response` while naming `rejected`: the rest of the response,
 * and its earlier version of each rejected resource (gRFC A46). The ACKed version and nonce stay
 * those of the latest ACK.
 */
function acceptedState(
  previous: AckedState | undefined,
  response: SentResponse,
  rejected: ReadonlySet<string>,
  at: number,
): AckedState {
  const before = previous?.held ?? new Map<string, string | undefined>();
  const held = new Map(response.replace ? [] : before);
  for (const r of response.resources) {
    if (!rejected.has(r.name)) held.set(r.name, r.version);
    else if (before.has(r.name)) held.set(r.name, before.get(r.name));
  }
  for (const name of response.removed) held.delete(name);
  return {
    versionInfo: previous?.versionInfo ?? "",
    nonce: previous?.nonce,
    at: previous?.at ?? at,
    held,
    resourceVersionsKnown: [...held.values()].every((v) => v !== undefined),
    partial: true,
  };
}

function identityOf(node: NodeLike): NodeIdentity {
  return {
    id: node.id,
    cluster: node.cluster,
    locality: node.locality,
    metadata: node.metadata,
    userAgent: { name: node.userAgentName, version: userAgentVersion(node) },
    clientFeatures: node.clientFeatures,
  };
}

function userAgentVersion(node: NodeLike): string | undefined {
  const v = node.userAgentVersionType;
  switch (v.case) {
    case "userAgentVersion":
      return v.value;
    case "userAgentBuildVersion": {
      const s = v.value.version;
      return s && `${s.majorNumber}.${s.minorNumber}.${s.patch}`;
    }
    default:
      return undefined;
  }
}
