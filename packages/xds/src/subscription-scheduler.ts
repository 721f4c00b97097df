import {
  type CursorState,
  type HeldBack,
  type HeldResources,
  PlanCursor,
  type ResourceSnapshot,
  referencedType,
  type StepAnswer,
  TYPE_ORDER,
  TypeUrl,
  type XdsResource,
} from "@switchyard/snapshot";
import type { ResponseBudget } from "./response-split.js";
import type { ResponseEffect, Subscription } from "./subscription.js";
import { VhdsSubscription } from "./vhds-subscription.js";

/** A variant's view of one type (SotwSubscription, DeltaSubscription) as the scheduler drives it. */
export interface ScheduledView<P> {
  readonly typeUrl: string;
  readonly core: Subscription;
  /**
   * What to send from `available` now, carrying at most `budget` when given; undefined for
   * nothing.
   */
  plan(
    available: ReadonlyMap<string, XdsResource>,
    target: ReadonlyMap<string, XdsResource>,
    budget: ResponseBudget | undefined,
  ): P | undefined;
  /** The plan went out with `nonce`; returns the resources new to the client. */
  markSent(plan: P, nonce: string): readonly XdsResource[];
}

/** A plan that may be one part of a split response (response-split.ts). */
export interface PartPlan {
  /** More of what the client lacks follows once it answers this part. */
  readonly more?: true;
}

/**
 * The plan step in flight when it goes out in parts: the answers to its parts so far, given to
 * the cursor as one once the last part is answered.
 */
interface StepParts {
  /** Whether the part in flight has more after it. */
  more: boolean;
  /** The part in flight was answered: the next one may go. */
  answered: boolean;
  /** What the part in flight carried: a NACK that names nothing rejects all of it. */
  effect: ResponseEffect | undefined;
  /** The resources the node rejected in the parts answered so far, and its first words. */
  readonly rejected: Set<string>;
  errorDetail: string | undefined;
}

/** A response the session must send, in order. */
export interface Outgoing<V, P> {
  readonly view: V;
  readonly plan: P;
  readonly nonce: string;
}

/** Types we know, first in make-before-break order, then any other type. */
export function orderOf(typeUrl: string): number {
  const index = TYPE_ORDER.indexOf(typeUrl as (typeof TYPE_ORDER)[number]);
  return index === -1 ? TYPE_ORDER.length : index;
}

/**
 * Decides what one stream sends and when, for either variant: it owns the stream's subscriptions
 * (one view per type), the make-before-break plan (PlanCursor, @switchyard/snapshot plan.ts) and
 * the nonces. Pure and synchronous.
 *
 * Rules, on every event (request, snapshot):
 *
 * 1. Plan steps (xDS protocol, "Eventual consistency considerations": make before break): on a new
 *    snapshot the cursor plans CDS (old and new clusters together), EDS, LDS, RDS, VHDS, then the
 *    removal of stale clusters and assignments, each step waiting for the ACK of the one before. A
 *    due step goes out narrowed to what the node subscribes to; a step with nothing for the node
 *    (its type never requested on this stream, or nothing covered that the node lacks) is skipped
 *    and counts as held, so a proxyless gRPC client that names LDS → RDS → CDS → EDS is never
 *    waited for.
 * 2. Subscription changes (a newly named resource, a first request) are answered from what the
 *    plan has brought the node to so far (PlanCursor.held), never from the target snapshot: a
 *    route configuration requested early cannot overtake the clusters it points at.
 * 3. Flow control: at most one unanswered response per type; and on ADS a type waits while a
 *    response of a type before it (CDS, EDS, LDS, RDS) is unanswered. That orders a stream's first
 *    responses too: the snapshot is installed before the first request, so the initial plan is all
 *    skipped and the first requests are answered by rule 2 — still CDS, EDS before LDS, RDS when a
 *    client asks for them together, but out of order when it asks in another order (gRPC).
 * 4. Warming (xDS protocol, "Resource warming"): a Cluster (Listener) new to the client is
 *    followed by its ClusterLoadAssignment (RouteConfiguration) even when the client holds that.
 * 5. Split responses (response-split.ts): a response over the node's message limit goes in parts,
 *    one at a time as each is answered (rule 3). A plan step so split is one step to the cursor:
 *    the step after it waits for the answer to its last part, and its parts' NACKs are given to
 *    the cursor together, each naming what that part carried, so make-before-break and NACK
 *    attribution hold across parts. A subscription answer (rule 2) so split goes on at once: each
 *    pump plans types in order, so its next part goes before any later type.
 *
 * Per-type streams (one type per stream, one session each) share nothing, so nothing orders one
 * type against another: every step of another type is skipped at once. What holds there: within
 * the type, responses follow one another as ACKs arrive, CDS/EDS make steps keep old and new
 * together and the break step drops stale clusters right after; what does not: EDS after CDS, RDS
 * after the clusters it routes to, and stale clusters kept until the routes moved. A client that
 * needs those guarantees must use ADS.
 *
 * The plan counts on the client subscribing to what a step's resources refer to before it ACKs
 * that step (Envoy does: plan.ts header); a subscription that comes after the step it needed was
 * skipped is answered by rule 2, out of step order.
 */
export class SubscriptionScheduler<P extends PartPlan, V extends ScheduledView<P>> {
  readonly #views = new Map<string, V>();
  /**
   * What a response of a type may carry to the node of `target` (its group's limit, else the
   * server's); undefined: no limit. Set by the session.
   */
  budget: (typeUrl: string, target: ResourceSnapshot) => ResponseBudget | undefined = () =>
    undefined;
  /** The step in flight, when it is sent in parts. */
  #parts: StepParts | undefined;
  /** `ordered()`, made when first needed after a view is added (a stream pumps on every event). */
  #ordered: readonly V[] | undefined;
  readonly #cursor = new PlanCursor();
  #nonce = 0;

  /** Where the stream stands in its make-before-break plan. */
  get planState(): CursorState {
    return this.#cursor.state;
  }

  /** The snapshot the node converges to; undefined before the first one. */
  get target(): ResourceSnapshot | undefined {
    return this.#cursor.target;
  }

  /**
   * What of the target the node is not sent because of its NACKs, and why: of what it subscribes
   * to (a rejected cluster no route uses any more, which gRPC stops asking for, is not held back
   * from it).
   */
  get heldBack(): readonly HeldBack[] {
    const all = this.#cursor.heldBack;
    const subscribed = all.filter((r) => this.#views.get(r.typeUrl)?.core.covers(r.name) === true);
    return subscribed.length === all.length ? all : subscribed;
  }

  /** What the node holds as far as its ACKs show: answer subscription changes from this. */
  get held(): HeldResources {
    return this.#cursor.held;
  }

  view(typeUrl: string): V | undefined {
    return this.#views.get(typeUrl);
  }

  /** Adds the view of a type seen for the first time. */
  add(view: V): V {
    this.#views.set(view.typeUrl, view);
    this.#ordered = undefined;
    return view;
  }

  /** The views, CDS, EDS, LDS, RDS first, then other types in arrival order. */
  ordered(): readonly V[] {
    this.#ordered ??= [...this.#views.values()].sort(
      (a, b) => orderOf(a.typeUrl) - orderOf(b.typeUrl),
    );
    return this.#ordered;
  }

  nextNonce(): string {
    this.#nonce += 1;
    return String(this.#nonce);
  }

  onSnapshot(snapshot: ResourceSnapshot): void {
    this.#cursor.onSnapshot(snapshot);
    for (const view of this.#views.values()) view.core.forgetRejections();
  }

  /**
   * The node answered the response with `nonce`: moves the plan on if it carried a step (or the
   * last part of one).
   */
  answered(nonce: string, answer: StepAnswer): void {
    const parts = this.#parts;
    const state = this.#cursor.state;
    if (parts === undefined || state.t !== "awaiting" || state.nonce !== nonce) {
      this.#cursor.answered(nonce, answer);
      return;
    }
    if (answer.t === "nack") {
      parts.errorDetail ??= answer.errorDetail;
      const names = answer.rejected ?? parts.effect?.sent.map((resource) => resource.name) ?? [];
      for (const name of names) parts.rejected.add(name);
    }
    parts.answered = true;
    if (!parts.more) this.#endParts(nonce);
  }

  /** The step sent in parts is answered in full: the cursor is told, as for one response. */
  #endParts(nonce: string): void {
    const parts = this.#parts;
    this.#parts = undefined;
    if (parts === undefined) return;
    this.#cursor.answered(
      nonce,
      parts.errorDetail === undefined
        ? { t: "ack" }
        : { t: "nack", errorDetail: parts.errorDetail, rejected: parts.rejected },
    );
  }

  /** The responses now due, in the order they must be sent. */
  pump(): Outgoing<V, P>[] {
    const out: Outgoing<V, P>[] = [];
    const target = this.#cursor.target;
    if (!target) return out;
    this.#runPlan(target, out);
    this.#answerSubscriptions(target, out);
    return out;
  }

  /** True while a plan step for `typeUrl` waits to go out or to be answered. */
  stepPendingFor(typeUrl: string): boolean {
    const state = this.#cursor.state;
    return (state.t === "due" || state.t === "awaiting") && state.step.typeUrl === typeUrl;
  }

  /** True while `view` may send nothing: its own response or an earlier type's is unanswered. */
  blocked(view: V): boolean {
    if (view.core.awaitingAnswer) return true;
    const order = orderOf(view.typeUrl);
    for (const other of this.#views.values()) {
      if (other.core.awaitingAnswer && orderOf(other.typeUrl) < order) return true;
    }
    return false;
  }

  #runPlan(target: ResourceSnapshot, out: Outgoing<V, P>[]): void {
    for (let state = this.#cursor.state; ; state = this.#cursor.state) {
      if (state.t === "awaiting") {
        if (this.#parts?.answered !== true || !this.#nextPart(state, target, out)) return;
        continue;
      }
      if (state.t !== "due") return;
      const { step } = state;
      const view = this.#views.get(step.typeUrl);
      if (!view?.core.started) {
        this.#cursor.skipped();
        continue;
      }
      if (this.blocked(view)) return;
      const plan = view.plan(
        step.held,
        target.resources(step.typeUrl),
        this.budget(step.typeUrl, target),
      );
      if (!plan) {
        this.#cursor.skipped();
        continue;
      }
      this.#cursor.sent(this.#send(view, plan, out));
      this.#parts =
        plan.more === true
          ? {
              more: true,
              answered: false,
              effect: awaitedEffect(view),
              rejected: new Set(),
              errorDetail: undefined,
            }
          : undefined;
      return;
    }
  }

  /**
   * The step in flight was sent in parts and its latest part answered: sends the next part, or,
   * with nothing left of the step for the node, ends it. True when the step ended (the plan goes
   * on), false when a part went out or cannot yet.
   */
  #nextPart(
    state: Extract<CursorState, { t: "awaiting" }>,
    target: ResourceSnapshot,
    out: Outgoing<V, P>[],
  ): boolean {
    const parts = this.#parts;
    const view = this.#views.get(state.step.typeUrl);
    if (parts === undefined || view === undefined || this.blocked(view)) return false;
    const { step } = state;
    const plan = view.plan(
      step.held,
      target.resources(step.typeUrl),
      this.budget(step.typeUrl, target),
    );
    if (plan === undefined) {
      this.#endParts(state.nonce);
      return true;
    }
    this.#cursor.continued(this.#send(view, plan, out));
    parts.more = plan.more === true;
    parts.answered = false;
    parts.effect = awaitedEffect(view);
    return false;
  }

  #answerSubscriptions(target: ResourceSnapshot, out: Outgoing<V, P>[]): void {
    const held = this.#cursor.held;
    for (const view of this.ordered()) {
      if (this.blocked(view)) continue;
      const plan = view.plan(
        held.resources(view.typeUrl),
        target.resources(view.typeUrl),
        this.budget(view.typeUrl, target),
      );
      if (plan) this.#send(view, plan, out);
    }
  }

  #send(view: V, plan: P, out: Outgoing<V, P>[]): string {
    const nonce = this.nextNonce();
    const fresh = view.markSent(plan, nonce);
    out.push({ view, plan, nonce });
    // A Cluster (Listener) new to the client warms until its assignment (route configuration)
    // arrives, so those follow even when unchanged; they wait for this response's answer (rule 3).
    const dependent = referencedType(view.typeUrl);
    if (dependent && orderOf(dependent) > orderOf(view.typeUrl)) {
      this.#views.get(dependent)?.core.forceResend(fresh.flatMap((r) => r.references));
    }
    // A route configuration new to the client resets its on-demand virtual hosts: they are sent
    // again, after this response is answered (rule 3; Envoy's VHDS page: "Updates to the route
    // configuration entry to which a virtual host belongs will clear the virtual host table and
    // require all virtual hosts to be sent again").
    if (view.typeUrl === TypeUrl.RouteConfiguration) {
      const vhds = this.#views.get(TypeUrl.VirtualHost);
      if (vhds instanceof VhdsSubscription)
        vhds.resetRouteConfigurations(new Set(fresh.map((r) => r.name)));
    }
    return nonce;
  }
}

/** What the response `view` just sent carries (its flow is awaiting that response). */
function awaitedEffect(view: { readonly core: Subscription }): ResponseEffect | undefined {
  const flow = view.core.flow;
  return flow.t === "awaiting" ? flow.effect : undefined;
}
