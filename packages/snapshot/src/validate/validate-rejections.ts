/**
 * Predicted rejections: warnings whose rule says a client would NACK the resource (a code with
 * `rejectedBy` in VALIDATION_CODES), and which node groups' clients would. A publish that adds
 * one is refused unless accept_warnings is given (the server's rejection gate); `switchyard diff
 * -f` exits with its own code for one.
 *
 * The node groups come from the compiled config, as proxies receive it:
 * - a gRPC rule (`rejectedBy: "grpc"`) is about what an api_listener reaches (validate-grpc.ts):
 *   its groups are those that receive an api_listener reaching the object at fault (the listener
 *   itself, its route configuration, or a cluster its routes name);
 * - an Envoy rule (`rejectedBy: "envoy"`) is about an object Envoy proxies get: its groups are
 *   those that receive the object.
 * A warning no node group's clients receive stays a plain warning: nobody would reject it.
 */
import type { CompiledConfig } from "../compile.js";
import type { ConfigSpec } from "../model.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import { routeConfigurationName, routeTargets } from "./validate-context.js";
import {
  type PredictedRejection,
  type RejectingClient,
  rejectedBy,
  VALIDATION_CODES,
  type ValidationCode,
  type ValidationIssue,
} from "./validate-issues.js";
import { clusterPath, listenerPath, routeConfigurationPath } from "./validate-path.js";

/** The object an issue's path is about: `clusters["echo"]` of `clusters["echo"].lbPolicy`. */
export function issueObject(path: string): { kind: string; name: string; path: string } | null {
  const match = /^(\w+)\[("(?:[^"\\]|\\.)*")\]/.exec(path);
  if (!match) return null;
  const [objectPath, kind = "", quoted = '""'] = match;
  return { kind, name: JSON.parse(quoted) as string, path: objectPath };
}

const OBJECT_TYPES: Readonly<Record<string, string>> = {
  clusters: TypeUrl.Cluster,
  listeners: TypeUrl.Listener,
  routeConfigurations: TypeUrl.RouteConfiguration,
  secrets: TypeUrl.Secret,
  runtimeLayers: TypeUrl.Runtime,
};

/** Each object path an api_listener reaches (itself, its route configuration, their clusters). */
function grpcReach(spec: ConfigSpec): Map<string, Set<string>> {
  const routeConfigurations = new Map(spec.routeConfigurations.map((r) => [r.name, r]));
  const reached = new Map<string, Set<string>>();
  const add = (object: string, listener: string) => {
    const listeners = reached.get(object) ?? new Set<string>();
    reached.set(object, listeners.add(listener));
  };
  for (const listener of spec.listeners) {
    if (!listener.apiListener) continue;
    add(listenerPath(listener.name), listener.name);
    const chain = listener.filterChains[0];
    const name = chain ? routeConfigurationName(chain) : null;
    const routeConfiguration = name === null ? undefined : routeConfigurations.get(name);
    if (!routeConfiguration) continue;
    add(routeConfigurationPath(routeConfiguration.name), listener.name);
    for (const virtualHost of routeConfiguration.virtualHosts)
      for (const route of virtualHost.routes)
        for (const target of routeTargets(route)) add(clusterPath(target.cluster), listener.name);
  }
  return reached;
}

/**
 * `issues` with `rejection` set on each predicted rejection that some node group's clients
 * receive (the rest unchanged, the same instances). Pure: the groups are read from `compiled`.
 */
export function withPredictedRejections(
  issues: readonly ValidationIssue[],
  spec: ConfigSpec,
  compiled: CompiledConfig,
): ValidationIssue[] {
  let reach: Map<string, Set<string>> | undefined;
  const groupsReceiving = (typeUrl: string, names: Iterable<string>): string[] => {
    const wanted = [...names];
    return compiled.groups
      .filter((group) => {
        const held = group.snapshot.resources(typeUrl);
        return wanted.some((name) => held.has(name));
      })
      .map((group) => group.name)
      .sort();
  };
  return issues.map((issue) => {
    const by = rejectedBy(issue.code);
    const object = by === undefined ? null : issueObject(issue.path);
    if (by === undefined || object === null) return issue;
    let nodeGroups: string[];
    if (by === "grpc") {
      reach ??= grpcReach(spec);
      nodeGroups = groupsReceiving(TypeUrl.Listener, reach.get(object.path) ?? []);
    } else {
      const typeUrl = OBJECT_TYPES[object.kind];
      nodeGroups = typeUrl === undefined ? [] : groupsReceiving(typeUrl, [object.name]);
    }
    if (nodeGroups.length === 0) return issue;
    const rejection: PredictedRejection = { by, nodeGroups };
    return { ...issue, rejection };
  });
}

/** One predicted rejection, for one node group: what the rejection gate compares. */
export interface RejectionEntry {
  readonly code: ValidationCode;
  readonly by: RejectingClient;
  readonly nodeGroup: string;
  /** The object at fault, as a path: `clusters["echo-v2"]`. */
  readonly object: string;
  /** The rule broken, in words (VALIDATION_CODES[code].summary). */
  readonly rule: string;
  /** The warning's own message and hint. */
  readonly message: string;
  readonly hint?: string;
}

/**
 * Every predicted rejection of `issues`, one per node group (issues without `rejection` are not
 * predicted rejections), each object and rule once per group, in issue order.
 */
export function predictedRejections(issues: readonly ValidationIssue[]): RejectionEntry[] {
  const entries = new Map<string, RejectionEntry>();
  for (const issue of issues) {
    if (issue.rejection === undefined) continue;
    const object = issueObject(issue.path)?.path ?? issue.path;
    for (const nodeGroup of issue.rejection.nodeGroups) {
      const entry: RejectionEntry = {
        code: issue.code,
        by: issue.rejection.by,
        nodeGroup,
        object,
        rule: VALIDATION_CODES[issue.code].summary,
        message: issue.message,
        ...(issue.hint === undefined ? {} : { hint: issue.hint }),
      };
      const key = rejectionKey(entry);
      if (!entries.has(key)) entries.set(key, entry);
    }
  }
  return [...entries.values()];
}

/** What makes two predicted rejections the same: rule, object and node group. */
export function rejectionKey(entry: Pick<RejectionEntry, "code" | "object" | "nodeGroup">): string {
  return JSON.stringify([entry.code, entry.object, entry.nodeGroup]);
}

/**
 * The predicted rejections of `draft` that `published` (the predicted rejections of the version
 * it replaces) does not have: those a publish of `draft` would add. A rejection the fleet already
 * lives with refuses nothing: it would otherwise block every unrelated publish until fixed.
 */
export function newRejections(
  draft: readonly RejectionEntry[],
  published: readonly RejectionEntry[],
): RejectionEntry[] {
  const before = new Set(published.map(rejectionKey));
  return draft.filter((entry) => !before.has(rejectionKey(entry)));
}

/**
 * `issues` with `rejection.alreadyPublished` set where every node group's rejection of it is
 * also among `published` (the version it replaces): a rejection that is no news.
 */
export function markPublishedRejections(
  issues: readonly ValidationIssue[],
  published: readonly RejectionEntry[],
): ValidationIssue[] {
  const before = new Set(published.map(rejectionKey));
  return issues.map((issue) => {
    if (issue.rejection === undefined) return issue;
    const object = issueObject(issue.path)?.path ?? issue.path;
    const old = issue.rejection.nodeGroups.every((nodeGroup) =>
      before.has(rejectionKey({ code: issue.code, object, nodeGroup })),
    );
    return { ...issue, rejection: { ...issue.rejection, alreadyPublished: old } };
  });
}
