import { heldAfter, heldVersion, type XdsResource } from "@switchyard/snapshot";
import { firstDeltaPart, type ResponseBudget } from "./response-split.js";
import { type NameResolver, type Offer, Subscription } from "./subscription.js";

/** The parts of a DeltaDiscoveryRequest the state machine needs. */
export interface DeltaRequest {
  /** `resource_names_subscribe`. */
  readonly subscribe: readonly string[];
  /** `resource_names_unsubscribe`. */
  readonly unsubscribe: readonly string[];
  /** `initial_resource_versions`: honoured on the first request of the type only. */
  readonly initialResourceVersions: Readonly<Record<string, string>>;
  readonly responseNonce: string;
  /** The client's error text when the request is a NACK. */
  readonly errorDetail?: string | undefined;
}

/** What the state machine made of a Delta request. */
export type DeltaVerdict =
  /** The first request for this type on the stream. */
  | { readonly t: "initial" }
  /** ACK of the response in flight; `version` is that response's system_version_info. */
  | { readonly t: "ack"; readonly version: string }
  | {
      readonly t: "nack";
      readonly rejectedVersion: string;
      readonly errorDetail: string;
      /** The resources the client named as rejected; absent: the whole response. */
      readonly rejected?: ReadonlySet<string> | undefined;
    }
  /**
   * The nonce is neither the response in flight's nor the latest: the ACK/NACK it carries is
   * ignored, its subscription changes are still applied (xDS protocol, "Incremental xDS": "the
   * server must honor changes to the subscription state even if the nonce is stale").
   */
  | { readonly t: "stale" }
  /** A request that answers no response in flight: subscription changes only. */
  | { readonly t: "update" };

export interface DeltaResponsePlan {
  /** For debugging only (xDS protocol, "Incremental xDS": "for debugging purposes only"). */
  readonly systemVersionInfo: string;
  /** Each with its own version. */
  readonly resources: readonly XdsResource[];
  /** `removed_resources`: deleted, no longer covered, or never existed. */
  readonly removed: readonly string[];
  /** VHDS (vhds-subscription.ts): a resource's `aliases`, by resource name. */
  readonly aliases?: ReadonlyMap<string, readonly string[]>;
  /**
   * VHDS: requested names no resource serves, each sent as a Resource with that name and alias
   * and no body (Envoy's VHDS page, "Subscribing to Resources").
   */
  readonly unresolved?: readonly string[];
  /**
   * True when the response is one part of a split one (response-split.ts): more of what the
   * client lacks follows once it answers this part.
   */
  readonly more?: true;
}

/**
 * The Delta (incremental) view of one resource type on one stream (the state itself is a
 * Subscription, subscription.ts). Pure: no I/O, driven by the stream.
 *
 * - Only what the client lacks is sent, each resource with its own version; deletions and
 *   subscribed names that do not exist go in `removed_resources` (xDS protocol, latest edition,
 *   "Incremental xDS", "Knowing When a Requested Resource Does Not Exist"; the older text's
 *   "Resource with no body" is superseded).
 * - A stale nonce does not stop subscription changes; it only means the request is no ACK/NACK.
 * - Flow control (our rule; the protocol allows several responses in flight): at most one
 *   unanswered response per type, as in SotW. Changes that arrive meanwhile are answered after
 *   the ACK/NACK, in one response. This keeps the make-before-break order on ADS
 *   (subscription-scheduler.ts) and makes every response's effect on the client known.
 */
export class DeltaSubscription {
  readonly typeUrl: string;
  readonly core: Subscription;

  constructor(typeUrl: string, resolver?: NameResolver) {
    this.typeUrl = typeUrl;
    this.core = new Subscription(typeUrl, resolver);
  }

  get wildcard(): boolean {
    return this.core.wildcard;
  }

  get names(): ReadonlySet<string> {
    return this.core.names;
  }

  get awaitingAnswer(): boolean {
    return this.core.awaitingAnswer;
  }

  get started(): boolean {
    return this.core.started;
  }

  /** What the client holds, name → version. Must not be altered. */
  get holds(): ReadonlyMap<string, string> {
    return this.core.holds;
  }

  /**
   * Applies a request: the answer to the response in flight first, then the subscription changes,
   * then (first request only) what the client says it already holds.
   */
  onRequest(request: DeltaRequest): DeltaVerdict {
    const initial = !this.core.started;
    this.core.start();
    const verdict = initial ? { t: "initial" as const } : this.#answer(request);
    this.core.changeNames(request.subscribe, request.unsubscribe);
    if (initial) this.core.declareHeld(Object.entries(request.initialResourceVersions));
    return verdict;
  }

  #answer(request: DeltaRequest): DeltaVerdict {
    const flow = this.core.flow;
    if (flow.t === "awaiting" && flow.nonce === request.responseNonce) {
      if (request.errorDetail === undefined) {
        this.core.acknowledge(request.responseNonce);
        return { t: "ack", version: flow.versionInfo };
      }
      const rejection = this.core.reject(request.responseNonce, request.errorDetail);
      return {
        t: "nack",
        rejectedVersion: flow.versionInfo,
        errorDetail: request.errorDetail,
        ...(rejection === false ? {} : rejection),
      };
    }
    const answersNothing =
      request.responseNonce === "" || request.responseNonce === this.core.latestNonce;
    return answersNothing ? { t: "update" } : { t: "stale" };
  }

  /** Marks held resources to be resent although unchanged (warming after a CDS or LDS update). */
  forceResend(names: Iterable<string>): void {
    this.core.forceResend(names);
  }

  /**
   * What to send now, given the resources of this type the node may hold (`available`) and those
   * of the snapshot it converges to (`target`); undefined when nothing should be sent. With a
   * `budget`, the response carries no more than that: the rest follows (`more`).
   */
  plan(
    available: ReadonlyMap<string, XdsResource>,
    target: ReadonlyMap<string, XdsResource> = available,
    budget?: ResponseBudget,
  ): DeltaResponsePlan | undefined {
    return this.core.planOpen(available, target, () => {
      const offer: Offer = this.core.offer(available, target);
      const { resources: lacking, removed, missing } = this.core.difference(offer);
      const allGone = missing.length === 0 ? removed : [...removed, ...missing].sort();
      if (lacking.length === 0 && allGone.length === 0 && !this.#owesEmptyAnswer(target))
        return undefined;
      const part =
        budget === undefined ? undefined : firstDeltaPart(lacking, allGone, offer.basis, budget);
      const resources = part?.resources ?? lacking;
      const gone = part?.removed ?? allGone;
      // What the client holds once it ACKs (gone and resources are apart): the map its ACK will
      // share (held-maps.ts), whose version is computed once for every node that holds it. A
      // part's system_version_info is what the client holds after it; the last part's is the
      // whole response's.
      const after = heldAfter(this.core.holds, { replace: false, sent: resources, removed: gone });
      const systemVersionInfo = heldVersion(after);
      return part === undefined
        ? { systemVersionInfo, resources, removed: gone }
        : { systemVersionInfo, resources, removed: gone, more: true };
    });
  }

  /**
   * A wildcard subscription to a type the node's snapshot has nothing of is answered once, with
   * an empty response: a Delta client cannot tell "nothing exists" from "no answer yet" otherwise,
   * and Envoy would hold its initialization until its initial_fetch_timeout (15 s by default).
   * A named subscription needs no such answer: a name that does not exist is answered in
   * removed_resources (xDS protocol, "Incremental xDS", "Knowing When a Requested Resource Does
   * Not Exist"). A glob collection (xdstp-naming.ts) is like a wildcard: an empty one is answered
   * once, empty.
   */
  #owesEmptyAnswer(target: ReadonlyMap<string, XdsResource>): boolean {
    if (this.core.latestNonce !== undefined) return false;
    return (this.core.wildcard && target.size === 0) || this.core.globs.length > 0;
  }

  /**
   * Records that the planned response went out with `nonce`. Returns the resources the client
   * did not hold at that version (whose dependents warm).
   */
  markSent(plan: DeltaResponsePlan, nonce: string): readonly XdsResource[] {
    const fresh = plan.resources.filter((r) => this.core.holds.get(r.name) !== r.version);
    this.core.markSent(nonce, plan.systemVersionInfo, {
      replace: false,
      sent: plan.resources,
      removed: plan.removed,
    });
    return fresh;
  }
}
