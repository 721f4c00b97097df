/**
 * Responses past the clients' message limit (response-size.ts): what the xDS server cannot split
 * is refused at publish, for the node groups whose nodes would be sent it.
 *
 * The server splits a response larger than the limit into several where the protocol allows it
 * (xDS protocol page, "Grouping Resources into Responses"): any Delta response, since each
 * DeltaDiscoveryResponse may carry any subset of the resources; and a SotW response of every type
 * but Listener and Cluster, whose resources a client keeps when a response does not name them.
 * What it cannot split:
 *
 * - SotW LDS and CDS: "the server must include the complete state of the world" in each response,
 *   so all of a group's listeners (clusters) go in one. Over the limit, a SotW client would refuse
 *   the response (gRPC fails the stream on a message above its max receive size).
 * - One resource larger than the limit: a resource is never cut, so no client, SotW or Delta,
 *   could receive it.
 *
 * Whether a group's clients speak SotW or Delta is not known in advance (each proxy picks when it
 * connects, and a group mixes both), so validation refuses what a SotW client could not receive:
 * a Delta client would receive it split, but refusing only for Delta would leave the SotW clients
 * of the group failing. A group whose clients accept larger messages (their gRPC max receive
 * message size raised) says so with `maxResponseBytes`, which then is its limit.
 */
import type { CompiledConfig, CompiledGroup } from "../compile.js";
import { isFullStateType, TypeUrl, type XdsResource } from "../serving/resource-snapshot.js";
import {
  MAX_MAX_RESPONSE_BYTES,
  MIN_MAX_RESPONSE_BYTES,
  maxResponseBytes,
  resourceBytes,
  responseBudget,
  totalBytes,
} from "../serving/response-size.js";
import { splitVhdsName } from "../serving/vhds.js";
import type { ValidationContext } from "./validate-context.js";

/** How each type is named in messages, and the model collection its objects are in. */
const TYPE_WORDS: Readonly<Record<string, readonly [string, string]>> = {
  [TypeUrl.Cluster]: ["clusters", "clusters"],
  [TypeUrl.ClusterLoadAssignment]: ["endpoints (cluster load assignments)", "clusters"],
  [TypeUrl.Listener]: ["listeners", "listeners"],
  [TypeUrl.RouteConfiguration]: ["route configurations", "routeConfigurations"],
  [TypeUrl.VirtualHost]: ["on-demand virtual hosts", "routeConfigurations"],
  [TypeUrl.Runtime]: ["runtime layers", "runtimeLayers"],
  [TypeUrl.Secret]: ["secrets", "secrets"],
};

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 3 : 1)} MiB`;
const sized = (n: number) => `${mib(n)} (${n} bytes)`;

/** The hint of every refusal: the three ways out. */
const HINT =
  "split the group's proxies into node groups that each receive fewer of them, make the largest smaller, or, if this group's clients accept larger messages (their gRPC max receive message size is raised), set the node group's maxResponseBytes to that size";

/** Checks each node group's responses against its limit (see the top of this file). */
export function checkResponseSizes(
  ctx: ValidationContext,
  compiled: CompiledConfig,
  serverLimit: number = maxResponseBytes(),
): void {
  const valid = new Set<string>();
  for (const group of ctx.spec.nodeGroups) {
    const limit = group.maxResponseBytes;
    if (limit === undefined) continue;
    if (
      Number.isInteger(limit) &&
      limit >= MIN_MAX_RESPONSE_BYTES &&
      limit <= MAX_MAX_RESPONSE_BYTES
    )
      valid.add(group.name);
    else
      ctx.issues.add(
        "invalid-max-response-bytes",
        `nodeGroups[${JSON.stringify(group.name)}].maxResponseBytes`,
        `node group "${group.name}" sets maxResponseBytes to ${limit}; it is a whole number of bytes from ${MIN_MAX_RESPONSE_BYTES} (16 KiB) to ${MAX_MAX_RESPONSE_BYTES}`,
        "set it to the max receive message size the group's gRPC clients are configured with, or leave it unset for the server's limit",
      );
  }
  for (const group of compiled.groups) {
    const own = group.snapshot.maxResponseBytes;
    // An invalid limit is reported above; the group is judged by the server's meanwhile.
    const limit = own !== undefined && valid.has(group.name) ? own : serverLimit;
    checkGroup(ctx, group, limit, own !== undefined && valid.has(group.name));
  }
}

function checkGroup(
  ctx: ValidationContext,
  group: CompiledGroup,
  limit: number,
  ownLimit: boolean,
): void {
  const budget = responseBudget(limit);
  const whose = ownLimit
    ? `the ${budget} bytes a response may carry under node group "${group.name}"'s maxResponseBytes of ${sized(limit)}`
    : `the ${budget} bytes a response may carry under the server's limit of ${sized(limit)} (--xds-max-response-bytes; gRPC's default max receive message size is 4 MiB)`;
  const clusterOf = assignmentClusters(group);
  for (const typeUrl of Object.values(TypeUrl)) {
    const resources = group.snapshot.resources(typeUrl);
    if (resources.size === 0) continue;
    const [words, collection] = TYPE_WORDS[typeUrl] ?? [typeUrl, "clusters"];
    const pathOf = (resource: XdsResource) =>
      `${collection}[${JSON.stringify(modelName(resource, clusterOf))}]`;
    // A Delta resource is larger than a SotW one (its name and version are repeated): each is
    // judged in the larger form, since any client must be able to receive it.
    let largest: { resource: XdsResource; size: number } | undefined;
    for (const resource of resources.values()) {
      const size = resourceBytes(resource, "resource");
      if (largest === undefined || size > largest.size) largest = { resource, size };
      if (size > budget) {
        ctx.issues.add(
          "response-too-large",
          pathOf(resource),
          `${pathOf(resource)} is ${sized(size)} in an xDS response to node group "${group.name}", over ${whose}: a resource is never split across responses, so any client (SotW or Delta) would refuse the response that carries it`,
          HINT,
        );
      }
    }
    if (!isFullStateType(typeUrl) || largest === undefined) continue;
    const total = totalBytes(resources, "any");
    if (total <= budget || largest.size > budget) continue;
    ctx.issues.add(
      "response-too-large",
      // At the largest object: the one to look at first.
      pathOf(largest.resource),
      `the ${words} node group "${group.name}" receives add up to ${sized(total)} in one xDS response, over ${whose}: a SotW client gets all of them in every response (${words} are full-state in SotW, never split), and would refuse it; Delta clients would be sent them split. The largest is ${pathOf(largest.resource)}, ${sized(largest.size)}`,
      HINT,
    );
  }
}

/** The cluster each assignment of the group belongs to (a Cluster refers to its assignment). */
function assignmentClusters(group: CompiledGroup): ReadonlyMap<string, string> {
  const clusters = new Map<string, string>();
  for (const cluster of group.snapshot.resources(TypeUrl.Cluster).values()) {
    for (const assignment of cluster.references) clusters.set(assignment, cluster.name);
  }
  return clusters;
}

/** The name of the model object a resource comes from. */
function modelName(resource: XdsResource, clusterOf: ReadonlyMap<string, string>): string {
  if (resource.typeUrl === TypeUrl.ClusterLoadAssignment)
    return clusterOf.get(resource.name) ?? resource.name;
  if (resource.typeUrl === TypeUrl.VirtualHost)
    return splitVhdsName(resource.name)?.routeConfiguration ?? resource.name;
  return resource.name;
}
