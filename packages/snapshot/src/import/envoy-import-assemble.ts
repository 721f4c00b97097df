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
import {
  assignmentJson,
  clusterJson,
  clusterLoadAssignmentJson,
  edsResourceName,
  listenerJson,
  routeConfigurationFormJson,
  runtimeJson,
} from "../envoy/envoy-json.js";
import { envoyFromJson, envoyToJson } from "../envoy/envoy-proto-json.js";
import type {
  ClusterSpec,
  JsonObject,
  ListenerSpec,
  RouteConfigurationSpec,
  RuntimeLayerSpec,
} from "../model.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
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

/**
 * A ClusterLoadAssignment whose cluster is not in the document: in Envoy, CDS and EDS are
 * separate resources, updated separately, so it is the new endpoints of the stored EDS cluster
 * whose EDS resource name (its eds_cluster_config.service_name, or its name) is `edsName`. The
 * server applies it to that cluster, or refuses it with `missing`.
 */
export interface ImportedAssignment {
  readonly edsName: string;
  readonly localities: ClusterSpec["localities"];
  readonly assignmentExtra: JsonObject;
  /** The error to report when no stored EDS cluster has that EDS resource name. */
  readonly missing: ImportError;
}

/** The error of a ClusterLoadAssignment for a cluster an earlier one in the document serves. */
function secondAssignment(assignment: Normalized, name: string): ImportError {
  return issueAt(
    assignment.resource,
    ["clusterName"],
    "error",
    `a second ClusterLoadAssignment for "${name}"`,
  );
}

/**
 * The clusters of a document, and what of EDS it leaves to the stored configuration: its
 * assignments for clusters not in it (`assignments`), and its EDS clusters that came without one
 * (`withoutAssignment`: they keep the stored endpoints, as a CDS update keeps Envoy's).
 */
export function importClusters(
  items: readonly Normalized[],
  issues: ImportError[],
): {
  readonly clusters: Imported<ClusterSpec>[];
  readonly assignments: ImportedAssignment[];
  readonly withoutAssignment: string[];
} {
  const clusters = items.filter((item) => item.resource.typeUrl === TypeUrl.Cluster);
  const assignments = items.filter(
    (item) => item.resource.typeUrl === TypeUrl.ClusterLoadAssignment,
  );
  const edsNames = new Set(clusters.map((item) => edsNameOf(item.json)));
  const byEdsName = new Map<string, Normalized>();
  const standalone: ImportedAssignment[] = [];
  const standaloneNames = new Set<string>();
  for (const assignment of assignments) {
    const name = asString(assignment.json.clusterName);
    if (!edsNames.has(name)) {
      if (clusters.some((c) => asString(c.json.name) === name)) {
        issues.push(
          issueAt(
            assignment.resource,
            ["clusterName"],
            "error",
            `cluster "${name}" is not an EDS cluster: its endpoints belong in its load_assignment`,
          ),
        );
        continue;
      }
      if (standaloneNames.has(name)) {
        issues.push(secondAssignment(assignment, name));
        continue;
      }
      const mapped = attempt(assignment, issues, () => assignmentFrom(assignment.json, []));
      if (!mapped) continue;
      const problem = verify(
        ClusterLoadAssignmentSchema,
        assignmentJson(name, mapped.localities, mapped.extra),
        assignment.json,
      );
      if (problem) {
        issues.push(issueAt(assignment.resource, problem.at, "error", problem.message));
        continue;
      }
      standaloneNames.add(name);
      standalone.push({
        edsName: name,
        localities: mapped.localities,
        assignmentExtra: mapped.extra,
        missing: issueAt(
          assignment.resource,
          ["clusterName"],
          "error",
          `no EDS cluster is named "${name}" or has it as eds_cluster_config.service_name, in the document or stored: a ClusterLoadAssignment needs its cluster`,
        ),
      });
    } else if (byEdsName.has(name)) {
      issues.push(secondAssignment(assignment, name));
    } else byEdsName.set(name, assignment);
  }
  const out: Imported<ClusterSpec>[] = [];
  const withoutAssignment: string[] = [];
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
    if (cluster.discoveryType === "EDS" && !assignment) withoutAssignment.push(cluster.name);
    out.push({ object: cluster, item });
  }
  return { clusters: out, assignments: standalone, withoutAssignment };
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
