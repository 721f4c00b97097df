/**
 * The checks that read the compiled Envoy resources rather than the model: every constraint
 * Envoy's protos declare and every RE2 regex (envoy-rules.ts), the names any field of any filter
 * or extension refers to (envoy-references.ts: a tcp_proxy's cluster, an ext_authz gRPC service,
 * a tracer's collector, an SDS secret in a TLS context kept in `extra`, ...), and what a named node
 * group must receive for those references to resolve. Each finding is reported at the model field
 * that holds it (envoy-model-path.ts).
 *
 * Each resource is read once per instance: the compiler hands out the same resource for an object
 * that did not change (CompileMemo), so validating a draft again after a one-route change reads
 * one route configuration, not the whole config.
 */
import { type DescMessage, fromBinary } from "@bufbuild/protobuf";
import { registry, schemaGeneration } from "@switchyard/proto";
import { quotedInput } from "../bounded-text.js";
import type { CompiledConfig } from "../compile.js";
import { inlineSecretsIn } from "../envoy/envoy-data-sources.js";
import { edsResourceName } from "../envoy/envoy-json.js";
import {
  assignmentModelPath,
  clusterModelPath,
  listenerModelPath,
  routeConfigurationModelPath,
  virtualHostModelPath,
} from "../envoy/envoy-model-path.js";
import { type EnvoyReference, findReferences } from "../envoy/envoy-references.js";
import type { Segment } from "../envoy/envoy-walk.js";
import type { ClusterSpec, SecretType } from "../model.js";
import { assignmentEncodesFast, clusterEncodesFast } from "../serving/fast-encode.js";
import { shortType, TypeUrl, type XdsResource } from "../serving/resource-snapshot.js";
import { splitVhdsName } from "../serving/vhds.js";
import { checkRules, type RuleViolation } from "./envoy-rules.js";
import { didYouMean, type ValidationContext } from "./validate-context.js";
import { nodeGroupPath, pathPrefixes, runtimeLayerPath, secretPath } from "./validate-path.js";
import { SECRET_TYPE_WORDS } from "./validate-secrets.js";

/** A name or value as a message quotes it: cut when long (bounded-text.ts quotedInput). */
const quote = quotedInput;

/** What one compiled resource holds that the checks here look at. */
interface Findings {
  readonly violations: readonly RuleViolation[];
  readonly references: readonly EnvoyReference[];
  /** Extensions sent unchecked: their path and type URL. */
  readonly opaque: readonly { readonly at: readonly Segment[]; readonly typeUrl: string }[];
  /** Secrets written inline: where a field Envoy marks sensitive holds inline data. */
  readonly inlineSecrets: readonly (readonly Segment[])[];
}

/**
 * Findings by resource version (a hash of the type and the encoded body): the same content has
 * the same findings, whichever compile made it. Bounded: the oldest entries go first.
 */
const findingsOf = new Map<string, Findings>();
const MAX_REMEMBERED = 200_000;
const NOTHING: Findings = { violations: [], references: [], opaque: [], inlineSecrets: [] };

function schemaOf(typeUrl: string): DescMessage | undefined {
  return registry.getMessage(typeUrl.slice(typeUrl.lastIndexOf("/") + 1));
}

function decoded(schema: DescMessage, body: Uint8Array) {
  try {
    return fromBinary(schema, body, { readUnknownFields: false });
  } catch {
    return undefined;
  }
}

/** The schema generation the remembered findings were read under (rules come with the schema). */
let findingsGeneration = schemaGeneration();

function read(resource: XdsResource): Findings {
  if (findingsGeneration !== schemaGeneration()) {
    findingsOf.clear();
    findingsGeneration = schemaGeneration();
  }
  const known = findingsOf.get(resource.version);
  if (known) return known;
  const schema = schemaOf(resource.typeUrl);
  let findings: Findings = NOTHING;
  // validate is total: a body that does not decode (only a broken caller makes one) is not read.
  const message = schema && decoded(schema, resource.body);
  if (schema && message) {
    const opaque: { at: readonly Segment[]; typeUrl: string }[] = [];
    const violations = checkRules(schema, message, {
      opaque: (at, extension) => {
        if (extension.t === "unknown-type")
          opaque.push({ at: [...at], typeUrl: extension.typeUrl });
      },
    });
    findings = {
      violations,
      references: findReferences(schema, message),
      opaque,
      // A Secret resource holds its key inline by design: compiled from a sealed secret.
      inlineSecrets: resource.typeUrl === TypeUrl.Secret ? [] : inlineSecretsIn(schema, message),
    };
  }
  const { violations, references, opaque, inlineSecrets } = findings;
  if (violations.length + references.length + opaque.length + inlineSecrets.length === 0) {
    findings = NOTHING;
  }
  if (findingsOf.size >= MAX_REMEMBERED) {
    const oldest = findingsOf.keys().next().value;
    if (oldest !== undefined) findingsOf.delete(oldest);
  }
  findingsOf.set(resource.version, findings);
  return findings;
}

/** Where a resource's fields are in the model; undefined for a resource no object makes. */
type PathOf = (at: readonly Segment[]) => string;

function modelPaths(ctx: ValidationContext): (resource: XdsResource) => PathOf | undefined {
  const byAssignment = new Map<string, ClusterSpec>();
  for (const cluster of ctx.spec.clusters) {
    if (cluster.discoveryType === "EDS" && !byAssignment.has(edsResourceName(cluster))) {
      byAssignment.set(edsResourceName(cluster), cluster);
    }
  }
  const inlineRoutes = (name: string) => ctx.routeConfigurations.get(name);
  return (resource) => {
    switch (resource.typeUrl) {
      case TypeUrl.Cluster: {
        const cluster = ctx.clusters.get(resource.name);
        return cluster && ((at) => clusterModelPath(cluster, at));
      }
      case TypeUrl.ClusterLoadAssignment: {
        const cluster = byAssignment.get(resource.name);
        return cluster && ((at) => assignmentModelPath(cluster, at));
      }
      case TypeUrl.Listener: {
        const listener = ctx.listeners.get(resource.name);
        return listener && ((at) => listenerModelPath(listener, at, inlineRoutes));
      }
      case TypeUrl.RouteConfiguration: {
        const routes = ctx.routeConfigurations.get(resource.name);
        return routes && ((at) => routeConfigurationModelPath(routes, at));
      }
      case TypeUrl.VirtualHost: {
        const split = splitVhdsName(resource.name);
        const routes = split && ctx.routeConfigurations.get(split.routeConfiguration);
        const virtualHost = routes?.virtualHosts.find((v) => v.name === split?.host);
        return (
          routes && virtualHost && ((at) => virtualHostModelPath(routes.name, virtualHost, at))
        );
      }
      case TypeUrl.Secret:
        return () => secretPath(resource.name);
      case TypeUrl.Runtime:
        return () => runtimeLayerPath(resource.name);
      default:
        return undefined;
    }
  };
}

/**
 * The clusters and assignments written from modelled fields only (fast-encode.ts): every field
 * they hold is one validation checks itself (names, timeouts, addresses, ports, weights,
 * priorities, enums the model defines), and they refer to nothing but their own assignment, so
 * they are not decoded and read again here: with tens of thousands of clusters, decoding them
 * would be most of the cost of validating. validate-fast-path.spec.ts checks that the structural
 * checks find every violation of Envoy's rules such a resource can hold.
 */
function modelledOnlyResources(ctx: ValidationContext): (resource: XdsResource) => boolean {
  const byAssignment = new Map<string, ClusterSpec>();
  for (const cluster of ctx.spec.clusters) byAssignment.set(edsResourceName(cluster), cluster);
  return (resource) => {
    if (resource.typeUrl === TypeUrl.Cluster) {
      const cluster = ctx.clusters.get(resource.name);
      return cluster !== undefined && clusterEncodesFast(cluster);
    }
    if (resource.typeUrl === TypeUrl.ClusterLoadAssignment) {
      const cluster = byAssignment.get(resource.name);
      return cluster !== undefined && assignmentEncodesFast(cluster);
    }
    return false;
  };
}

/** A listener's inline route configuration is checked as a route configuration of its own. */
function inInlineRoutes(resource: XdsResource, at: readonly Segment[]): boolean {
  return resource.typeUrl === TypeUrl.Listener && at.includes("routeConfig");
}

function describeResource(resource: XdsResource): string {
  return `${shortType(resource.typeUrl)} ${quote(resource.name)}`;
}

/**
 * Every rule violation, unchecked extension and dangling reference in the resources the compiler
 * made of the draft (the default group holds them all), then the node groups' closure.
 */
export function checkEnvoyResources(ctx: ValidationContext, compiled: CompiledConfig): void {
  const all = compiled.groups.find((group) => group.isDefault)?.snapshot;
  if (!all) return;
  // A field already reported as an error (a port out of range, a bad regex in matchValue) is not
  // reported again by the rule that also forbids it.
  const explained = new Set<string>();
  for (const issue of ctx.issues.found) {
    if (issue.severity === "error")
      for (const prefix of pathPrefixes(issue.path)) explained.add(prefix);
  }
  const pathsOf = modelPaths(ctx);
  const modelledOnly = modelledOnlyResources(ctx);
  const secretTypes = new Map<string, SecretType>();
  for (const secret of ctx.spec.secrets)
    if (!secretTypes.has(secret.name)) secretTypes.set(secret.name, secret.type);
  const reported = new Set<string>();
  const once = (key: string): boolean => {
    if (reported.has(key)) return false;
    reported.add(key);
    return true;
  };
  for (const typeUrl of Object.values(TypeUrl)) {
    for (const resource of all.resources(typeUrl).values()) {
      const pathOf = pathsOf(resource);
      if (!pathOf || modelledOnly(resource)) continue;
      const findings = read(resource);
      for (const violation of findings.violations) {
        if (inInlineRoutes(resource, violation.at)) continue;
        const path = pathOf(violation.at);
        if (explained.has(path) || !once(`${path}\u0000${violation.message}`)) continue;
        ctx.issues.add(
          "envoy-rule",
          path,
          `${describeResource(resource)}: Envoy refuses this value: ${violation.message}`,
          `Envoy's rule: ${violation.rule}`,
        );
      }
      for (const at of findings.inlineSecrets) {
        const path = pathOf(at);
        if (!once(`inline\u0000${path}`)) continue;
        ctx.issues.add(
          "inline-secret",
          path,
          `${describeResource(resource)} holds a private key or another secret inline here, which would be stored as it is and shown back by every read of it`,
          "upload it as a secret (switchyard secret create, the console's Secrets page) and name it over SDS; importing the config moves an inline TLS certificate to a sealed secret itself",
        );
      }
      for (const { at, typeUrl: type } of findings.opaque) {
        const path = pathOf(at);
        if (!once(`opaque\u0000${path}`)) continue;
        ctx.issues.add(
          "unvalidated-extension",
          path,
          `${describeResource(resource)} holds ${type.slice(type.lastIndexOf("/") + 1)}, an extension Switchyard has no schema for (a contrib or third-party filter): it is sent as written, as a TypedStruct Envoy converts itself, and is not checked here`,
        );
      }
      for (const reference of findings.references) {
        if (inInlineRoutes(resource, reference.at)) continue;
        const path = pathOf(reference.at);
        if (explained.has(path)) continue;
        if (reference.kind === "cluster" && !ctx.clusters.has(reference.name)) {
          if (!once(`dangling\u0000${path}`)) continue;
          ctx.issues.add(
            "dangling-cluster-reference",
            path,
            `${describeResource(resource)} sends traffic to cluster ${quote(reference.name)}, which does not exist${didYouMean(ctx.suggest.cluster(reference.name))}`,
            "create the cluster, or name an existing one",
          );
        } else if (reference.kind === "secret") {
          const type = secretTypes.get(reference.name);
          const wanted = reference.secretType;
          if (type === undefined) {
            if (!once(`dangling\u0000${path}`)) continue;
            ctx.issues.add(
              "dangling-secret-reference",
              path,
              `${describeResource(resource)} fetches SDS secret ${quote(reference.name)}, which does not exist: Envoy would wait for it, and the ${shortType(resource.typeUrl)} would never become ready`,
              "create the secret (switchyard secret create, or the console's Secrets page), or name an existing one",
            );
          } else if (wanted !== undefined && wanted !== type) {
            // The field names the kind it takes (envoy-secret-fields.ts); Envoy reads only that
            // member of the Secret, so another kind is never ready, or fails when applied.
            if (!once(`mismatch\u0000${path}`)) continue;
            ctx.issues.add(
              "secret-type-mismatch",
              path,
              `${describeResource(resource)} takes ${SECRET_TYPE_WORDS[wanted]} here, but SDS secret ${quote(reference.name)} is ${SECRET_TYPE_WORDS[type]}`,
              `name a secret that is ${SECRET_TYPE_WORDS[wanted]} here, or create one (switchyard secret create)`,
            );
          }
        }
      }
    }
  }
  checkGroupClosure(ctx, compiled, modelledOnly);
}

/**
 * A named node group receives only its own listeners and clusters (compile.ts, groupSnapshot):
 * every cluster they refer to (a route's target, a tcp_proxy's, an ext_authz or tracer service,
 * an aggregate cluster's members) must be among them, or its nodes would hold a reference to a
 * cluster they do not have. The default group receives everything, so it cannot miss one.
 */
function checkGroupClosure(
  ctx: ValidationContext,
  compiled: CompiledConfig,
  modelledOnly: (resource: XdsResource) => boolean,
): void {
  for (const group of compiled.groups) {
    if (group.isDefault) continue;
    const received = new Set(group.snapshot.resources(TypeUrl.Cluster).keys());
    const reported = new Set<string>();
    for (const typeUrl of [
      TypeUrl.Listener,
      TypeUrl.RouteConfiguration,
      TypeUrl.VirtualHost,
      TypeUrl.Cluster,
    ]) {
      for (const resource of group.snapshot.resources(typeUrl).values()) {
        if (modelledOnly(resource)) continue;
        for (const reference of read(resource).references) {
          const name = reference.name;
          if (reference.kind !== "cluster" || received.has(name) || reported.has(name)) continue;
          // A cluster that does not exist at all is reported where it is named.
          if (!ctx.clusters.has(name)) continue;
          reported.add(name);
          ctx.issues.add(
            "node-group-missing-cluster",
            `${nodeGroupPath(group.name)}.clusters`,
            `node group ${quote(group.name)} receives ${describeResource(resource)}, which sends traffic to cluster ${quote(name)}, but not that cluster, so its nodes would hold a reference to a cluster they do not have`,
            `add cluster ${quote(name)} to the group`,
          );
        }
      }
    }
  }
}
