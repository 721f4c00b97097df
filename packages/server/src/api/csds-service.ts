/**
 * Client Status Discovery (CSDS: envoy.service.status.v3.ClientStatusDiscoveryService) on the xDS
 * port, for the tools that read fleet state through the standard API (grpcdebug, `istioctl x
 * proxy-status`-style clients): FetchClientStatus, and StreamClientStatus answering each request
 * on the stream. What each node holds is read from the status every replica persists
 * (fleet/client-status.ts maps it), so one answer covers the whole fleet, whichever replica or
 * xDS worker takes the call.
 *
 * Callers authenticate as on the console API, with an API token (`Authorization: Bearer sy_...`)
 * allowed `status:read`, whatever the xDS port asks of proxies: CSDS shows every node's
 * configuration state, so the xDS port's anonymous or proxy credentials never reach it.
 */

import { create, type JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import {
  ClientStatusDiscoveryService,
  type ClientStatusRequest,
  type ClientStatusResponse,
  ClientStatusResponseSchema,
} from "@switchyard/proto/envoy/service/status/v3/csds_pb";
import {
  MatcherError,
  type NodeIdentity,
  nodeMatcher,
  type ResourceSnapshot,
  TYPE_ORDER,
} from "@switchyard/snapshot";
import type { Served } from "@switchyard/xds";
import { authenticateRequest } from "../access/access-interceptor.js";
import { assertAllowed, authorize } from "../auth/index.js";
import { clientConfigOf, type ServedResources } from "../fleet/client-status.js";
import { stringMetadata } from "../fleet/convergence-reader.js";
import { listNodes, type NodeRecord } from "../fleet/status-reader.js";

/** The most nodes one answer holds: a request matching more is refused, to be narrowed. */
export const MAX_CSDS_NODES = 10_000;
/** The most node matchers one request may carry. */
export const MAX_NODE_MATCHERS = 100;

export interface CsdsOptions {
  readonly prisma: PrismaClient;
  /**
   * What a node is served now (SnapshotCache.servedTo: its own version while its group is held
   * by a rollout); undefined before the first version is loaded.
   */
  readonly served: (node: NodeIdentity) => Served | undefined;
}

/** Registers the service on a Connect router (the xDS server's `services`). */
export function csdsService(options: CsdsOptions): (router: ConnectRouter) => void {
  const answer = (request: ClientStatusRequest) => clientStatus(options, request);
  const caller = async (context: HandlerContext) => {
    const principal = await authenticateRequest(options.prisma, context.requestHeader);
    assertAllowed(authorize(principal, "read", { kind: "status" }));
  };
  return (router) =>
    router.service(ClientStatusDiscoveryService, {
      fetchClientStatus: async (request, context) => {
        await caller(context);
        return answer(request);
      },
      streamClientStatus: async function* (requests, context) {
        await caller(context);
        for await (const request of requests) yield await answer(request);
      },
    });
}

/** The ClientStatusResponse for `request`: every node its node_matchers match, by id. */
export async function clientStatus(
  options: CsdsOptions,
  request: ClientStatusRequest,
): Promise<ClientStatusResponse> {
  if (request.nodeMatchers.length > MAX_NODE_MATCHERS)
    throw new ConnectError(
      `node_matchers: ${request.nodeMatchers.length} matchers, at most ${MAX_NODE_MATCHERS}`,
      Code.InvalidArgument,
    );
  let matches: (node: NodeRecord) => boolean;
  try {
    const match = nodeMatcher(request.nodeMatchers);
    // Node metadata is stored as the JSON of the node's Struct (status-reader.ts).
    matches = (node) =>
      match({ id: node.id, metadata: (node.metadata ?? undefined) as JsonValue | undefined });
  } catch (error) {
    if (error instanceof MatcherError) throw new ConnectError(error.message, Code.InvalidArgument);
    throw error;
  }
  const all = await listNodes(options.prisma, { limit: Number.MAX_SAFE_INTEGER });
  const ids = all.filter(matches).map((node) => node.id);
  if (ids.length > MAX_CSDS_NODES)
    throw new ConnectError(
      `node_matchers match ${ids.length} nodes, more than ${MAX_CSDS_NODES} in one answer: narrow them (by node id prefix, or by metadata)`,
      Code.ResourceExhausted,
    );
  const nodes =
    ids.length === 0 ? [] : await listNodes(options.prisma, { ids, held: true, limit: ids.length });
  const served = servedResources(options.served);
  return create(ClientStatusResponseSchema, {
    config: nodes.map((node) => clientConfigOf(node, served(node))),
  });
}

/**
 * What each node is served now, per type (name → version): computed once per snapshot and type
 * for a whole answer, whatever the number of nodes (a group held by a rollout has two).
 */
function servedResources(
  servedTo: CsdsOptions["served"],
): (node: NodeRecord) => ServedResources | undefined {
  const bySnapshot = new Map<ResourceSnapshot, Map<string, ReadonlyMap<string, string>>>();
  return (node) => {
    const served = servedTo({
      id: node.id,
      cluster: node.cluster,
      metadata: stringMetadata(node.metadata),
    });
    if (served === undefined) return undefined;
    const { snapshot } = served;
    let byType = bySnapshot.get(snapshot);
    if (byType === undefined) {
      byType = new Map();
      bySnapshot.set(snapshot, byType);
    }
    const types = byType;
    return (typeUrl) => {
      if (!(TYPE_ORDER as readonly string[]).includes(typeUrl)) return undefined;
      let versions = types.get(typeUrl);
      if (versions === undefined) {
        versions = new Map([...snapshot.resources(typeUrl)].map(([name, r]) => [name, r.version]));
        types.set(typeUrl, versions);
      }
      return versions;
    };
  };
}
