import type { DescMessage } from "@bufbuild/protobuf";
import { newestSchema, schemaGeneration } from "@switchyard/proto";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { ClusterLoadAssignmentSchema } from "@switchyard/proto/envoy/config/endpoint/v3/endpoint_pb";
import { ListenerSchema } from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import { VirtualHostSchema } from "@switchyard/proto/envoy/config/route/v3/route_components_pb";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import { SecretSchema } from "@switchyard/proto/envoy/extensions/transport_sockets/tls/v3/secret_pb";
import { RuntimeSchema } from "@switchyard/proto/envoy/service/runtime/v3/rtds_pb";
import {
  clusterJson,
  clusterLoadAssignmentJson,
  edsResourceName,
  listenerJson,
  type OpenedSecret,
  routeConfigurationJson,
  runtimeJson,
  secretJson,
  vhdsVirtualHostJson,
} from "./envoy/envoy-json.js";
import { envoyFromBinary, envoyFromJson, envoyToBinary } from "./envoy/envoy-proto-json.js";
import { findReferences } from "./envoy/envoy-references.js";
import type {
  ConfigSpec,
  JsonObject,
  NodeGroupSpec,
  RouteConfigurationSpec,
  SecretSpec,
  VirtualHostSpec,
} from "./model.js";
import type { SecretOpener } from "./secret-box.js";
import { holdsValues } from "./secret-values.js";
import { encodeAssignmentFast, encodeClusterFast } from "./serving/fast-encode.js";
import {
  createResource,
  ResourceSnapshot,
  TypeUrl,
  type XdsResource,
} from "./serving/resource-snapshot.js";
import { splitVhdsName, vhdsResourceName } from "./serving/vhds.js";

/** A problem found while compiling, located by a path a user can follow. */
export interface ConfigIssue {
  /** Where: `clusters["backend"].connectTimeout`, `listeners["edge"]`, ... */
  readonly path: string;
  readonly message: string;
}

/** Which nodes a group serves (see NodeGroupSpec); the default group takes the rest. */
export interface NodeSelector {
  readonly nodeIds: readonly string[];
  readonly nodeClusters: readonly string[];
  readonly nodeMetadata: { readonly [key: string]: string };
}

export interface CompiledGroup {
  readonly name: string;
  readonly isDefault: boolean;
  readonly priority: number;
  readonly selector: NodeSelector;
  readonly snapshot: ResourceSnapshot;
}

export interface CompiledConfig {
  /** Sorted by priority then name; exactly one is the default. */
  readonly groups: readonly CompiledGroup[];
  readonly issues: readonly ConfigIssue[];
  /**
   * The secrets a cluster names that it may not use (CompileOptions.maySecretServe), so that no
   * node group gets them for it: validation warns of each. Absent in a config read back from
   * storage.
   */
  readonly withheldSecrets?: readonly WithheldSecret[];
}

/** An object that names a secret it may not use. */
export interface WithheldSecret {
  readonly secret: string;
  readonly referrer: SecretReferrer;
}

/** What names a secret that a node group would get: one of the group's clusters or listeners. */
export interface SecretReferrer {
  readonly kind: "cluster" | "listener";
  readonly name: string;
}

/** The group every node falls into when no node group is stored. */
export const DEFAULT_GROUP_NAME = "default";

function encode(
  schema: DescMessage,
  json: JsonObject,
  path: string,
  issues: ConfigIssue[],
): Uint8Array | undefined {
  try {
    return envoyToBinary(schema, envoyFromJson(schema, json));
  } catch (error) {
    issues.push({ path, message: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}

function routeClusterNames(routeConfiguration: RouteConfigurationSpec): string[] {
  return virtualHostClusterNames(routeConfiguration.virtualHosts);
}

function virtualHostClusterNames(virtualHosts: readonly VirtualHostSpec[]): string[] {
  const names = new Set<string>();
  for (const virtualHost of virtualHosts) {
    for (const route of virtualHost.routes) {
      if (route.actionKind === "CLUSTER" && route.cluster) names.add(route.cluster);
      if (route.actionKind === "WEIGHTED_CLUSTERS") {
        for (const weighted of route.weightedClusters) names.add(weighted.name);
      }
    }
  }
  return [...names].sort();
}

/**
 * Every stored object encoded once, keyed by type and name. Encoding dominates compile time, so
 * it happens here once, and node groups only select from the result.
 */
/**
 * Remembers what each spec object encoded to, so compiling a config where most objects are the
 * same instances as last time (the server's draft cache hands out unchanged objects as is)
 * encodes only what changed. Results never depend on the memo: it is keyed by object identity,
 * and specs are immutable.
 */
export type CompileMemo = WeakMap<
  object,
  {
    readonly resources: readonly XdsResource[];
    readonly issues: readonly ConfigIssue[];
    /** The schema generation it was encoded under: a newer Envoy API encodes anew. */
    readonly generation: number;
  }
>;

/** Encodes one object, or takes it from the memo; `encodeObject` appends to the lists it gets. */
function memoized(
  memo: CompileMemo | undefined,
  key: object | undefined,
  encodeObject: (resources: XdsResource[], issues: ConfigIssue[]) => void,
): { readonly resources: readonly XdsResource[]; readonly issues: readonly ConfigIssue[] } {
  const generation = schemaGeneration();
  const known = key === undefined ? undefined : memo?.get(key);
  if (known && known.generation === generation) return known;
  const result = { resources: [] as XdsResource[], issues: [] as ConfigIssue[], generation };
  encodeObject(result.resources, result.issues);
  if (key !== undefined) memo?.set(key, result);
  return result;
}

/**
 * The Secret resource of `secret`, its private key or values opened with `open`. Material that
 * cannot be opened (no secrets key, another key, altered) is an issue at its field, and the
 * secret is left out, as any resource that does not encode.
 */
function encodeSecret(
  secret: SecretSpec,
  open: SecretOpener | undefined,
  resources: XdsResource[],
  found: ConfigIssue[],
): void {
  const path = `secrets[${JSON.stringify(secret.name)}]`;
  /** The plaintext of the sealed text at `field`, or undefined with an issue there. */
  const opened = (field: string, what: string, sealed: string): string | undefined => {
    if (!open) {
      found.push({
        path: `${path}.${field}`,
        message: `${what} is sealed and no secrets key was given to open it`,
      });
      return undefined;
    }
    try {
      return open(sealed);
    } catch (error) {
      found.push({
        path: `${path}.${field}`,
        message: `${what} cannot be opened: ${error instanceof Error ? error.message : String(error)}`,
      });
      return undefined;
    }
  };
  let material: OpenedSecret = {};
  if (secret.type === "TLS_CERTIFICATE") {
    if (secret.privateKey === null) {
      found.push({
        path: `${path}.privateKey`,
        message: "a TLS certificate needs its private key",
      });
      return;
    }
    const privateKey = opened("privateKey", "the private key", secret.privateKey);
    if (privateKey === undefined) return;
    material = { privateKey };
  } else if (holdsValues(secret.type)) {
    const values: string[] = [];
    for (const [index, sealed] of secret.values.entries()) {
      const value = opened(`values[${index}]`, `value ${index + 1}`, sealed);
      if (value === undefined) return;
      values.push(value);
    }
    material = { values };
  }
  const body = encode(SecretSchema, secretJson(secret, material), path, found);
  if (body) resources.push(createResource(TypeUrl.Secret, secret.name, body, []));
}

function encodeAll(
  spec: ConfigSpec,
  issues: ConfigIssue[],
  memo: CompileMemo | undefined,
  open: SecretOpener | undefined,
): Map<string, XdsResource> {
  const all = new Map<string, XdsResource>();
  const collect = (result: {
    readonly resources: readonly XdsResource[];
    readonly issues: readonly ConfigIssue[];
  }) => {
    for (const resource of result.resources)
      all.set(`${resource.typeUrl}\u0000${resource.name}`, resource);
    issues.push(...result.issues);
  };
  const routeConfigurations = new Map(spec.routeConfigurations.map((rc) => [rc.name, rc]));
  const inlineRoutes = (name: string) => routeConfigurations.get(name);

  for (const cluster of spec.clusters) {
    collect(
      memoized(memo, cluster, (resources, found) => {
        const path = `clusters[${JSON.stringify(cluster.name)}]`;
        const eds = cluster.discoveryType === "EDS";
        const body =
          encodeClusterFast(cluster) ?? encode(ClusterSchema, clusterJson(cluster), path, found);
        if (body)
          resources.push(
            createResource(
              TypeUrl.Cluster,
              cluster.name,
              body,
              eds ? [edsResourceName(cluster)] : [],
            ),
          );
        if (eds) {
          const assignment =
            encodeAssignmentFast(cluster) ??
            encode(
              ClusterLoadAssignmentSchema,
              clusterLoadAssignmentJson(cluster),
              `${path}.endpoints`,
              found,
            );
          if (assignment)
            resources.push(
              createResource(
                TypeUrl.ClusterLoadAssignment,
                edsResourceName(cluster),
                assignment,
                [],
              ),
            );
        }
      }),
    );
  }
  for (const routeConfiguration of spec.routeConfigurations) {
    collect(
      memoized(memo, routeConfiguration, (resources, found) => {
        const path = `routeConfigurations[${JSON.stringify(routeConfiguration.name)}]`;
        const body = encode(
          RouteConfigurationSchema,
          routeConfigurationJson(routeConfiguration),
          path,
          found,
        );
        if (body) {
          // A VHDS route configuration still names every cluster its virtual hosts route to:
          // a node group that gets it gets those clusters, and they are checked for.
          resources.push(
            createResource(
              TypeUrl.RouteConfiguration,
              routeConfiguration.name,
              body,
              routeClusterNames(routeConfiguration),
            ),
          );
        }
        if (!routeConfiguration.vhds) return;
        // On-demand virtual hosts: one VirtualHost resource each, named
        // `<route configuration>/<virtual host>` (vhds.ts). Their domains are in the body: the
        // xDS server resolves a requested `<route configuration>/<host>` against them.
        routeConfiguration.virtualHosts.forEach((virtualHost, index) => {
          const vhost = encode(
            VirtualHostSchema,
            vhdsVirtualHostJson(routeConfiguration, virtualHost),
            `${path}.virtualHosts[${index}]`,
            found,
          );
          if (vhost)
            resources.push(
              createResource(
                TypeUrl.VirtualHost,
                vhdsResourceName(routeConfiguration.name, virtualHost.name),
                vhost,
                virtualHostClusterNames([virtualHost]),
              ),
            );
        });
      }),
    );
  }
  for (const listener of spec.listeners) {
    // A listener with inline routes also depends on those route configurations, and one loading
    // a VHDS route configuration gets the on_demand filter (envoy-json.ts): not memoized. A memo
    // entry is so only ever made without either, and stays right when a route configuration's
    // vhds is turned off again.
    const standalone = listener.filterChains.every(
      (chain) =>
        chain.inlineRouteConfigName === null &&
        (chain.rdsRouteConfigName === null || !inlineRoutes(chain.rdsRouteConfigName)?.vhds),
    );
    collect(
      memoized(memo, standalone ? listener : undefined, (resources, found) => {
        const path = `listeners[${JSON.stringify(listener.name)}]`;
        const body = encode(ListenerSchema, listenerJson(listener, inlineRoutes), path, found);
        const rds = listener.filterChains.flatMap((chain) =>
          chain.rdsRouteConfigName === null ? [] : [chain.rdsRouteConfigName],
        );
        if (body)
          resources.push(
            createResource(TypeUrl.Listener, listener.name, body, [...new Set(rds)].sort()),
          );
      }),
    );
  }
  for (const layer of spec.runtimeLayers) {
    collect(
      memoized(memo, layer, (resources, found) => {
        const path = `runtimeLayers[${JSON.stringify(layer.name)}]`;
        const body = encode(RuntimeSchema, runtimeJson(layer), path, found);
        if (body) resources.push(createResource(TypeUrl.Runtime, layer.name, body, []));
      }),
    );
  }
  for (const secret of spec.secrets) {
    // Memoized only with an opener: without one the result is an issue, not the resource.
    collect(
      memoized(open ? memo : undefined, secret, (resources, found) =>
        encodeSecret(secret, open, resources, found),
      ),
    );
  }
  return all;
}

/**
 * The SDS secrets a cluster or listener fetches over ADS: its modelled `tlsSecretName` and any
 * named in what `extra` keeps (a cluster's client certificate, a chain's several certificates),
 * found by the reference walk (envoy-references.ts). Read once per resource instance.
 */
const secretsOfResource = new WeakMap<XdsResource, readonly string[]>();

function secretsOf(resource: XdsResource): readonly string[] {
  let names = secretsOfResource.get(resource);
  if (!names) {
    const schema = resource.typeUrl === TypeUrl.Cluster ? ClusterSchema : ListenerSchema;
    names = [
      ...new Set(
        findReferences(newestSchema(schema), envoyFromBinary(schema, resource.body))
          .filter((reference) => reference.kind === "secret")
          .map((reference) => reference.name),
      ),
    ];
    secretsOfResource.set(resource, names);
  }
  return names;
}

/** Whether `referrer` may have `secret` served for it (CompileOptions.maySecretServe). */
type SecretUse = (secret: string, referrer: SecretReferrer) => boolean;

/**
 * The secrets the clusters and listeners among `resources` name and may use: what a node group
 * holding them gets. A private key goes to no node that does not use it, and to none for an
 * object not entitled to it (README, "Access control").
 */
function secretsFor(resources: Iterable<XdsResource>, mayUse: SecretUse | undefined): string[] {
  const names = new Set<string>();
  for (const resource of resources) {
    const kind =
      resource.typeUrl === TypeUrl.Cluster
        ? "cluster"
        : resource.typeUrl === TypeUrl.Listener
          ? "listener"
          : undefined;
    if (kind === undefined) continue;
    for (const secret of secretsOf(resource)) {
      if (!mayUse || mayUse(secret, { kind, name: resource.name })) names.add(secret);
    }
  }
  return [...names];
}

function withheldSecrets(
  all: Map<string, XdsResource>,
  mayUse: SecretUse | undefined,
): WithheldSecret[] {
  if (!mayUse) return [];
  const withheld: WithheldSecret[] = [];
  for (const resource of all.values()) {
    if (resource.typeUrl !== TypeUrl.Cluster && resource.typeUrl !== TypeUrl.Listener) continue;
    const referrer: SecretReferrer = {
      kind: resource.typeUrl === TypeUrl.Cluster ? "cluster" : "listener",
      name: resource.name,
    };
    for (const secret of secretsOf(resource)) {
      if (!mayUse(secret, referrer)) withheld.push({ secret, referrer });
    }
  }
  return withheld;
}

function groupSnapshot(
  all: Map<string, XdsResource>,
  group: NodeGroupSpec | undefined,
  mayUse: SecretUse | undefined,
): ResourceSnapshot {
  if (!group || group.isDefault) {
    // The default group gets every listener and cluster, and what they need: every resource but
    // the secrets no object of it may be served.
    const served = new Set(secretsFor(all.values(), mayUse));
    return new ResourceSnapshot(
      [...all.values()].filter((r) => r.typeUrl !== TypeUrl.Secret || served.has(r.name)),
    );
  }
  // A named group gets its listeners and clusters, and what those need: the route
  // configurations its listeners load over RDS and the assignments of its EDS clusters. Every
  // group gets every runtime layer: a proxy subscribes to the layers its bootstrap names (RTDS is
  // by name only), so selecting them here would only add a way to get it wrong (model.ts). A
  // group gets only the secrets its own clusters and listeners name: a private key goes to no node
  // that does not use it.
  const listeners = new Set(group.listeners);
  const clusters = new Set(group.clusters);
  const wanted = (resource: XdsResource): boolean => {
    switch (resource.typeUrl) {
      case TypeUrl.Listener:
        return listeners.has(resource.name);
      case TypeUrl.Cluster:
        return clusters.has(resource.name);
      case TypeUrl.Runtime:
        return true;
      default:
        return false;
    }
  };
  const selected = [...all.values()].filter(wanted);
  const dependents = new Map<string, readonly string[]>([
    [
      TypeUrl.ClusterLoadAssignment,
      selected.filter((r) => r.typeUrl === TypeUrl.Cluster).flatMap((r) => r.references),
    ],
    [
      TypeUrl.RouteConfiguration,
      selected.filter((r) => r.typeUrl === TypeUrl.Listener).flatMap((r) => r.references),
    ],
  ]);
  dependents.set(TypeUrl.Secret, secretsFor(selected, mayUse));
  for (const [typeUrl, names] of dependents) {
    for (const name of new Set(names)) {
      const resource = all.get(`${typeUrl}\u0000${name}`);
      if (resource) selected.push(resource);
    }
  }
  // The on-demand virtual hosts of the group's route configurations (VHDS).
  const routeConfigurations = new Set(dependents.get(TypeUrl.RouteConfiguration));
  for (const resource of all.values()) {
    if (resource.typeUrl !== TypeUrl.VirtualHost) continue;
    const owner = splitVhdsName(resource.name)?.routeConfiguration;
    if (owner !== undefined && routeConfigurations.has(owner)) selected.push(resource);
  }
  return new ResourceSnapshot(selected);
}

export interface CompileOptions {
  readonly memo?: CompileMemo;
  /**
   * Opens the sealed material of secrets: TLS certificates' private keys and the values of generic
   * secrets and session ticket keys (SecretSpec.privateKey, SecretSpec.values). Without it, each
   * such secret is an issue and left out; a spec without one compiles the same either way.
   */
  readonly openSecret?: SecretOpener;
  /**
   * Whether an object may have a secret it names served for it: a team's cluster only its team's
   * secrets and those shared with it (the server's grants, auth/grants.ts). Unset: every object
   * may use every secret, as an admin's do.
   */
  readonly maySecretServe?: SecretUse;
}

/**
 * Compiles the stored configuration into one immutable snapshot per node group. Pure: the same
 * spec gives byte-identical resources (and so identical versions) on every replica.
 *
 * Encoding problems are returned as issues (the affected resource is left out) rather than thrown,
 * so validation can report every problem at once.
 */
export function compile(spec: ConfigSpec, options: CompileOptions = {}): CompiledConfig {
  const issues: ConfigIssue[] = [];
  const all = encodeAll(spec, issues, options.memo, options.openSecret);
  const stored = [...spec.nodeGroups].sort(
    (a, b) => a.priority - b.priority || (a.name < b.name ? -1 : 1),
  );
  const groups: CompiledGroup[] = stored.map((group) => ({
    name: group.name,
    isDefault: group.isDefault,
    priority: group.priority,
    selector: {
      nodeIds: group.nodeIds,
      nodeClusters: group.nodeClusters,
      nodeMetadata: group.nodeMetadata,
    },
    snapshot: groupSnapshot(all, group, options.maySecretServe).withMaxResponseBytes(
      group.maxResponseBytes,
    ),
  }));
  if (!groups.some((group) => group.isDefault)) {
    groups.push({
      name: DEFAULT_GROUP_NAME,
      isDefault: true,
      priority: Number.MAX_SAFE_INTEGER,
      selector: { nodeIds: [], nodeClusters: [], nodeMetadata: {} },
      snapshot: groupSnapshot(all, undefined, options.maySecretServe),
    });
  }
  return { groups, issues, withheldSecrets: withheldSecrets(all, options.maySecretServe) };
}
