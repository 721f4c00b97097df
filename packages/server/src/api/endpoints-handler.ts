import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import {
  type ConfigService,
  EndpointOperation,
  HealthStatus,
} from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type EndpointOperation as Operation,
  quotedInput,
  registerEndpoints,
  registrationProblems,
} from "@switchyard/snapshot";
import { auditWrites, authorizeWrites, writesBetween } from "../access/config-guard.js";
import { callerOf, ipOf } from "../access/request-context.js";
import { PublishError } from "../store/publish-transaction.js";
import type { ConfigServiceOptions } from "./config-options.js";
import { invalidArgument, toConnectError } from "./errors.js";
import { enumName } from "./model-mapping.js";
import { guarded, publishResponse } from "./publishing.js";

const operations: Partial<Record<EndpointOperation, Operation>> = {
  [EndpointOperation.SET]: "set",
  [EndpointOperation.ADD]: "add",
  [EndpointOperation.REMOVE]: "remove",
};

/**
 * ConfigService.SetEndpoints: one published cluster's endpoints changed and published on top of
 * the latest version, through SnapshotStore.apply (one transaction under the publish lock, so
 * registrations of different clusters at once each land; someone's pending change of the same
 * cluster refuses it). Authorized as an edit of the cluster, then as a publish; audited as both.
 */
export function endpointsHandler(
  options: ConfigServiceOptions,
): Pick<ServiceImpl<typeof ConfigService>, "setEndpoints"> {
  const { prisma, store, onPublished, routeTests } = options;
  return {
    async setEndpoints(request, context) {
      const caller = callerOf(context);
      const operation = operations[request.operation];
      if (operation === undefined)
        throw new ConnectError("operation must be set, add or remove", Code.InvalidArgument);
      if (request.cluster === "")
        throw new ConnectError("name the cluster whose endpoints change", Code.InvalidArgument);
      const endpoints = request.endpoints.map((e) => ({
        address: e.address,
        port: e.port,
        weight: e.weight ?? null,
        healthStatus: enumName(HealthStatus, e.healthStatus, "UNKNOWN" as const),
        region: e.region,
        zone: e.zone,
        subZone: e.subZone,
        priority: e.priority,
      }));
      const problems = registrationProblems(endpoints, operation);
      if (problems.length > 0)
        throw invalidArgument(
          `cannot ${operation} endpoints of cluster ${quotedInput(request.cluster)}: ${problems.join("; ")}`,
          problems.map((message) => ({ severity: "error", code: "endpoints", path: "", message })),
        );
      try {
        const snapshot = await store.apply({
          ...guarded(context, {
            action: "publish",
            routeTests: routeTests.gate,
            rollout: "immediate",
            acceptWarnings: request.acceptWarnings,
          }),
          message: request.message.trim() || `endpoints ${operation} ${request.cluster}`,
          prepare: async (_tx, latest) => {
            const cluster = latest.clusters.find((c) => c.name === request.cluster);
            if (cluster === undefined)
              throw new ConnectError(
                `cluster ${quotedInput(request.cluster)} is not in the latest version: publish it first (switchyard get clusters lists what is stored)`,
                Code.NotFound,
              );
            return { clusters: [registerEndpoints(cluster, operation, endpoints)] };
          },
          afterWrite: async (tx, applied) => {
            const writes = writesBetween(applied.changes, applied.before, applied.after);
            await authorizeWrites(tx, caller, writes, options.writePolicy);
            await auditWrites(tx, caller, ipOf(context), writes, {
              endpoints: `${operation} ${request.cluster}`,
            });
          },
        });
        return publishResponse(prisma, snapshot, onPublished);
      } catch (error) {
        // The cluster already had exactly these endpoints: nothing to publish, not a failure.
        if (error instanceof PublishError && error.code === "no-changes")
          return { changes: [], warnings: [] };
        throw toConnectError(error);
      }
    },
  };
}
