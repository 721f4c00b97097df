import {
  heldAfter,
  heldVersion,
  isFullStateType,
  resourcesVersion,
  versionOf,
  type XdsResource,
} from "@switchyard/snapshot";
import { firstPart, type ResponseBudget } from "./response-split.js";
import {
  type NameResolver,
  type Offer,
  Subscription,
  sharedList,
  wholeOf,
} from "./subscription.js";

/** The parts of a SotW DiscoveryRequest the state machine needs. */
export interface SotwRequest {
  readonly resourceNames: readonly string[];
  readonly versionInfo: string;
  readonly responseNonce: string;
  /** Envoy's error text when the request is a NACK. */
  readonly errorDetail?: string | undefined;
}

/** What the state machine made of a request. */
export type RequestVerdict =
  /** The nonce is not the latest sent: ignored entirely (xDS protocol, "Resource updates"). */
  | { readonly t: "stale" }
  /** The first request for this type on the stream. */
  | { readonly t: "initial" }
  | { readonly t: "ack"; readonly version: string }
  | {
      readonly t: "nack";
      readonly rejectedVersion: string;
      readonly errorDetail: string;
      /** The resources the client named as rejected; absent: the whole response. */
      readonly rejected?: ReadonlySet<string> | undefined;
    };

export interface SotwResponsePlan {
  readonly versionInfo: string;
  readonly resources: readonly XdsResource[];
  /**
   * True when the response is one part of a split one (response-split.ts): more of what the
   * client lacks follows once it answers this part.
   */
  readonly more?: true;
}

/**
 * The SotW view of one resource type on one stream (the state itself is a Subscription,
 * subscription.ts). Pure: no I/O, driven by the stream.
 *
 * - LDS/CDS responses carry every covered resource (full state); EDS/RDS only what the client lacks
 *   (xDS protocol, "Grouping Resources into Responses"). What an EDS/RDS/SDS/RTDS response would
 *   carry beyond the budget it is given goes in the responses after it (response-split.ts); an
 *   LDS/CDS response is never split (validation refuses what would need it).
 * - A request whose nonce is not the latest sent is ignored entirely: no ACK, no subscription
 *   change (xDS protocol, "Resource updates": no response to a request with a stale nonce).
 * - A NACK is recorded; the rejected versions are not sent again until a new snapshot.
 * - Flow control follows the request/response pairing of the protocol: after a response goes out,
 *   nothing more is sent for this type until the client answers it (ACK or NACK) with its nonce.
 */
export class SotwSubscription {
  readonly typeUrl: string;
  readonly core: Subscription;
  readonly #fullState: boolean;
  /**
   * The version_info a client named on its first request: it held that state on a previous
   * stream. Used once, to skip a resend to a reconnecting pure-wildcard client.
   */
  #claimedVersion: string | undefined;

  constructor(typeUrl: string, resolver?: NameResolver) {
    this.typeUrl = typeUrl;
    this.core = new Subscription(typeUrl, resolver);
    this.#fullState = isFullStateType(typeUrl);
  }

  get wildcard(): boolean {
    return this.core.wildcard;
  }

  get names(): ReadonlySet<string> {
    return this.core.names;
  }

  /** True when a response was sent and its ACK/NACK has not arrived. */
  get awaitingAnswer(): boolean {
    return this.core.awaitingAnswer;
  }

  get started(): boolean {
    return this.core.started;
  }

  /**
   * Resource names and versions the client holds, with the response in flight (if any) taken as
   * accepted: what it was last sent. A fresh map on each call.
   */
  get sent(): ReadonlyMap<string, string> {
    const flow = this.core.flow;
    if (flow.t !== "awaiting") return new Map(this.core.holds);
    const sent = new Map(flow.effect.replace ? [] : this.core.holds);
    for (const r of flow.effect.sent) sent.set(r.name, r.version);
    return sent;
  }

  /**
   * Applies a request (xDS protocol: "How the client specifies what resources to return" for the
   * wildcard rules; "ACK/NACK and resource type instance version": a NACK is detected by
   * error_detail; "Resource updates": no response to a stale nonce). The answer to the response
   * in flight is applied before the request's resource names.
   */
  onRequest(request: SotwRequest): RequestVerdict {
    const latest = this.core.latestNonce;
    if (latest !== undefined && request.responseNonce !== latest) return { t: "stale" };
    const verdict = this.#answer(request);
    this.core.replaceNames(request.resourceNames, this.#fullState);
    return verdict;
  }

  #answer(request: SotwRequest): RequestVerdict {
    if (!this.core.started) {
      this.core.start();
      if (request.versionInfo !== "") this.#claimedVersion = request.versionInfo;
      return { t: "initial" };
    }
    if (request.errorDetail !== undefined) {
      const flow = this.core.flow;
      const rejectedVersion =
        flow.t === "awaiting" ? flow.versionInfo : (this.core.lastVersion ?? "");
      const rejection = this.core.reject(request.responseNonce, request.errorDetail);
      return {
        t: "nack",
        rejectedVersion,
        errorDetail: request.errorDetail,
        ...(rejection === false ? {} : rejection),
      };
    }
    this.core.acknowledge(request.responseNonce);
    return { t: "ack", version: request.versionInfo };
  }

  /** Marks held resources to be resent although unchanged (warming after a CDS or LDS update). */
  forceResend(names: Iterable<string>): void {
    this.core.forceResend(names);
  }

  /**
   * What to send now, given the resources of this type the node may hold (`available`) and those
   * of the snapshot it converges to (`target`, default `available`); undefined when nothing should
   * be sent (no pending request, or nothing the client lacks). With a `budget`, a response of a
   * type that is not full-state carries no more than that (the rest follows, `more`).
   */
  plan(
    available: ReadonlyMap<string, XdsResource>,
    target: ReadonlyMap<string, XdsResource> = available,
    budget?: ResponseBudget,
  ): SotwResponsePlan | undefined {
    return this.core.planOpen(available, target, () => {
      const offer = this.core.offer(available, target);
      return this.#fullState ? this.#planFullState(offer) : this.#planChanged(offer, budget);
    });
  }

  #planFullState(offer: Offer): SotwResponsePlan | undefined {
    // All of the type, mostly (a wildcard subscription); either way the list every node that
    // covers the same is sent (sharedList).
    const whole = wholeOf(offer.basis);
    const content = whole.every((r) => this.core.covers(r.name))
      ? whole
      : sharedList(
          whole.filter((r) => this.core.covers(r.name)),
          offer.basis,
        );
    if (this.#claimedVersion !== undefined && this.#reconnectedHolding(content)) return undefined;
    const { resources, removed, missing } = this.core.difference(offer);
    const changed = resources.length > 0 || removed.length > 0 || missing.length > 0;
    // The first response is always sent: a client learns that there is nothing only from it.
    if (!changed && this.core.lastVersion !== undefined) return undefined;
    // All of the type (a wildcard subscription): the version of the snapshot's map, computed once
    // for every node sent it.
    const versionInfo =
      content.length === offer.basis.size
        ? resourcesVersion(offer.basis)
        : versionOf(content.map((r) => [r.name, r.version]));
    return { versionInfo, resources: content };
  }

  /**
   * Whether a reconnecting pure-wildcard client already holds exactly `content`, as the version
   * it named says (xDS protocol, "ACK/NACK and resource type instance version", on reconnecting:
   * safe for a pure wildcard subscription); then it is taken as held. Asked once.
   */
  #reconnectedHolding(content: readonly XdsResource[]): boolean {
    const claimed = this.#claimedVersion;
    this.#claimedVersion = undefined;
    const pureWildcard =
      this.core.wildcard && this.core.names.size === 0 && this.core.forced.size === 0;
    const versions = content.map((r): [string, string] => [r.name, r.version]);
    const versionInfo = versionOf(versions);
    if (!pureWildcard || claimed !== versionInfo) return false;
    this.core.assumeHeld(versions, versionInfo);
    return true;
  }

  #planChanged(offer: Offer, budget: ResponseBudget | undefined): SotwResponsePlan | undefined {
    const { resources: lacking } = this.core.difference(offer);
    if (lacking.length === 0) return undefined;
    const resources = budget === undefined ? lacking : firstPart(lacking, offer.basis, budget);
    // What the client holds once it ACKs: the map its ACK will share (held-maps.ts), whose
    // version is computed once for every node that holds it. A part's version is what the
    // client holds after it; the last part's is the whole response's.
    const after = heldAfter(this.core.holds, { replace: false, sent: resources, removed: [] });
    const versionInfo = heldVersion(after);
    return resources === lacking
      ? { versionInfo, resources }
      : { versionInfo, resources, more: true };
  }

  /**
   * Records that the planned response went out with `nonce`. Returns the resources the client
   * did not hold at that version: those whose dependents warm (a Cluster's assignment, a
   * Listener's route configuration).
   */
  markSent(plan: SotwResponsePlan, nonce: string): readonly XdsResource[] {
    const fresh = plan.resources.filter((r) => this.core.holds.get(r.name) !== r.version);
    this.core.markSent(nonce, plan.versionInfo, {
      replace: this.#fullState,
      sent: plan.resources,
      removed: [],
    });
    return fresh;
  }
}
