import { createHash } from "node:crypto";

import { TypeUrl } from "@switchyard/proto/type-url";

export { TypeUrl } from "@switchyard/proto/type-url";

/**
 * Make-before-break order (xDS protocol, "Eventual consistency considerations"): CDS, EDS, LDS,
 * RDS, VHDS ("VHDS updates ... must arrive after RDS updates"). SDS comes first: a cluster
 * or listener whose TLS context names an SDS secret warms until that secret arrives (Envoy's SDS
 * init target), so new and changed secrets go before anything that may need them; a secret
 * nothing needs any more is removed last (plan.ts). RTDS comes last: runtime layers warm nothing
 * and nothing warms on them, and the spec places them nowhere, so a runtime change goes out once
 * the routing it may tune is in place.
 */
export const TYPE_ORDER: readonly TypeUrl[] = [
  TypeUrl.Secret,
  TypeUrl.Cluster,
  TypeUrl.ClusterLoadAssignment,
  TypeUrl.Listener,
  TypeUrl.RouteConfiguration,
  TypeUrl.VirtualHost,
  TypeUrl.Runtime,
];

/**
 * One serialized resource. `body` is the binary encoding of the Envoy message, computed once and
 * shared by every stream that sends it: it must not be altered.
 */
export interface XdsResource {
  readonly typeUrl: TypeUrl;
  readonly name: string;
  /** Content hash of `body`: the same content gives the same version on every replica. */
  readonly version: string;
  readonly body: Uint8Array;
  /**
   * Names of the resources of the next type in the dependency chain this one needs to be warm:
   * a Cluster's ClusterLoadAssignment, a Listener's RouteConfigurations, a RouteConfiguration's
   * (and a VHDS VirtualHost's) Clusters.
   */
  readonly references: readonly string[];
}

export function resourceVersion(typeUrl: string, body: Uint8Array): string {
  return createHash("sha256").update(typeUrl).update(body).digest("hex").slice(0, 16);
}

/**
 * The version of a set of resources: a hash of their sorted names and versions. A SotW response's
 * version_info (the xDS server's REST fetch computes the same, so REST and SotW agree on LDS/CDS versions)
 * and a Delta response's system_version_info.
 */
export function versionOf(held: Iterable<readonly [string, string]>): string {
  // Hashed as one string (name NUL version NUL, in name order): the same bytes as updating the
  // hash part by part, in one call instead of four per resource.
  let text = "";
  for (const [name, version] of [...held].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    text += `${name}\u0000${version}\u0000`;
  }
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/**
 * Whether a SotW response of the type carries the full state of the world: LDS and CDS do, EDS
 * and RDS only what changed (xDS protocol, "Grouping Resources into Responses").
 */
export function isFullStateType(typeUrl: string): boolean {
  return typeUrl === TypeUrl.Listener || typeUrl === TypeUrl.Cluster;
}

export function createResource(
  typeUrl: TypeUrl,
  name: string,
  body: Uint8Array,
  references: readonly string[],
): XdsResource {
  return { typeUrl, name, body, version: resourceVersion(typeUrl, body), references };
}

/**
 * The resources one node group should hold, by type. Immutable: built once by the compiler and
 * shared by the cache and every stream; the maps it returns must not be altered.
 */
export class ResourceSnapshot {
  readonly #byType: ReadonlyMap<TypeUrl, ReadonlyMap<string, XdsResource>>;
  #withoutSecrets: ResourceSnapshot | undefined;
  /**
   * The largest response the group's clients accept when it is not the server's limit
   * (NodeGroupSpec.maxResponseBytes): responses to its nodes are split at it (response-size.ts).
   * Undefined: the server's limit.
   */
  #maxResponseBytes: number | undefined;

  /**
   * A snapshot of `resources`. (`sortedByType`, maps by type already sorted by name, is this
   * file's own way to build one from maps it shares: `reusing`, `withoutSecrets`.)
   */
  constructor(
    resources: Iterable<XdsResource>,
    sortedByType?: ReadonlyMap<TypeUrl, ReadonlyMap<string, XdsResource>>,
  ) {
    if (sortedByType !== undefined) {
      this.#byType = sortedByType;
      return;
    }
    const byType = new Map<TypeUrl, Map<string, XdsResource>>(
      TYPE_ORDER.map((typeUrl) => [typeUrl, new Map()]),
    );
    for (const resource of resources) {
      const ofType = byType.get(resource.typeUrl);
      if (!ofType) throw new Error(`unknown resource type ${resource.typeUrl}`);
      if (ofType.has(resource.name)) {
        throw new Error(`duplicate ${resource.typeUrl} resource "${resource.name}"`);
      }
      ofType.set(resource.name, resource);
    }
    for (const [typeUrl, ofType] of byType) {
      byType.set(typeUrl, new Map([...ofType].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
    }
    this.#byType = byType;
  }

  /** The group's own response limit; undefined: the server's (see `#maxResponseBytes`). */
  get maxResponseBytes(): number | undefined {
    return this.#maxResponseBytes;
  }

  /**
   * This snapshot with the group's response limit `bytes` (undefined: the server's): itself when
   * it has it already, else one sharing its maps.
   */
  withMaxResponseBytes(bytes: number | undefined): ResourceSnapshot {
    if (bytes === this.#maxResponseBytes) return this;
    const limited = new ResourceSnapshot([], this.#byType);
    limited.#maxResponseBytes = bytes;
    return limited;
  }

  /** The resources of one type, sorted by name. */
  resources(typeUrl: string): ReadonlyMap<string, XdsResource> {
    return this.#byType.get(typeUrl as TypeUrl) ?? EMPTY;
  }

  get(typeUrl: string, name: string): XdsResource | undefined {
    return this.resources(typeUrl).get(name);
  }

  /**
   * This snapshot with no Secret: what a client that did not authenticate is served (the xDS
   * server withholds private keys from it). Built once per snapshot, shared by every such stream.
   */
  withoutSecrets(): ResourceSnapshot {
    if (this.resources(TypeUrl.Secret).size === 0) return this;
    this.#withoutSecrets ??= new ResourceSnapshot(
      [],
      new Map(
        TYPE_ORDER.map((typeUrl) => [
          typeUrl,
          typeUrl === TypeUrl.Secret ? EMPTY : this.resources(typeUrl),
        ]),
      ),
    ).withMaxResponseBytes(this.#maxResponseBytes);
    return this.#withoutSecrets;
  }

  /**
   * This snapshot, sharing what it has in common with `previous` (the snapshot it replaces): the
   * map of each type whose resources are the same (names and versions), and within the other
   * types each resource of the same version; `previous` itself when nothing differs. Equal in
   * content to this one. What this buys: a publish leaves the maps of unchanged types as they
   * were, so what streams computed from them (plans, answers, encodings keyed by identity) still
   * holds, and a publish that changes nothing for a group changes nothing for its streams. The
   * response limit is this one's.
   */
  reusing(previous: ResourceSnapshot): ResourceSnapshot {
    return this.#reusing(previous).withMaxResponseBytes(this.#maxResponseBytes);
  }

  #reusing(previous: ResourceSnapshot): ResourceSnapshot {
    let same = true;
    const byType = new Map<TypeUrl, ReadonlyMap<string, XdsResource>>();
    for (const typeUrl of TYPE_ORDER) {
      const mine = this.resources(typeUrl);
      const theirs = previous.resources(typeUrl);
      let kept = 0;
      const merged = new Map<string, XdsResource>();
      for (const [name, resource] of mine) {
        const earlier = theirs.get(name);
        if (earlier?.version === resource.version) {
          merged.set(name, earlier);
          kept += 1;
        } else merged.set(name, resource);
      }
      if (kept === mine.size && kept === theirs.size) byType.set(typeUrl, theirs);
      else {
        same = false;
        byType.set(typeUrl, merged);
      }
    }
    return same ? previous : new ResourceSnapshot([], byType);
  }

  /**
   * Dangling references: a cluster whose assignment is missing, a listener whose route
   * configuration is missing, a route to a missing cluster. A snapshot with any is not served.
   */
  danglingReferences(): readonly string[] {
    const problems: string[] = [];
    for (const typeUrl of TYPE_ORDER) {
      const next = referencedType(typeUrl);
      if (!next) continue;
      for (const resource of this.resources(typeUrl).values()) {
        for (const reference of resource.references) {
          if (!this.resources(next).has(reference)) {
            problems.push(
              `${shortType(typeUrl)} "${resource.name}" refers to missing ${shortType(next)} "${reference}"`,
            );
          }
        }
      }
    }
    return problems;
  }
}

const EMPTY: ReadonlyMap<string, XdsResource> = new Map();

/** The type a resource's `references` name: Cluster→CLA, Listener→RouteConfiguration, Route→Cluster. */
export function referencedType(typeUrl: string): TypeUrl | undefined {
  switch (typeUrl) {
    case TypeUrl.Cluster:
      return TypeUrl.ClusterLoadAssignment;
    case TypeUrl.Listener:
      return TypeUrl.RouteConfiguration;
    case TypeUrl.RouteConfiguration:
    case TypeUrl.VirtualHost:
      return TypeUrl.Cluster;
    default:
      return undefined;
  }
}

export function shortType(typeUrl: string): string {
  return typeUrl.slice(typeUrl.lastIndexOf(".") + 1);
}
