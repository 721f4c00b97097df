/**
 * Resource TTLs and heartbeats, the pure part (xDS protocol, latest edition, "TTL" and "SotW
 * TTL"): which clients get them, and when a type is due for a heartbeat. The wire form
 * (envoy.service.discovery.v3.Resource with `ttl`) is the transport's.
 */

/** The node's `client_features` entry for clients that honour `Resource.ttl`. */
export const FEATURE_RESOURCE_TTL = "xds.config.supports-resource-ttl";
/** The node's `client_features` entry for SotW clients that accept resources wrapped in `Resource`. */
export const FEATURE_RESOURCE_IN_SOTW = "xds.config.supports-resource-in-sotw";

export interface TtlOptions {
  /** The TTL set on every resource sent to a client that supports it. */
  readonly ttlMs: number;
  /** How long a type may go without a heartbeat; default half the TTL. */
  readonly heartbeatMs?: number;
  /** The types whose resources carry the TTL; default every type. */
  readonly typeUrls?: readonly string[];
}

export interface SessionOptions {
  /** TTL for resources sent to clients that support it; no TTL when absent. */
  readonly ttl?: TtlOptions;
  /**
   * The xdstp:// authorities this server answers for (xdstp-naming.ts); none when absent: every
   * xdstp:// name is then a resource that does not exist.
   */
  readonly authorities?: readonly string[];
  /**
   * The largest response sent to a node whose group sets no limit of its own
   * (ResourceSnapshot.maxResponseBytes): larger ones are split where the protocol allows
   * (response-split.ts). Default 4 MiB, gRPC's default max receive message size.
   */
  readonly maxResponseBytes?: number;
}

/** The part of an envoy.config.core.v3.Node a session reads. */
export interface NodeFeatures {
  readonly clientFeatures: readonly string[];
}

/** The TTL every `Resource` of a response carries (`Resource.ttl`). */
export interface ResourceTtl {
  readonly ttlMs: number;
}

/**
 * A TTL heartbeat: an envoy.service.discovery.v3.Resource with this name and version, the TTL,
 * and no `resource` — a TTL refresh, not an update (xDS protocol, "TTL").
 */
export interface Heartbeat {
  readonly name: string;
  readonly version: string;
}

/** Whether this stream's client gets TTLs, decided from its node's client features. */
export type TtlPolicy =
  | { readonly t: "off" }
  | {
      readonly t: "on";
      readonly ttl: ResourceTtl;
      readonly heartbeatMs: number;
      readonly typeUrls: ReadonlySet<string> | undefined;
    };

const OFF: TtlPolicy = { t: "off" };

/**
 * SotW resources carry a TTL only wrapped in `Resource`, so a SotW client needs both features;
 * a Delta client (whose resources are always `Resource`s) needs only the TTL one.
 */
export function ttlPolicy(
  variant: "sotw" | "delta",
  node: NodeFeatures | undefined,
  options: TtlOptions | undefined,
): TtlPolicy {
  const features = new Set(node?.clientFeatures ?? []);
  const supported =
    features.has(FEATURE_RESOURCE_TTL) &&
    (variant === "delta" || features.has(FEATURE_RESOURCE_IN_SOTW));
  if (!options || !supported) return OFF;
  return {
    t: "on",
    ttl: { ttlMs: options.ttlMs },
    heartbeatMs: options.heartbeatMs ?? options.ttlMs / 2,
    typeUrls: options.typeUrls ? new Set(options.typeUrls) : undefined,
  };
}

/** The TTL resources of `typeUrl` carry under `policy`; undefined for none. */
export function ttlFor(policy: TtlPolicy, typeUrl: string): ResourceTtl | undefined {
  if (policy.t === "off") return undefined;
  return !policy.typeUrls || policy.typeUrls.has(typeUrl) ? policy.ttl : undefined;
}

/** When each type last had a heartbeat; a type is due once `heartbeatMs` has passed. */
export class HeartbeatClock {
  readonly #last = new Map<string, number>();

  due(typeUrl: string, now: number, heartbeatMs: number): boolean {
    const last = this.#last.get(typeUrl);
    return last === undefined || now - last >= heartbeatMs;
  }

  beat(typeUrl: string, now: number): void {
    this.#last.set(typeUrl, now);
  }
}
