import {
  type CursorState,
  type HeldBack,
  type NodeContext,
  type ResourceSnapshot,
  TypeUrl,
  versionOf,
  type XdsResource,
} from "@switchyard/snapshot";
import {
  type DeltaRequest,
  type DeltaResponsePlan,
  DeltaSubscription,
  type DeltaVerdict,
} from "./delta-subscription.js";
import { type Outgoing, SubscriptionScheduler } from "./subscription-scheduler.js";
import {
  type Heartbeat,
  HeartbeatClock,
  type NodeFeatures,
  type ResourceTtl,
  type SessionOptions,
  type TtlPolicy,
  ttlFor,
  ttlPolicy,
} from "./subscription-ttl.js";
import { VhdsSubscription } from "./vhds-subscription.js";
import { XdstpNaming } from "./xdstp-naming.js";

export interface DeltaTypedRequest extends DeltaRequest {
  readonly typeUrl: string;
}

/** A DeltaDiscoveryResponse the transport must send, in order. */
export interface DeltaResponse {
  readonly typeUrl: string;
  readonly nonce: string;
  readonly systemVersionInfo: string;
  /** Each goes as a Resource {name, version, resource}; never two with one name. */
  readonly resources: readonly XdsResource[];
  /** `removed_resources`; never a name that is also in `resources`. */
  readonly removed: readonly string[];
  /** VHDS: each resource's `aliases`, by resource name (vhds-subscription.ts). */
  readonly aliases?: ReadonlyMap<string, readonly string[]>;
  /** VHDS: Resources with this name as name and alias, and no body (vhds-subscription.ts). */
  readonly unresolved?: readonly string[];
  /** Present when every Resource (and heartbeat) carries this TTL (`Resource.ttl`). */
  readonly ttl?: ResourceTtl;
  /**
   * TTL heartbeats (responses from `onHeartbeat` only, with `resources` and `removed` empty):
   * each a Resource with `name`, `version` and `ttl`, and no `resource`.
   */
  readonly heartbeats?: readonly Heartbeat[];
}

type DeltaOutgoing = Outgoing<DeltaSubscription, DeltaResponsePlan>;

/**
 * One Delta (incremental) stream's protocol state: a subscription per type, the node's
 * make-before-break plan and its TTL policy. Pure and synchronous, like SotwSession: the
 * transport feeds it the node, requests, snapshots and heartbeat ticks, and writes out what it
 * returns, in order. Used for Delta ADS and the per-type Delta services; subscription-scheduler.ts
 * says what is ordered, and delta-subscription.ts the per-type rules (one response in flight per
 * type; stale nonces still change subscriptions).
 */
export class DeltaSession {
  readonly #scheduler = new SubscriptionScheduler<DeltaResponsePlan, DeltaSubscription>();
  readonly #options: SessionOptions;
  readonly #clock = new HeartbeatClock();
  #ttl: TtlPolicy;
  /** Resolves xdstp:// names for this stream's node; set by onNode. */
  #naming: XdstpNaming | undefined;

  constructor(options: SessionOptions = {}) {
    this.#options = options;
    this.#ttl = ttlPolicy("delta", undefined, options.ttl);
  }

  /**
   * The node of the stream's first request: its client features decide whether resources carry
   * a TTL. Call it before the first `onSnapshot`/`onRequest`.
   */
  onNode(node: NodeFeatures, context?: NodeContext): void {
    this.#ttl = ttlPolicy("delta", node, this.#options.ttl);
    if (context) this.#naming = new XdstpNaming(this.#options.authorities ?? [], context);
  }

  /** Why an xdstp:// name of the stream did not resolve (for logs and status); else undefined. */
  whyUnresolved(name: string): string | undefined {
    return this.#naming?.whyUnresolved(name);
  }

  /**
   * Applies a request; returns the verdict and the responses now due. Unlike SotW, a request
   * with a stale nonce still changes the subscription, and may be answered.
   */
  onRequest(request: DeltaTypedRequest): { verdict: DeltaVerdict; responses: DeltaResponse[] } {
    const subscription =
      this.#scheduler.view(request.typeUrl) ??
      this.#scheduler.add(
        request.typeUrl === TypeUrl.VirtualHost
          ? new VhdsSubscription(this.#scheduler.target)
          : new DeltaSubscription(request.typeUrl, this.#naming),
      );
    const verdict = subscription.onRequest(request);
    if (verdict.t === "ack" || verdict.t === "nack") {
      this.#scheduler.answered(request.responseNonce, verdict);
    }
    return { verdict, responses: this.#pump() };
  }

  /** Installs the node's new snapshot; returns the responses now due. */
  onSnapshot(snapshot: ResourceSnapshot): DeltaResponse[] {
    this.#scheduler.onSnapshot(snapshot);
    const vhds = this.#scheduler.view(TypeUrl.VirtualHost);
    if (vhds instanceof VhdsSubscription) vhds.useRouteConfigurations(snapshot);
    return this.#pump();
  }

  /**
   * A timer tick: a heartbeat response per type now due (at most one every `heartbeatMs`, only
   * with no response of the type in flight and no plan step of the type pending: that change
   * carries the TTL), carrying every resource the client holds at the version it holds.
   */
  onHeartbeat(now: number): DeltaResponse[] {
    const policy = this.#ttl;
    if (policy.t === "off") return [];
    const responses: DeltaResponse[] = [];
    for (const subscription of this.#scheduler.ordered()) {
      const ttl = ttlOf(policy, subscription.typeUrl);
      const { core } = subscription;
      if (!ttl || !core.open || core.holds.size === 0) continue;
      if (this.#scheduler.stepPendingFor(subscription.typeUrl)) continue;
      if (!this.#clock.due(subscription.typeUrl, now, policy.heartbeatMs)) continue;
      this.#clock.beat(subscription.typeUrl, now);
      const systemVersionInfo = versionOf(core.holds);
      const nonce = this.#scheduler.nextNonce();
      core.markSent(nonce, systemVersionInfo, { replace: false, sent: [], removed: [] });
      const heartbeats = [...core.holds].map(([name, version]) => ({ name, version }));
      responses.push({
        typeUrl: core.typeUrl,
        nonce,
        systemVersionInfo,
        resources: [],
        removed: [],
        ttl,
        heartbeats,
      });
    }
    return responses;
  }

  subscription(typeUrl: string): DeltaSubscription | undefined {
    return this.#scheduler.view(typeUrl);
  }

  /** Where the stream stands in its make-before-break plan (for status and debugging). */
  get planState(): CursorState {
    return this.#scheduler.planState;
  }

  /** What of its snapshot the node is not sent because of its NACKs, and why (PlanCursor). */
  get heldBack(): readonly HeldBack[] {
    return this.#scheduler.heldBack;
  }

  #pump(): DeltaResponse[] {
    return this.#scheduler.pump().map((outgoing) => this.#response(outgoing));
  }

  #response({ view, plan, nonce }: DeltaOutgoing): DeltaResponse {
    const ttl = ttlOf(this.#ttl, view.typeUrl);
    return { typeUrl: view.typeUrl, nonce, ...plan, ...(ttl ? { ttl } : {}) };
  }
}

/**
 * The TTL resources of `typeUrl` carry. VHDS resources carry none: a virtual host is named by the
 * aliases it was asked for, which a heartbeat (name and version only) cannot repeat.
 */
function ttlOf(policy: TtlPolicy, typeUrl: string): ResourceTtl | undefined {
  return typeUrl === TypeUrl.VirtualHost ? undefined : ttlFor(policy, typeUrl);
}
