import { isFullStateType, versionOf, type XdsResource } from "@switchyard/snapshot";
import {
  type RequestVerdict,
  type SotwRequest,
  type SotwResponsePlan,
  SotwSubscription,
} from "./sotw-subscription.js";
import type { Outgoing } from "./subscription-scheduler.js";
import {
  type Heartbeat,
  type ResourceTtl,
  type SessionOptions,
  type TtlPolicy,
  ttlFor,
} from "./subscription-ttl.js";
import { XdsSession } from "./xds-session.js";
import type { XdstpNaming } from "./xdstp-naming.js";

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
 * One SotW stream's protocol state (xds-session.ts): used for ADS (all types on one stream) and
 * for the per-type services (one type); subscription-scheduler.ts says what is ordered, and what
 * cannot be on per-type streams. A request with a stale nonce is ignored entirely.
 */
export class SotwSession extends XdsSession<
  SotwTypedRequest,
  RequestVerdict,
  SotwResponsePlan,
  SotwSubscription,
  SotwResponse
> {
  constructor(options: SessionOptions = {}) {
    super("sotw", options);
  }

  protected subscribe(typeUrl: string, naming: XdstpNaming | undefined): SotwSubscription {
    return new SotwSubscription(typeUrl, naming);
  }

  protected override ignored(verdict: RequestVerdict): boolean {
    return verdict.t === "stale";
  }

  protected ttlFor(policy: TtlPolicy, typeUrl: string): ResourceTtl | undefined {
    return ttlFor(policy, typeUrl);
  }

  protected response({ view, plan, nonce }: SotwOutgoing, ttl?: ResourceTtl): SotwResponse {
    return { typeUrl: view.typeUrl, nonce, ...plan, ...(ttl ? { ttl } : {}) };
  }

  /**
   * EDS/RDS get heartbeats (no body); LDS/CDS get their full state again, wrapped with the TTL,
   * because a state-of-the-world client reads a response of heartbeats alone as "no resources"
   * (Envoy's grpc_mux drops heartbeats, then applies the rest as the whole state).
   */
  protected heartbeat(subscription: SotwSubscription, ttl: ResourceTtl): SotwResponse | undefined {
    return isFullStateType(subscription.typeUrl)
      ? this.#refresh(subscription, ttl)
      : this.#heartbeats(subscription, ttl);
  }

  /** LDS/CDS: the full state the client holds, again, when the plan has nothing new for it. */
  #refresh(subscription: SotwSubscription, ttl: ResourceTtl): SotwResponse | undefined {
    const available = this.scheduler.held.resources(subscription.typeUrl);
    const content = [...available.values()].filter((r) => subscription.core.covers(r.name));
    const holds = subscription.core.holds;
    const same =
      content.length === holds.size && content.every((r) => holds.get(r.name) === r.version);
    if (!same) return undefined;
    const plan = { versionInfo: versionOf(holds), resources: content };
    const nonce = this.scheduler.nextNonce();
    subscription.markSent(plan, nonce);
    return { typeUrl: subscription.typeUrl, nonce, ...plan, ttl };
  }

  /** EDS/RDS: a heartbeat per held resource, at the version_info the client last accepted. */
  #heartbeats(subscription: SotwSubscription, ttl: ResourceTtl): SotwResponse | undefined {
    const { core } = subscription;
    const versionInfo = core.ackedVersion;
    if (versionInfo === undefined) return undefined;
    const nonce = this.scheduler.nextNonce();
    core.markSent(nonce, versionInfo, { replace: false, sent: [], removed: [] });
    const heartbeats = [...core.holds.keys()].map((name) => ({ name, version: versionInfo }));
    return { typeUrl: core.typeUrl, versionInfo, nonce, resources: [], ttl, heartbeats };
  }
}
