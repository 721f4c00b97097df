/**
 * The data model of node status: what the tracker (node-status-tracker.ts) records and hands out.
 * Every object here is immutable once handed out; maps are shared and must not be altered.
 */
import type { HoldReason } from "@switchyard/snapshot";
import type { XdsVariant } from "@switchyard/xds";

/**
 * The parts of envoy.config.core.v3.Node the tracker reads. The generated proto `Node` satisfies
 * it, so the tracker takes the transports' events as they are and tests need no proto builder.
 */
export interface NodeLike {
  readonly id: string;
  readonly cluster: string;
  readonly metadata?: { readonly [key: string]: unknown } | undefined;
  readonly locality?: Locality | undefined;
  readonly userAgentName: string;
  readonly userAgentVersionType:
    | { readonly case: "userAgentVersion"; readonly value: string }
    | {
        readonly case: "userAgentBuildVersion";
        readonly value: { readonly version?: SemanticVersion | undefined };
      }
    | { readonly case: undefined; readonly value?: undefined };
  readonly clientFeatures: readonly string[];
}

export interface Locality {
  readonly region: string;
  readonly zone: string;
  readonly subZone: string;
}

interface SemanticVersion {
  readonly majorNumber: number;
  readonly minorNumber: number;
  readonly patch: number;
}

/** Who a node says it is, from the Node of its latest stream. */
export interface NodeIdentity {
  readonly id: string;
  readonly cluster: string;
  readonly locality: Locality | undefined;
  /** Node.metadata as JSON; shared, must not be altered. */
  readonly metadata: { readonly [key: string]: unknown } | undefined;
  /** Node.user_agent_name and its version (`user_agent_build_version` as "major.minor.patch"). */
  readonly userAgent: { readonly name: string; readonly version: string | undefined };
  readonly clientFeatures: readonly string[];
}

/** One xDS stream as it opened. */
export interface StreamInfo {
  readonly streamId: number;
  readonly nodeId: string;
  readonly variant: XdsVariant;
  readonly remoteAddress: string;
  /**
   * The credential the stream authenticated with on the xDS port ("token:NAME",
   * "certificate:SUBJECT"); "" when the port requires none.
   */
  readonly authenticatedAs: string;
  /** The control-plane replica serving the stream. */
  readonly replicaId: string;
  readonly connectedAt: number;
}

/**
 * A node is connected while at least one of its streams is open (per-type variants open one
 * stream per type). A node whose last stream closed is kept, as disconnected, so the console
 * can show it went away and when.
 */
export type NodeConnection =
  | { readonly t: "connected"; readonly since: number; readonly streams: readonly StreamInfo[] }
  | { readonly t: "disconnected"; readonly since: number; readonly lastStream: StreamInfo };

/** A resource name and its version; `version` is undefined when the transport did not say. */
export interface HeldResource {
  readonly name: string;
  readonly version: string | undefined;
}

/** The latest response sent for a node and type: the nonce ledger's "sent" side. */
export interface SentResponse {
  readonly versionInfo: string;
  readonly nonce: string;
  readonly at: number;
  readonly streamId: number;
  /** The resources the response carried (TTL heartbeats included). */
  readonly resources: readonly HeldResource[];
  /** Delta `removed_resources`, when reported. */
  readonly removed: readonly string[];
  /** Whether the response replaces what the node holds (SotW LDS/CDS: full state). */
  readonly replace: boolean;
}

/** The latest ACK for a node and type, and what the node holds after it. */
export interface AckedState {
  readonly versionInfo: string;
  /** The nonce of the ACKed response; undefined if no response was known on the stream. */
  readonly nonce: string | undefined;
  readonly at: number;
  /** Resource name → version the node holds of this type; shared, must not be altered. */
  readonly held: ReadonlyMap<string, string | undefined>;
  /** False when some response lacked resource versions (see ResponseEvent.resources). */
  readonly resourceVersionsKnown: boolean;
  /**
   * True when `held` includes what the node accepted of a NACKed response (a NACK rejects only
   * the resources it names): `held` then no longer follows from `versionInfo` alone.
   */
  readonly partial?: boolean;
}

/** The latest NACK for a node and type, with Envoy's error_detail text. */
export interface NackRecord {
  readonly errorDetail: string;
  readonly rejectedVersion: string;
  /**
   * The resources the NACK rejected, as the client named them (gRFC A46; Envoy names them too);
   * empty when it named none, and the whole response was rejected.
   */
  readonly rejected: readonly string[];
  /** The nonce of the rejected response; undefined if no response was known on the stream. */
  readonly nonce: string | undefined;
  readonly at: number;
  readonly streamId: number;
}

/**
 * What the tracker keeps per node and type: only the latest sent, the latest ACK and the latest
 * NACK, so memory stays bounded by nodes × types × resources.
 */
export interface TypeLedger {
  readonly typeUrl: string;
  readonly sent: SentResponse | undefined;
  readonly acked: AckedState | undefined;
  readonly nack: NackRecord | undefined;
  /** Which came last for this type; a NACK followed by no ACK keeps the type NACKED. */
  readonly lastAnswer: "ack" | "nack" | undefined;
  /**
   * The resources of this type the node's snapshot has and the node is not sent, because it
   * rejected them or they need one it rejected (PlanCursor in @switchyard/snapshot). While one is
   * held back as rejected, the type stays NACKED, whatever is ACKed meanwhile.
   */
  readonly heldBack: readonly HeldBackResource[];
  /**
   * Whether the node subscribes to the whole set of this type (a wildcard subscription, as
   * Envoy's CDS and LDS) rather than to resources by name (EDS and RDS; CDS and LDS of gRPC's
   * xDS clients): only then must it hold every resource of the type to be in sync. True until a
   * request names resources (tracker.ts, subscribesWhole).
   */
  readonly wildcard: boolean;
  /**
   * The names the node subscribes to (besides `*`): a SotW request's list, or what a Delta
   * stream's requests added and did not remove. Each change is a new set, so a set's identity
   * tells whether it changed. Client Status Discovery reads it: a name requested and not held is
   * REQUESTED, or DOES_NOT_EXIST when the node's snapshot has no such resource.
   */
  readonly requested: ReadonlySet<string>;
}

/** A resource a node is not sent, and why (HeldBack of @switchyard/snapshot, by type). */
export interface HeldBackResource {
  readonly name: string;
  /** The version the node does not get. */
  readonly version: string;
  readonly reason: HoldReason;
}

/**
 * A type's status, in the spirit of `istioctl proxy-status`, first match wins:
 *
 * 1. NACKED: the latest answer for the type is a NACK, or a resource of the type is held back as
 *    rejected. It stays NACKED, whatever is sent after, until an ACK with nothing held back as
 *    rejected (which records a "recovered" event).
 * 2. NOT_SENT: nothing was ever sent for the type (the node asked, the server has not answered).
 * 3. SYNCED: the latest response sent was ACKed (the latest ACK carries its nonce).
 * 4. PENDING: the latest response sent is unanswered, for less than the stale threshold.
 * 5. STALE: the latest response sent is unanswered, for the stale threshold or longer.
 *
 * PENDING → STALE is a matter of time, not of an event: no change is fed for it; `staleAt` tells
 * a caller when to look again.
 */
export type TypeStatus =
  | { readonly t: "NACKED"; readonly nack: NackRecord }
  | { readonly t: "NOT_SENT" }
  | { readonly t: "SYNCED"; readonly versionInfo: string; readonly ackedAt: number }
  | { readonly t: "PENDING"; readonly sent: SentResponse; readonly staleAt: number }
  | { readonly t: "STALE"; readonly sent: SentResponse; readonly staleAt: number };

export interface TypeView extends TypeLedger {
  readonly status: TypeStatus;
}

/** A node as the tracker sees it at one instant. */
export interface NodeStatus {
  readonly identity: NodeIdentity;
  readonly connection: NodeConnection;
  /** One entry per type the node requested, sorted by type URL. */
  readonly types: readonly TypeView[];
}

/** Events kept in a bounded ring; `seq` increases by one per event, so readers can resume. */
export type StatusEvent =
  | ({ readonly t: "connect" } & EventBase & Omit<StreamInfo, "connectedAt" | "nodeId">)
  | ({ readonly t: "disconnect"; readonly nodeDisconnected: boolean } & EventBase & StreamRef)
  | ({ readonly t: "nack"; readonly typeUrl: string } & EventBase & StreamRef & NackFields)
  | ({
      readonly t: "recovered";
      readonly typeUrl: string;
      readonly versionInfo: string;
      /** When the NACK this ACK recovers from was received. */
      readonly nackedAt: number;
    } & EventBase &
      StreamRef);

interface EventBase {
  readonly seq: number;
  readonly at: number;
  readonly nodeId: string;
}

interface StreamRef {
  readonly streamId: number;
}

type NackFields = Pick<NackRecord, "errorDetail" | "rejectedVersion" | "nonce" | "rejected">;

/** What changed: a node's identity or connection (`typeUrl` undefined), or one of its types. */
export interface StatusChange {
  readonly nodeId: string;
  readonly typeUrl: string | undefined;
  /**
   * True when all that changed is a response sent to the node: what it holds and how it last
   * answered are as they were (convergence need not look again).
   */
  readonly sent?: true;
}
