/**
 * Envoy's admin config dump (`GET /config_dump`, an `envoy.admin.v3.ConfigDump`; the admin API's
 * "config_dump" page) → the resources Switchyard stores, with a note for every part left out and
 * why. What `istioctl proxy-config all -o json` prints is this dump as Envoy wrote it.
 *
 * Taken: the static and dynamic *active* listeners, clusters and route configurations, and the
 * endpoints of the EDS clusters (only in a dump made with `?include_eds`). Left out, each with a
 * note: warming, draining and refused (error_state) versions, which are not what serves traffic;
 * the bootstrap, whose static_resources are the same objects as the dump's static_* entries
 * (read from it only for a kind the dump holds no list of, as a `?mask=bootstrap` dump); static
 * route configurations, which are the inline route_config of the dump's listeners; the endpoints
 * Envoy resolved for clusters that are not EDS (they belong in the cluster's load_assignment);
 * scoped routes and ECDS filters, which Switchyard does not store; and secrets, which a dump
 * redacts and which are uploaded on their own (each named, with the command that uploads it).
 * Metadata (`version_info`, `last_updated`, `client_status`) is ignored.
 *
 * Also read: a dump filtered with `?mask=` (fewer fields, same shape) or `?resource=` (`configs`
 * then holds the entries themselves, e.g. `ClustersConfigDump.DynamicCluster`), one of the dump's
 * parts alone (`istioctl proxy-config secret -o json` prints a SecretsConfigDump), and a dump
 * wrapped in one or two levels of names (egctl prints `{ namespace: { pod: dump } }`).
 */

import type { DescMessage } from "@bufbuild/protobuf";
import { newestSchema } from "@switchyard/proto";
import {
  Bootstrap_StaticResourcesSchema,
  BootstrapSchema,
} from "@switchyard/proto/envoy/config/bootstrap/v3/bootstrap_pb";
import {
  type Cluster,
  Cluster_DiscoveryType,
} from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { fieldByKey } from "../envoy/envoy-proto-json.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import {
  decodeStaticResources,
  decodeTypedResource,
  emptyFindings,
  type Findings,
  type StaticKind,
} from "./envoy-import-decode-resource.js";
import {
  type Gathered,
  gatherDump,
  type Kind,
  type Taken,
  TYPE_OF,
} from "./envoy-import-dump-read.js";
import { isRecord, type Segment } from "./envoy-import-json.js";

/**
 * A config dump, one of its parts, or one of its entries: `desc` says which when the document has
 * no "@type". Its resources join `findings`, with a note for each part left out.
 */
export function decodeDump(
  json: Record<string, unknown>,
  at: readonly Segment[],
  findings: Findings,
  desc?: DescMessage,
): void {
  decodeGathered(gatherDump(json, at, findings, desc), at, findings);
}

function edsNameOf(cluster: Cluster): string | undefined {
  const discovery = cluster.clusterDiscoveryType;
  if (discovery.case !== "type" || discovery.value !== Cluster_DiscoveryType.EDS) return undefined;
  return cluster.edsClusterConfig?.serviceName || cluster.name;
}

/** `from`'s notes and errors into `into`, and the resources `keep` keeps. */
function moveFindings(
  from: Findings,
  into: Findings,
  keep: (found: Findings["resources"][number]) => boolean,
): void {
  into.errors.push(...from.errors);
  into.warnings.push(...from.warnings);
  into.infos.push(...from.infos);
  for (const found of from.resources) if (keep(found)) into.resources.push(found);
}

/** At most five names, then how many more. */
function someNames(names: readonly string[]): string {
  const shown = names.slice(0, 5).map((name) => `"${name}"`);
  return names.length > 5 ? `${shown.join(", ")} and ${names.length - 5} more` : shown.join(", ");
}

/** Decodes what a dump holds, deciding what of it is imported (the top of this file). */
function decodeGathered(gathered: Gathered, at: readonly Segment[], findings: Findings): void {
  const { taken, kinds } = gathered;
  const decode = (kind: Exclude<Kind, "secrets">, into: Findings, state?: Taken["state"]) => {
    for (const item of taken) {
      if (item.kind === kind && (state === undefined || item.state === state)) {
        decodeTypedResource(item.json, item.at, into, TYPE_OF[kind]);
      }
    }
  };
  const firstCluster = findings.resources.length;
  decode("clusters", findings);
  decode("listeners", findings);
  const hasListeners = kinds.has("listeners");
  if (hasListeners) {
    decode("routes", findings, "active");
    if (gathered.staticRoutes) {
      findings.infos.push({
        at: gathered.staticRoutes,
        message:
          "not imported: a dump's static route configurations are the inline route_config of its listeners, imported with them",
      });
    }
  } else {
    // No listeners to hold them: a named one is kept as a route configuration of its own; one
    // without a name could only ever be some listener's inline route_config.
    decode("routes", findings, "active");
    const routes = emptyFindings();
    decode("routes", routes, "static");
    moveFindings(routes, findings, (found) => {
      if (found.resource.typeUrl === TypeUrl.RouteConfiguration && found.resource.message.name) {
        return true;
      }
      findings.infos.push({
        at: found.at,
        message:
          "not imported: a static route configuration without a name is the inline route_config of a listener, which this dump does not hold",
      });
      return false;
    });
  }
  for (const bootstrap of gathered.bootstraps) decodeDumpBootstrap(bootstrap, taken, findings);
  const clusters = findings.resources
    .slice(firstCluster)
    .flatMap(({ resource }) => (resource.typeUrl === TypeUrl.Cluster ? [resource.message] : []));
  const edsNames = new Set(clusters.flatMap((cluster) => edsNameOf(cluster) ?? []));
  if (kinds.has("endpoints")) {
    const endpoints = emptyFindings();
    const withClusters = kinds.has("clusters");
    // Envoy lists the endpoints of the bootstrap's clusters as static: without the dump's
    // clusters to tell an EDS one, they are taken as what they almost always are, not EDS.
    decode("endpoints", endpoints, withClusters ? undefined : "active");
    const names = new Set(clusters.map((cluster) => cluster.name));
    const resolved: string[] = [];
    moveFindings(endpoints, findings, (found) => {
      const name =
        found.resource.typeUrl === TypeUrl.ClusterLoadAssignment
          ? found.resource.message.clusterName
          : "";
      // An assignment of a cluster the dump does not hold (a filtered dump) is kept: it is the
      // new endpoints of a stored EDS cluster, as a file of ClusterLoadAssignments is.
      if (edsNames.has(name) || !names.has(name)) return true;
      resolved.push(name);
      return false;
    });
    const bootstrapOnes = taken.filter((t) => t.kind === "endpoints" && t.state === "static");
    if (!withClusters && bootstrapOnes.length > 0) {
      findings.infos.push({
        at: gathered.endpoints ?? at,
        message: `not imported: the ${bootstrapOnes.length} static endpoint configurations, the endpoints of the bootstrap's clusters, which this dump does not hold`,
      });
    }
    if (resolved.length > 0) {
      findings.infos.push({
        at: gathered.endpoints ?? at,
        message: `not imported: the endpoints Envoy resolved for ${resolved.length} cluster${resolved.length === 1 ? "" : "s"} that are not EDS (${someNames(resolved)}): theirs are in each cluster's own load_assignment`,
      });
    }
  } else if (edsNames.size > 0) {
    findings.warnings.push({
      at,
      message: `this config dump holds no endpoints (Envoy adds them only to /config_dump?include_eds): its ${edsNames.size} EDS cluster${edsNames.size === 1 ? "" : "s"} (${someNames([...edsNames])}) get none from it, and one already stored keeps its own; dump with ?include_eds to import them`,
    });
  }
}

/**
 * A dump's BootstrapConfigDump: its static_resources are the dump's static_* entries, so a kind
 * is read from it only when the dump has no static entry of that kind (a dump filtered with
 * `?mask=bootstrap`, or `istioctl proxy-config bootstrap -o json`): the filter left them out.
 * Nothing else of a bootstrap is stored.
 */
function decodeDumpBootstrap(
  bootstrap: { readonly json: unknown; readonly at: readonly Segment[] },
  taken: readonly Taken[],
  findings: Findings,
): void {
  const json = isRecord(bootstrap.json) ? bootstrap.json : {};
  const key = Object.keys(json).find(
    (k) => fieldByKey(newestSchema(BootstrapSchema), k)?.name === "static_resources",
  );
  const resources = key !== undefined && isRecord(json[key]) ? json[key] : {};
  const inBootstrap = new Set(
    Object.entries(resources).flatMap(([k, value]) => {
      const name = fieldByKey(newestSchema(Bootstrap_StaticResourcesSchema), k)?.name;
      const empty = value === null || (Array.isArray(value) && value.length === 0);
      return name === undefined || empty ? [] : [name];
    }),
  );
  const missing = new Set<StaticKind>(
    (["listeners", "clusters", "secrets"] as const).filter(
      (kind) =>
        inBootstrap.has(kind) &&
        !taken.some((item) => item.kind === kind && item.state === "static"),
    ),
  );
  if (missing.size === 0 || key === undefined) {
    findings.infos.push({
      at: bootstrap.at,
      message:
        "not imported: the bootstrap Envoy started with (its static_resources are the dump's static_listeners, static_clusters and static_secrets; Switchyard stores nothing else of a bootstrap)",
    });
    return;
  }
  findings.infos.push({
    at: [...bootstrap.at, key],
    message: `the bootstrap's static ${[...missing].join(" and ")} are read from it: the dump has none of its own (it was filtered, with ?mask= or ?resource=); Switchyard stores nothing else of a bootstrap`,
  });
  decodeStaticResources(json[key], [...bootstrap.at, key], findings, missing, true);
}
