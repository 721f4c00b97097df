import { type ResourceSnapshot, TypeUrl, versionOf, type XdsResource } from "@switchyard/snapshot";
import {
  type DeltaRequest,
  type DeltaResponsePlan,
  DeltaSubscription,
  type DeltaVerdict,
} from "./delta-subscription.js";
import type { Outgoing } from "./subscription-scheduler.js";
import {
  type Heartbeat,
  type ResourceTtl,
  type SessionOptions,
  type TtlPolicy,
  ttlFor,
} from "./subscription-ttl.js";
import { VhdsSubscription } from "./vhds-subscription.js";
import { XdsSession } from "./xds-session.js";
import type { XdstpNaming } from "./xdstp-naming.js";

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
 * One Delta (incremental) stream's protocol state (xds-session.ts): used for Delta ADS and the
 * per-type Delta services; subscription-scheduler.ts says what is ordered, and
 * delta-subscription.ts the per-type rules (one response in flight per type; a request with a
 * stale nonce still changes the subscription, and may be answered). VHDS is Delta only
 * (vhds-subscription.ts).
 */
export class DeltaSession extends XdsSession<
  DeltaTypedRequest,
  DeltaVerdict,
  DeltaResponsePlan,
  DeltaSubscription,
  DeltaResponse
> {
  constructor(options: SessionOptions = {}) {
    super("delta", options);
  }

  protected subscribe(typeUrl: string, naming: XdstpNaming | undefined): DeltaSubscription {
    return typeUrl === TypeUrl.VirtualHost
      ? new VhdsSubscription(this.scheduler.target)
      : new DeltaSubscription(typeUrl, naming);
  }

  /** Installs the node's new snapshot; returns the responses now due. */
  override onSnapshot(snapshot: ResourceSnapshot): DeltaResponse[] {
    this.scheduler.onSnapshot(snapshot);
    const vhds = this.scheduler.view(TypeUrl.VirtualHost);
    if (vhds instanceof VhdsSubscription) vhds.useRouteConfigurations(snapshot);
    return this.pump();
  }

  /**
   * The TTL resources of `typeUrl` carry. VHDS resources carry none: a virtual host is named by
   * the aliases it was asked for, which a heartbeat (name and version only) cannot repeat.
   */
  protected ttlFor(policy: TtlPolicy, typeUrl: string): ResourceTtl | undefined {
    return typeUrl === TypeUrl.VirtualHost ? undefined : ttlFor(policy, typeUrl);
  }

  protected response({ view, plan, nonce }: DeltaOutgoing, ttl?: ResourceTtl): DeltaResponse {
    return { typeUrl: view.typeUrl, nonce, ...plan, ...(ttl ? { ttl } : {}) };
  }

  /** Every resource the client holds, at the version it holds, as heartbeats. */
  protected heartbeat(subscription: DeltaSubscription, ttl: ResourceTtl): DeltaResponse {
    const { core } = subscription;
    const systemVersionInfo = versionOf(core.holds);
    const nonce = this.scheduler.nextNonce();
    core.markSent(nonce, systemVersionInfo, { replace: false, sent: [], removed: [] });
    const heartbeats = [...core.holds].map(([name, version]) => ({ name, version }));
    return {
      typeUrl: core.typeUrl,
      nonce,
      systemVersionInfo,
      resources: [],
      removed: [],
      ttl,
      heartbeats,
    };
  }
}
