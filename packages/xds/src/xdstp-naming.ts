import type { Node } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import {
  contextMismatch,
  directoryOf,
  formatXdstp,
  globDirectory,
  isGlob,
  isXdstp,
  type JsonObject,
  type NodeContext,
  parseXdstp,
  projectXdstp,
  servesXdstp,
  typeUrlOf,
  type XdsResource,
  type XdstpName,
} from "@switchyard/snapshot";
import type { Offer } from "./subscription.js";

/**
 * Why a requested resource name is malformed for a request of `typeUrl`, or undefined when it is
 * fine (every name that is not xdstp:// is). A malformed xdstp:// name, or one naming another
 * resource type than the request's, is the client's error: the stream ends with INVALID_ARGUMENT
 * saying which name and why. A well-formed name the server cannot resolve (another authority,
 * context parameters for another node, a stored name that does not exist) is not an error: it
 * is answered as a resource that does not exist.
 */
export function xdstpNameProblem(name: string, typeUrl: string): string | undefined {
  if (!isXdstp(name)) return undefined;
  const parsed = parseXdstp(name);
  if (!parsed.ok) return `is not a valid xdstp:// name: it ${parsed.problem}`;
  if (typeUrlOf(parsed.name) !== typeUrl) {
    return `names a resource of type ${parsed.name.resourceType} in a request for ${typeUrl}`;
  }
  return undefined;
}

/** The checks of xdstpNameProblem over a request's names: a message naming the field, or none. */
export function xdstpRequestProblem(
  field: string,
  names: readonly string[],
  typeUrl: string,
): string | undefined {
  for (const [index, name] of names.entries()) {
    const problem = xdstpNameProblem(name, typeUrl);
    if (problem) return `${field}[${index}] ${JSON.stringify(name.slice(0, 300))} ${problem}`;
  }
  return undefined;
}

/** What context parameters are matched against, from the Node of a stream's first request. */
export function nodeContextOf(node: Node): NodeContext {
  const version = node.userAgentVersionType;
  const build = version.case === "userAgentBuildVersion" ? version.value : undefined;
  const semver = build?.version;
  return {
    id: node.id,
    cluster: node.cluster,
    userAgentName: node.userAgentName,
    userAgentVersion: version.case === "userAgentVersion" ? version.value : "",
    buildVersion: semver
      ? `${semver.majorNumber}.${semver.minorNumber}.${semver.patch}`
      : undefined,
    buildMetadata: build?.metadata as JsonObject | undefined,
    locality: {
      region: node.locality?.region ?? "",
      zone: node.locality?.zone ?? "",
      subZone: node.locality?.subZone ?? "",
    },
    metadata: (node.metadata ?? {}) as JsonObject,
    clientFeatures: node.clientFeatures,
  };
}

/**
 * Resolves a stream's xdstp:// names (packages/snapshot xdstp.ts) against what the node may
 * hold: one per stream, for its node and the server's authorities. Pure.
 */
export class XdstpNaming {
  readonly #authorities: ReadonlySet<string>;
  readonly #node: NodeContext;
  /** Why a name did not resolve, by name: for the node's status and the server's log. */
  readonly #unresolved = new Map<string, string>();

  constructor(authorities: Iterable<string>, node: NodeContext) {
    this.#authorities = new Set(authorities);
    this.#node = node;
  }

  /** Why `name` did not resolve the last time it was looked up; undefined if it did. */
  whyUnresolved(name: string): string | undefined {
    return this.#unresolved.get(name);
  }

  /**
   * The name's parsed form when it is served here: one of our authorities, a type served under
   * xdstp:// names, context parameters that match the node. Records why not, otherwise.
   */
  #accept(name: string, typeUrl: string): XdstpName | undefined {
    const parsed = parseXdstp(name);
    const refuse = (reason: string) => {
      this.#unresolved.set(name, reason);
      return undefined;
    };
    if (!parsed.ok) return refuse(parsed.problem);
    const { authority } = parsed.name;
    if (!this.#authorities.has(authority)) {
      return refuse(
        this.#authorities.size === 0
          ? "this server serves no xdstp:// authority (SWITCHYARD_XDS_AUTHORITY is none)"
          : `authority ${JSON.stringify(authority)} is not served here (this server is ${[...this.#authorities].map((a) => JSON.stringify(a)).join(", ")})`,
      );
    }
    if (!servesXdstp(typeUrl)) return refuse(`${typeUrl} is not served under xdstp:// names`);
    const mismatch = contextMismatch(parsed.name.params, this.#node);
    if (mismatch) return refuse(`context parameter ${mismatch}`);
    this.#unresolved.delete(name);
    return parsed.name;
  }

  /**
   * `offer` with the resources the subscription's xdstp:// names and glob collections resolve to
   * added under those names (each the stored resource projected: xdstp-projection.ts). Singleton
   * names keep the client's spelling; glob members are named canonically, with the glob's
   * context parameters, as Envoy matches them to the glob.
   */
  extend(
    offer: Offer,
    typeUrl: string,
    names: Iterable<string>,
    globs: Iterable<string>,
  ): Offer & { readonly globMembers: readonly string[] } {
    const basis = new Map(offer.basis);
    const target = new Map(offer.target);
    const members = new Set<string>();
    for (const name of names) {
      if (!isXdstp(name)) continue;
      const parsed = this.#accept(name, typeUrl);
      if (!parsed) continue;
      this.#add(offer.basis, basis, parsed, name);
      this.#add(offer.target, target, parsed, name);
    }
    for (const glob of globs) {
      const parsed = this.#accept(glob, typeUrl);
      if (!parsed || !isGlob(parsed)) continue;
      const directory = globDirectory(parsed);
      const collect = (from: ReadonlyMap<string, XdsResource>, into: Map<string, XdsResource>) => {
        for (const [id, resource] of from) {
          if (isXdstp(id) || directoryOf(id) !== directory) continue;
          const member = formatXdstp({ ...parsed, id });
          into.set(member, projectXdstp(resource, parsed.authority, member));
          if (into === basis) members.add(member);
        }
      };
      collect(offer.basis, basis);
      collect(offer.target, target);
    }
    return { basis: sortedByName(basis), target, globMembers: [...members] };
  }

  #add(
    from: ReadonlyMap<string, XdsResource>,
    into: Map<string, XdsResource>,
    parsed: XdstpName,
    name: string,
  ): void {
    const resource = from.get(parsed.id);
    if (resource) into.set(name, projectXdstp(resource, parsed.authority, name));
  }
}

/** Offer bases come sorted by name (subscription.ts): keep them so after adding names. */
function sortedByName(map: Map<string, XdsResource>): Map<string, XdsResource> {
  return new Map([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
