import {
  type CursorState,
  type HeldBack,
  isFullStateType,
  type NodeContext,
  type ResourceSnapshot,
  versionOf,
  type XdsResource,
} from "@switchyard/snapshot";
import {
  type RequestVerdict,
  type SotwRequest,
  type SotwResponsePlan,
  SotwSubscription,
} from "./sotw-subscription.js";
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
import { XdstpNaming } from "./xdstp-naming.js";

export interface SotwTypedRequest extends SotwRequest {
  readonly typeUrl: string;
}

/** A response the transport must send, in order. */
export interface SotwResponse {
  readonly typeUrl: string;
  readonly versionInfo: string;
  readonly nonce: string;
  readonly resources: readonly XdsResource[];
  /**
   * Present when each resource goes wrapped in envoy.service.discovery.v3.Resource {name, version,
   * resource, ttl} instead of as a bare Any (the client supports both TTL features; xDS protocol,
   * "SotW TTL"). Absent: bare Anys, as always.
   */
  readonly ttl?: ResourceTtl;
  /**
   * TTL heartbeats (responses from `onHeartbeat` only, with `resources` empty): each goes as a
   * wrapped Resource with `name`, `version` (= `versionInfo`, which is how Envoy tells a heartbeat)
   * and `ttl`, and no `resource`. Sent only for EDS/RDS, where an empty response changes nothing.
   */
  readonly heartbeats?: readonly Heartbeat[];
}

type SotwOutgoing = Outgoing<SotwSubscription, SotwResponsePlan>;

/**
 * One SotW stream's protocol state: a subscription per type, the node's make-before-break plan and
 * its TTL policy. Pure and synchronous: the transport feeds it the node, requests, snapshots and
 * heartbeat ticks, and writes out what it returns, in order. Used for ADS (all types on one
 * stream) and for the per-type services (one type); subscription-scheduler.ts says what is
 * ordered, and what cannot be on per-type streams.
 */
export class SotwSession {
  readonly #scheduler = new SubscriptionScheduler<SotwResponsePlan, SotwSubscription>();
  readonly #options: SessionOptions;
  readonly #clock = new HeartbeatClock();
  #ttl: TtlPolicy;
  /** Resolves xdstp:// names for this stream's node; set by onNode. */
  #naming: XdstpNaming | undefined;

  constructor(options: SessionOptions = {}) {
    this.#options = options;
    this.#ttl = ttlPolicy("sotw", undefined, options.ttl);
  }

  /**
   * The node of the stream's first request: its client features decide whether resources go
   * wrapped with a TTL. Call it before the first `onSnapshot`/`onRequest`.
   */
  onNode(node: NodeFeatures, context?: NodeContext): void {
    this.#ttl = ttlPolicy("sotw", node, this.#options.ttl);
    if (context) this.#naming = new XdstpNaming(this.#options.authorities ?? [], context);
  }

  /** Why an xdstp:// name of the stream did not resolve (for logs and status); else undefined. */
  whyUnresolved(name: string): string | undefined {
    return this.#naming?.whyUnresolved(name);
  }

  /** Applies a request; returns the verdict and the responses now due. */
  onRequest(request: SotwTypedRequest): { verdict: RequestVerdict; responses: SotwResponse[] } {
    const subscription =
      this.#scheduler.view(request.typeUrl) ??
      this.#scheduler.add(new SotwSubscription(request.typeUrl, this.#naming));
    const verdict = subscription.onRequest(request);
    if (verdict.t === "stale") return { verdict, responses: [] };
    if (verdict.t === "ack" || verdict.t === "nack") {
      this.#scheduler.answered(request.responseNonce, verdict);
    }
    return { verdict, responses: this.#pump() };
  }

  /** Installs the node's new snapshot; returns the responses now due. */
  onSnapshot(snapshot: ResourceSnapshot): SotwResponse[] {
    this.#scheduler.onSnapshot(snapshot);
    return this.#pump();
  }

  /**
   * A timer tick: the TTL refreshes now due, at most one per type every `heartbeatMs`, for types
   * with no response in flight. EDS/RDS get heartbeats (no body); LDS/CDS get their full state
   * again, wrapped with the TTL, because a state-of-the-world client reads a response of
   * heartbeats alone as "no resources" (Envoy's grpc_mux drops heartbeats, then applies the rest
   * as the whole state). A type whose state is about to change is skipped: the change carries
   * the TTL.
   */
  onHeartbeat(now: number): SotwResponse[] {
    const policy = this.#ttl;
    if (policy.t === "off") return [];
    const responses: SotwResponse[] = [];
    for (const subscription of this.#scheduler.ordered()) {
      const ttl = ttlFor(policy, subscription.typeUrl);
      const { core } = subscription;
      if (!ttl || !core.open || core.holds.size === 0) continue;
      if (this.#scheduler.stepPendingFor(subscription.typeUrl)) continue;
      if (!this.#clock.due(subscription.typeUrl, now, policy.heartbeatMs)) continue;
      const response = isFullStateType(subscription.typeUrl)
        ? this.#refresh(subscription, ttl)
        : this.#heartbeat(subscription, ttl);
      if (!response) continue;
      this.#clock.beat(subscription.typeUrl, now);
      responses.push(response);
    }
    return responses;
  }

  subscription(typeUrl: string): SotwSubscription | undefined {
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

  #pump(): SotwResponse[] {
    return this.#scheduler.pump().map((outgoing) => this.#response(outgoing));
  }

  #response({ view, plan, nonce }: SotwOutgoing): SotwResponse {
    const ttl = ttlFor(this.#ttl, view.typeUrl);
    return { typeUrl: view.typeUrl, nonce, ...plan, ...(ttl ? { ttl } : {}) };
  }

  /** LDS/CDS: the full state the client holds, again, when the plan has nothing new for it. */
  #refresh(subscription: SotwSubscription, ttl: ResourceTtl): SotwResponse | undefined {
    const available = this.#scheduler.held.resources(subscription.typeUrl);
    const content = [...available.values()].filter((r) => subscription.core.covers(r.name));
    const holds = subscription.core.holds;
    const same =
      content.length === holds.size && content.every((r) => holds.get(r.name) === r.version);
    if (!same) return undefined;
    const plan = { versionInfo: versionOf(holds), resources: content };
    const nonce = this.#scheduler.nextNonce();
    subscription.markSent(plan, nonce);
    return { typeUrl: subscription.typeUrl, nonce, ...plan, ttl };
  }

  /** EDS/RDS: a heartbeat per held resource, at the version_info the client last accepted. */
  #heartbeat(subscription: SotwSubscription, ttl: ResourceTtl): SotwResponse | undefined {
    const { core } = subscription;
    const versionInfo = core.ackedVersion;
    if (versionInfo === undefined) return undefined;
    const nonce = this.#scheduler.nextNonce();
    core.markSent(nonce, versionInfo, { replace: false, sent: [], removed: [] });
    const heartbeats = [...core.holds.keys()].map((name) => ({ name, version: versionInfo }));
    return { typeUrl: core.typeUrl, versionInfo, nonce, resources: [], ttl, heartbeats };
  }
}
