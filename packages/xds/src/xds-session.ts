import {
  type CursorState,
  DEFAULT_MAX_RESPONSE_BYTES,
  type HeldBack,
  type NodeContext,
  type ResourceSnapshot,
  responseBudget,
  type StepAnswer,
} from "@switchyard/snapshot";
import type { ResponseBudget } from "./response-split.js";
import {
  type Outgoing,
  type PartPlan,
  type ScheduledView,
  SubscriptionScheduler,
} from "./subscription-scheduler.js";
import {
  HeartbeatClock,
  type NodeFeatures,
  type ResourceTtl,
  type SessionOptions,
  type TtlPolicy,
  ttlPolicy,
} from "./subscription-ttl.js";
import { XdstpNaming } from "./xdstp-naming.js";

/** A request as both variants' subscriptions take it: its type and the nonce it answers. */
interface TypedRequest {
  readonly typeUrl: string;
  readonly responseNonce: string;
}

/**
 * What a SotW and a Delta stream's protocol state share: the node (its TTL policy and how its
 * xdstp:// names resolve), a subscription per type driven by the make-before-break scheduler
 * (subscription-scheduler.ts), and the heartbeat clock. Pure and synchronous: the transport feeds
 * a session the node, requests, snapshots and heartbeat ticks, and writes out what it returns, in
 * order. A variant says how it makes a subscription, how a request is applied, and how a planned
 * response and a heartbeat look on its wire (SotwSession, DeltaSession).
 */
export abstract class XdsSession<
  /** A request of the variant, and a subscription's verdict on it (an ACK or NACK, "ack"/"nack"). */
  R extends TypedRequest,
  Verdict extends { readonly t: string },
  /** What the scheduler plans for a type, and the subscription (view) it plans for. */
  P extends PartPlan,
  V extends ScheduledView<P> & { onRequest(request: R): Verdict },
  /** A response on the variant's wire, before encoding. */
  Response,
> {
  protected readonly scheduler = new SubscriptionScheduler<P, V>();
  readonly #options: SessionOptions;
  readonly #variant: "sotw" | "delta";
  readonly #clock = new HeartbeatClock();
  #ttl: TtlPolicy;
  /** Resolves xdstp:// names for this stream's node; set by onNode. */
  #naming: XdstpNaming | undefined;

  /**
   * The budget last given per type, with the limit it is for: a stream plans every type on every
   * event, and a node's limit and TTLs seldom change.
   */
  readonly #budgets = new Map<
    string,
    { readonly limit: number; readonly budget: ResponseBudget }
  >();

  constructor(variant: "sotw" | "delta", options: SessionOptions) {
    this.#variant = variant;
    this.#options = options;
    this.#ttl = ttlPolicy(variant, undefined, options.ttl);
    this.scheduler.budget = (typeUrl, target) => this.#budget(typeUrl, target);
  }

  /**
   * What a response of `typeUrl` may carry to this node: its group's limit, else the server's,
   * less room for the response's own fields; each resource counted as a Resource when the
   * variant (Delta) or a TTL (SotW) wraps it, else as an Any.
   */
  #budget(typeUrl: string, target: ResourceSnapshot): ResponseBudget {
    const limit =
      target.maxResponseBytes ?? this.#options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const known = this.#budgets.get(typeUrl);
    if (known?.limit === limit) return known.budget;
    const form =
      this.#variant === "delta" || this.ttlFor(this.#ttl, typeUrl) !== undefined
        ? "resource"
        : "any";
    const budget: ResponseBudget = { bytes: responseBudget(limit), form };
    this.#budgets.set(typeUrl, { limit, budget });
    return budget;
  }

  /** The subscription a first request of `typeUrl` makes. */
  protected abstract subscribe(typeUrl: string, naming: XdstpNaming | undefined): V;
  /** The response a planned send goes out as. */
  protected abstract response(outgoing: Outgoing<V, P>, ttl: ResourceTtl | undefined): Response;
  /** The TTL a response of `typeUrl` carries under the node's policy (none: undefined). */
  protected abstract ttlFor(policy: TtlPolicy, typeUrl: string): ResourceTtl | undefined;
  /** The TTL refresh of a type now due, if it has one to send (it then counts as a beat). */
  protected abstract heartbeat(view: V, ttl: ResourceTtl): Response | undefined;
  /**
   * Whether a request leaves the stream as it was, so nothing is sent in answer (SotW: a stale
   * nonce; Delta has none, a stale request still changes the subscription).
   */
  protected ignored(_verdict: Verdict): boolean {
    return false;
  }

  /**
   * The node of the stream's first request: its client features decide whether resources carry a
   * TTL. Call it before the first `onSnapshot`/`onRequest`.
   */
  onNode(node: NodeFeatures, context?: NodeContext): void {
    this.#ttl = ttlPolicy(this.#variant, node, this.#options.ttl);
    this.#budgets.clear();
    if (context) this.#naming = new XdstpNaming(this.#options.authorities ?? [], context);
  }

  /** Why an xdstp:// name of the stream did not resolve (for logs and status); else undefined. */
  whyUnresolved(name: string): string | undefined {
    return this.#naming?.whyUnresolved(name);
  }

  /** Applies a request; returns the subscription's verdict and the responses now due. */
  onRequest(request: R): { verdict: Verdict; responses: Response[] } {
    const view =
      this.scheduler.view(request.typeUrl) ??
      this.scheduler.add(this.subscribe(request.typeUrl, this.#naming));
    const verdict = view.onRequest(request);
    if (this.ignored(verdict)) return { verdict, responses: [] };
    if (verdict.t === "ack" || verdict.t === "nack") {
      // An ACK or NACK verdict carries what the plan's step answer does.
      this.scheduler.answered(request.responseNonce, verdict as unknown as StepAnswer);
    }
    return { verdict, responses: this.pump() };
  }

  /** Installs the node's new snapshot; returns the responses now due. */
  onSnapshot(snapshot: ResourceSnapshot): Response[] {
    this.scheduler.onSnapshot(snapshot);
    return this.pump();
  }

  /**
   * A timer tick: the TTL refreshes now due, at most one per type every `heartbeatMs`, only for a
   * type the client holds something of, with no response of the type in flight and no plan step
   * of the type pending (that change carries the TTL). What a refresh is, the variant says.
   */
  onHeartbeat(now: number): Response[] {
    const policy = this.#ttl;
    if (policy.t === "off") return [];
    const responses: Response[] = [];
    for (const view of this.scheduler.ordered()) {
      const ttl = this.ttlFor(policy, view.typeUrl);
      const { core } = view;
      if (!ttl || !core.open || core.holds.size === 0) continue;
      if (this.scheduler.stepPendingFor(view.typeUrl)) continue;
      if (!this.#clock.due(view.typeUrl, now, policy.heartbeatMs)) continue;
      const response = this.heartbeat(view, ttl);
      if (response === undefined) continue;
      this.#clock.beat(view.typeUrl, now);
      responses.push(response);
    }
    return responses;
  }

  subscription(typeUrl: string): V | undefined {
    return this.scheduler.view(typeUrl);
  }

  /** Where the stream stands in its make-before-break plan (for status and debugging). */
  get planState(): CursorState {
    return this.scheduler.planState;
  }

  /** What of its snapshot the node is not sent because of its NACKs, and why (PlanCursor). */
  get heldBack(): readonly HeldBack[] {
    return this.scheduler.heldBack;
  }

  /** The responses the scheduler says are due now, in order. */
  protected pump(): Response[] {
    return this.scheduler
      .pump()
      .map((outgoing) => this.response(outgoing, this.ttlFor(this.#ttl, outgoing.view.typeUrl)));
  }
}
