/**
 * Normalized resources → the stored objects of an import. Each resource is mapped
 * (envoy-import-map.ts), then compiled back (envoy-json.ts) and compared with its normalized input:
 * an object that would not come back equal is rejected with an error instead of being stored
 * changed. ClusterLoadAssignments join their EDS cluster, and each kind's names are made unique.
 */
import { type DescMessage, equals } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { ClusterLoadAssignmentSchema } from "@switchyard/proto/envoy/config/endpoint/v3/endpoint_pb";
import { ListenerSchema } from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import { RuntimeSchema } from "@switchyard/proto/envoy/service/runtime/v3/rtds_pb";
import { type ImportError, issueAt } from "./envoy-import-issue.js";
import { asObject, asString, describe, firstDifference, valueAt } from "./envoy-import-json.js";
import {
  assignmentFrom,
  clusterFrom,
  listenerFrom,
  routeConfigurationFrom,
  runtimeLayerFrom,
  Unrepresentable,
} from "./envoy-import-map.js";
import type { Normalized } from "./envoy-import-normalize.js";
import {
  clusterJson,
  clusterLoadAssignmentJson,
  edsResourceName,
  listenerJson,
  routeConfigurationFormJson,
  runtimeJson,
} from "./envoy-json.js";
import { envoyFromJson, envoyToJson } from "./envoy-proto-json.js";
import type {
  ClusterSpec,
  JsonObject,
  ListenerSpec,
  RouteConfigurationSpec,
  RuntimeLayerSpec,
} from "./model.js";
import { TypeUrl } from "./resource-snapshot.js";

/**
 * `compiled` (what Switchyard would serve for the stored object) decoded and compared with the
 * normalized input; a difference is an Unrepresentable at its first differing path.
 */
function verify(
  schema: DescMessage,
  compiled: JsonObject,
  input: JsonObject,
): Unrepresentable | undefined {
  try {
    const stored = envoyFromJson(schema, compiled);
    const given = envoyFromJson(schema, input);
    if (equals(schema, stored, given, { registry, unpackAny: true })) return undefined;
    const storedJson = envoyToJson(schema, stored);
    const at = firstDifference(storedJson, input) ?? [];
    const [served, givenValue] = [valueAt(storedJson, at), valueAt(input, at)].map((v) =>
      v === undefined ? "unset" : describe(v),
    );
    return new Unrepresentable(
      at,
      `cannot be stored exactly: Switchyard would serve ${served} here instead of ${givenValue}`,
    );
  } catch (error) {
    return new Unrepresentable(
      [],
      `cannot be stored: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function byName<T extends { readonly name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Runs one resource's mapping; an Unrepresentable becomes an error issue and `undefined`. */
function attempt<T>(item: Normalized, issues: ImportError[], map: () => T): T | undefined {
  try {
    return map();
  } catch (error) {
    if (!(error instanceof Unrepresentable)) throw error;
    issues.push(issueAt(item.resource, error.at, "error", error.message));
    return undefined;
  }
}

function edsNameOf(json: JsonObject): string | undefined {
  if ((json.type ?? "STATIC") !== "EDS") return undefined;
  return asString(asObject(json.edsClusterConfig).serviceName) || asString(json.name);
}

/** A stored object and the resource it came from. */
export interface Imported<T> {
  readonly object: T;
  readonly item: Normalized | undefined;
}

export function importClusters(
  items: readonly Normalized[],
  issues: ImportError[],
): Imported<ClusterSpec>[] {
  const clusters = items.filter((item) => item.resource.typeUrl === TypeUrl.Cluster);
  const assignments = items.filter(
    (item) => item.resource.typeUrl === TypeUrl.ClusterLoadAssignment,
  );
  const edsNames = new Set(clusters.map((item) => edsNameOf(item.json)));
  const byEdsName = new Map<string, Normalized>();
  for (const assignment of assignments) {
    const name = asString(assignment.json.clusterName);
    if (!edsNames.has(name)) {
      const plain = clusters.some((c) => asString(c.json.name) === name);
      issues.push(
        issueAt(
          assignment.resource,
          ["clusterName"],
          "error",
          plain
            ? `cluster "${name}" is not an EDS cluster: its endpoints belong in its load_assignment`
            : `no EDS cluster is named "${name}" or has it as eds_cluster_config.service_name: a ClusterLoadAssignment needs its cluster`,
        ),
      );
    } else if (byEdsName.has(name)) {
      issues.push(
        issueAt(
          assignment.resource,
          ["clusterName"],
          "error",
          `a second ClusterLoadAssignment for "${name}"`,
        ),
      );
    } else byEdsName.set(name, assignment);
  }
  const out: Imported<ClusterSpec>[] = [];
  for (const item of clusters) {
    const mapped = attempt(item, issues, () => clusterFrom(item.json));
    if (!mapped) continue;
    const assignment =
      mapped.discoveryType === "EDS" ? byEdsName.get(edsResourceName(mapped)) : undefined;
    const cluster = assignment
      ? attempt(assignment, issues, () => {
          const { localities, extra } = assignmentFrom(assignment.json, []);
          return { ...mapped, localities, assignmentExtra: extra };
        })
      : mapped;
    if (!cluster) continue;
    const problem = verify(ClusterSchema, clusterJson(cluster), item.json);
    if (problem) {
      issues.push(issueAt(item.resource, problem.at, "error", problem.message));
      continue;
    }
    if (assignment) {
      const assignmentProblem = verify(
        ClusterLoadAssignmentSchema,
        clusterLoadAssignmentJson(cluster),
        assignment.json,
      );
      if (assignmentProblem) {
        issues.push(
          issueAt(assignment.resource, assignmentProblem.at, "error", assignmentProblem.message),
        );
        continue;
      }
    }
    out.push({ object: cluster, item });
  }
  return out;
}

export function importRouteConfigurations(
  items: readonly Normalized[],
  issues: ImportError[],
): Imported<RouteConfigurationSpec>[] {
  const out: Imported<RouteConfigurationSpec>[] = [];
  for (const item of items) {
    if (item.resource.typeUrl !== TypeUrl.RouteConfiguration) continue;
    const mapped = attempt(item, issues, () => routeConfigurationFrom(item.json, []));
    if (!mapped) continue;
    const problem = verify(RouteConfigurationSchema, routeConfigurationFormJson(mapped), item.json);
    if (problem) issues.push(issueAt(item.resource, problem.at, "error", problem.message));
    else out.push({ object: mapped, item });
  }
  return out;
}

export function importListeners(
  items: readonly Normalized[],
  issues: ImportError[],
): { listeners: Imported<ListenerSpec>[]; routes: RouteConfigurationSpec[] } {
  const listeners: Imported<ListenerSpec>[] = [];
  const routes: RouteConfigurationSpec[] = [];
  for (const item of items) {
    if (item.resource.typeUrl !== TypeUrl.Listener) continue;
    const mapped = attempt(item, issues, () => listenerFrom(item.json));
    if (!mapped) continue;
    const inline = new Map(mapped.routes.map((rc) => [rc.name, rc]));
    const problem = verify(
      ListenerSchema,
      listenerJson(mapped.listener, (name) => inline.get(name)),
      item.json,
    );
    if (problem) {
      issues.push(issueAt(item.resource, problem.at, "error", problem.message));
      continue;
    }
    listeners.push({ object: mapped.listener, item });
    routes.push(...mapped.routes);
  }
  return { listeners, routes };
}

export function importRuntimeLayers(
  items: readonly Normalized[],
  issues: ImportError[],
): Imported<RuntimeLayerSpec>[] {
  const out: Imported<RuntimeLayerSpec>[] = [];
  for (const item of items) {
    if (item.resource.typeUrl !== TypeUrl.Runtime) continue;
    const mapped = attempt(item, issues, () => runtimeLayerFrom(item.json));
    if (!mapped) continue;
    const problem = verify(RuntimeSchema, runtimeJson(mapped), item.json);
    if (problem) issues.push(issueAt(item.resource, problem.at, "error", problem.message));
    else out.push({ object: mapped, item });
  }
  return out;
}

/** Objects of one kind with unique names: a repeated name is an error at the later resource. */
export function uniqueByName<T extends { readonly name: string }>(
  objects: readonly Imported<T>[],
  kind: string,
  issues: ImportError[],
): T[] {
  const seen = new Map<string, T>();
  for (const { object, item } of objects) {
    if (!seen.has(object.name)) seen.set(object.name, object);
    else if (item)
      issues.push(
        issueAt(item.resource, ["name"], "error", `another ${kind} is named "${object.name}"`),
      );
  }
  return [...seen.values()].sort(byName);
}
