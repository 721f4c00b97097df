/**
 * Envoy admin config dumps (`/config_dump`, what `istioctl proxy-config all -o json` prints) read
 * by parseEnvoyConfig and importEnvoyConfig: what is taken (the active resources), what is left
 * out and said so, and that a dump of a configuration imports back as that configuration. The
 * dumps are built by @switchyard/testing/config-dump from resources Switchyard itself exports.
 */

import {
  configDump,
  type DumpContent,
  redactedTlsSecret,
  resourceDump,
} from "@switchyard/testing/config-dump";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { envoyResourceJson, exportEnvoyResources } from "../envoy/envoy-export.js";
import {
  clusterSpec,
  configSpec,
  endpointSpec,
  routeConfigurationSpec,
  socketListenerSpec,
} from "../fixtures.js";
import type { JsonObject } from "../model.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import {
  type ImportError,
  importEnvoyConfig,
  parseEnvoyConfig,
  resourceName,
} from "./envoy-import.js";

/** What a proxy holds: an EDS cluster with endpoints, a static one, a listener and its routes. */
const spec = configSpec({
  clusters: [
    clusterSpec("backend", [endpointSpec("10.0.0.1", 8080), endpointSpec("10.0.0.2", 8080)]),
    clusterSpec("static-one", [endpointSpec("10.0.1.1", 9000)], { discoveryType: "STATIC" }),
  ],
  routeConfigurations: [routeConfigurationSpec("edge-routes", "backend")],
  listeners: [socketListenerSpec("edge", 8080, "edge-routes")],
});

/** The spec's resources as Envoy JSON with "@type", by kind and name. */
const exported = exportEnvoyResources(spec).map(envoyResourceJson);
function resource(typeUrl: string, name: string): JsonObject {
  const found = exported.find(
    (r) => r["@type"] === typeUrl && (r.name === name || r.cluster_name === name),
  );
  if (!found) throw new Error(`no ${typeUrl} ${name} in the export`);
  return found;
}
const backend = resource(TypeUrl.Cluster, "backend");
const staticOne = resource(TypeUrl.Cluster, "static-one");
const backendEndpoints = resource(TypeUrl.ClusterLoadAssignment, "backend");
const edge = resource(TypeUrl.Listener, "edge");
const edgeRoutes = resource(TypeUrl.RouteConfiguration, "edge-routes");

/** The endpoints Envoy resolved for the static cluster, as `?include_eds` dumps them. */
const staticOneResolved: JsonObject = {
  "@type": TypeUrl.ClusterLoadAssignment,
  clusterName: "static-one",
  endpoints: [
    {
      locality: {},
      lbEndpoints: [
        {
          endpoint: {
            address: { socketAddress: { address: "10.0.1.1", portValue: 9000 } },
            healthCheckConfig: {},
          },
          healthStatus: "HEALTHY",
          loadBalancingWeight: 1,
        },
      ],
    },
  ],
};

/** A whole dump of `spec`'s proxy, made with `?include_eds`. */
const whole: DumpContent = {
  staticClusters: [staticOne],
  activeClusters: [backend],
  endpoints: { dynamic: [backendEndpoints, staticOneResolved] },
  listeners: [{ name: "edge", active: edge }],
  dynamicRoutes: [edgeRoutes],
};

function parsed(document: JsonObject, filename = "config_dump.json") {
  const result = parseEnvoyConfig(JSON.stringify(document), { filename });
  if ("errors" in result) throw new Error(JSON.stringify(result.errors, null, 2));
  return result;
}

function imported(document: JsonObject) {
  const { resources, warnings } = parsed(document);
  const result = importEnvoyConfig(resources);
  return { ...result, notes: [...warnings, ...result.issues] };
}

const errorsOf = (issues: readonly ImportError[]) =>
  issues.filter((issue) => issue.severity === "error");

/** Each resource of an export as "Kind name". */
function names(document: JsonObject): string[] {
  return parsed(document).resources.map(
    (r) => `${r.typeUrl.slice(r.typeUrl.lastIndexOf(".") + 1)} ${resourceName(r)}`,
  );
}

const noteAt = (notes: readonly ImportError[], path: string) =>
  notes.filter((note) => note.path === path).map((note) => note.message);

describe("an Envoy admin config dump", () => {
  it("imports as the active resources it holds: exporting the import gives back those resources", () => {
    const result = imported(configDump(whole));
    expect(errorsOf(result.issues)).toEqual([]);
    const again = exportEnvoyResources({ ...spec, ...result.spec }).map(envoyResourceJson);
    expect(again).toEqual(exported);
  });

  it("reads snake_case (Envoy's admin API) and camelCase (protojson, egctl) alike, in JSON or YAML", () => {
    const snake = names(configDump(whole));
    const camelDump = JSON.parse(
      JSON.stringify(configDump(whole)).replace(/"([a-z]+(?:_[a-z]+)+)":/g, (_, key: string) =>
        JSON.stringify(key.replace(/_([a-z])/g, (__, c: string) => c.toUpperCase())).concat(":"),
      ),
    );
    expect(names(camelDump)).toEqual(snake);
    const yaml = parseEnvoyConfig(stringify(configDump(whole)), { filename: "dump.yaml" });
    if ("errors" in yaml) throw new Error(JSON.stringify(yaml.errors));
    expect(yaml.resources).toHaveLength(snake.length);
  });

  it("ignores the metadata Envoy adds (version_info, last_updated, client_status): no note names it", () => {
    const { notes } = imported(configDump(whole));
    expect(notes.filter((n) => /version_info|last_updated|client_status/.test(n.path))).toEqual([]);
  });

  it("leaves out warming and draining versions and refused updates, naming each in a note, and imports the active version beside them", () => {
    const newer = { ...edge, perConnectionBufferLimitBytes: 1024 };
    const { spec: fragment, notes } = imported(
      configDump({
        ...whole,
        warmingClusters: [{ ...backend, name: "backend-v2" }],
        activeClusters: [
          { resource: backend, error: { details: "Proto constraint validation failed" } },
        ],
        listeners: [
          { name: "edge", active: edge, warming: newer, draining: edge },
          { name: "next", warming: { ...edge, name: "next" } },
          { name: "refused", error: { details: "address already in use" } },
        ],
      }),
    );
    expect(fragment.clusters.map((c) => c.name)).toEqual(["backend", "static-one"]);
    expect(fragment.listeners.map((l) => l.name)).toEqual(["edge"]);
    expect(fragment.listeners[0]?.extra).toEqual({});
    expect(noteAt(notes, "configs[0].dynamic_warming_clusters[0]")).toEqual([
      expect.stringMatching(/^not imported: a warming cluster is not serving traffic yet/),
    ]);
    expect(noteAt(notes, "configs[0].dynamic_active_clusters[0].error_state")).toEqual([
      "cluster: Envoy refused an update of it: Proto constraint validation failed; the active version is imported, not this one",
    ]);
    expect(noteAt(notes, "configs[2].dynamic_listeners[0].warming_state")).toEqual([
      'listener "edge": its update is warming (not serving traffic yet); the active version is imported, not this one',
    ]);
    expect(noteAt(notes, "configs[2].dynamic_listeners[0].draining_state")).toEqual([
      'listener "edge": a previous version of it is draining (being removed); the active version is imported, not this one',
    ]);
    expect(noteAt(notes, "configs[2].dynamic_listeners[1].warming_state")).toEqual([
      'not imported: listener "next" has no active version: its update is warming (not serving traffic yet)',
    ]);
    expect(noteAt(notes, "configs[2].dynamic_listeners[2].error_state")).toEqual([
      'not imported: listener "refused" has no active version: Envoy refused an update of it: address already in use',
    ]);
    const severities = new Map(notes.map((n) => [n.path, n.severity]));
    expect(severities.get("configs[2].dynamic_listeners[1].warming_state")).toBe("warning");
    expect(severities.get("configs[2].dynamic_listeners[0].draining_state")).toBe("info");
  });

  it("joins include_eds endpoints to their EDS clusters, and leaves out (with a note) those Envoy resolved for clusters that are not EDS", () => {
    const { spec: fragment, notes, assignments } = imported(configDump(whole));
    expect(fragment.clusters.find((c) => c.name === "backend")?.localities).toEqual(
      spec.clusters[0]?.localities,
    );
    expect(fragment.clusters.find((c) => c.name === "static-one")?.localities).toEqual(
      spec.clusters[1]?.localities,
    );
    expect(assignments).toEqual([]);
    expect(noteAt(notes, "configs[1]")).toEqual([
      `not imported: the endpoints Envoy resolved for 1 cluster that are not EDS ("static-one"): theirs are in each cluster's own load_assignment`,
    ]);
  });

  it("says, without include_eds, that the dump's EDS clusters get no endpoints from it", () => {
    const { endpoints: _, ...withoutEds } = whole;
    const { spec: fragment, notes, withoutAssignment } = imported(configDump(withoutEds));
    expect(fragment.clusters.find((c) => c.name === "backend")?.localities).toEqual([]);
    expect(withoutAssignment).toEqual(["backend"]);
    expect(noteAt(notes, "")).toEqual([
      'this config dump holds no endpoints (Envoy adds them only to /config_dump?include_eds): its 1 EDS cluster ("backend") get none from it, and one already stored keeps its own; dump with ?include_eds to import them',
    ]);
  });

  it("does not import the bootstrap twice: its static_resources are the dump's static entries", () => {
    const bootstrap = {
      node: { id: "edge-1" },
      static_resources: { clusters: [staticOne] },
      dynamic_resources: { ads_config: { api_type: "GRPC" } },
    };
    const { notes, spec: fragment } = imported(configDump({ ...whole, bootstrap }));
    expect(errorsOf(notes)).toEqual([]);
    expect(fragment.clusters.map((c) => c.name)).toEqual(["backend", "static-one"]);
    expect(noteAt(notes, "configs[0].bootstrap")).toEqual([
      "not imported: the bootstrap Envoy started with (its static_resources are the dump's static_listeners, static_clusters and static_secrets; Switchyard stores nothing else of a bootstrap)",
    ]);
  });

  it("reads a bootstrap's static_resources of the kinds a filtered dump (?mask=bootstrap) has no static entries of", () => {
    const { "@type": _, ...plain } = staticOne;
    const dump = configDump({
      bootstrap: { node: { id: "edge-1" }, static_resources: { clusters: [plain] } },
    });
    expect(names(dump)).toEqual(["Cluster static-one"]);
    expect(noteAt(imported(dump).notes, "configs[0].bootstrap.static_resources")).toEqual([
      "the bootstrap's static clusters are read from it: the dump has none of its own (it was filtered, with ?mask= or ?resource=); Switchyard stores nothing else of a bootstrap",
    ]);
  });

  it("does not import static route configurations twice: they are the inline route_config of the dump's listeners", () => {
    const inline = { ...edgeRoutes, name: "inline-routes" };
    const dump = configDump({ ...whole, staticRoutes: [inline] });
    expect(names(dump)).not.toContain("RouteConfiguration inline-routes");
    expect(noteAt(imported(dump).notes, "configs[3].static_route_configs")).toEqual([
      "not imported: a dump's static route configurations are the inline route_config of its listeners, imported with them",
    ]);
  });

  it("names each secret with the command that uploads it, imports none, and keeps the listener's SDS reference", () => {
    const withTls = {
      ...edge,
      filter_chains: [
        {
          ...(edge.filter_chains as JsonObject[])[0],
          transportSocket: {
            name: "envoy.transport_sockets.tls",
            typedConfig: {
              "@type":
                "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext",
              commonTlsContext: {
                tlsCertificateSdsSecretConfigs: [
                  { name: "edge-cert", sdsConfig: { ads: {}, resourceApiVersion: "V3" } },
                ],
              },
            },
          },
        },
      ],
    };
    const { spec: fragment, notes } = imported(
      configDump({
        ...whole,
        listeners: [{ name: "edge", active: withTls }],
        secrets: {
          active: [redactedTlsSecret("edge-cert", "-----BEGIN CERTIFICATE-----")],
          warming: [
            {
              "@type": "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret",
              name: "backend-ca",
              validation_context: { trusted_ca: { inline_string: "-----BEGIN CERTIFICATE-----" } },
            },
          ],
        },
      }),
    );
    expect(fragment.secrets).toEqual([]);
    expect(fragment.listeners[0]?.filterChains[0]?.tlsSecretName).toBe("edge-cert");
    expect(notes.filter((n) => n.message.startsWith("secret ")).map((n) => n.message)).toEqual([
      'secret "edge-cert" is a TLS certificate, not imported: a config dump shows it redacted. Upload it: switchyard secret create tls edge-cert --cert FILE --key FILE',
      'secret "backend-ca" is a validation context, not imported: a config dump shows it redacted. Upload it: switchyard secret create validation backend-ca --ca FILE',
    ]);
    expect(JSON.stringify(fragment)).not.toContain("[redacted]");
  });

  it("turns an inline certificate whose key the dump redacted into an SDS reference to a secret to upload", () => {
    const chain = (edge.filter_chains as JsonObject[])[0] as JsonObject;
    const inlineTls = {
      ...edge,
      filter_chains: [
        {
          ...chain,
          transportSocket: {
            name: "envoy.transport_sockets.tls",
            typedConfig: {
              "@type":
                "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext",
              commonTlsContext: {
                tlsCertificates: [
                  {
                    certificateChain: { inlineString: "-----BEGIN CERTIFICATE-----" },
                    privateKey: { inlineString: "[redacted]" },
                  },
                ],
              },
            },
          },
        },
      ],
    };
    const { spec: fragment, notes } = imported(
      configDump({ ...whole, listeners: [{ name: "edge", active: inlineTls }] }),
    );
    expect(errorsOf(notes)).toEqual([]);
    expect(fragment.secrets).toEqual([]);
    expect(fragment.listeners[0]?.filterChains[0]?.tlsSecretName).toBe("edge-tls");
    expect(notes.map((n) => n.message)).toContain(
      'the private key is redacted (as Envoy\'s config dump shows it): the certificate is named over SDS as secret "edge-tls" instead, which is not imported. Upload it: switchyard secret create tls edge-tls --cert FILE --key FILE',
    );
    expect(JSON.stringify(fragment)).not.toContain("[redacted]");
  });

  it("refuses any other redacted secret at its field: the value is not there to import", () => {
    const withFileKey = {
      ...backend,
      transportSocket: {
        name: "envoy.transport_sockets.tls",
        typedConfig: {
          "@type":
            "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext",
          commonTlsContext: {
            tlsCertificates: [
              {
                certificateChain: { filename: "/etc/certs/chain.pem" },
                privateKey: { filename: "/etc/certs/key.pem" },
                password: { inlineString: "[redacted]" },
              },
            ],
          },
        },
      },
    };
    const { issues } = imported(configDump({ ...whole, activeClusters: [withFileKey] }));
    expect(errorsOf(issues)).toEqual([
      expect.objectContaining({
        path: "configs[0].dynamic_active_clusters[0].cluster.transportSocket.typedConfig.commonTlsContext.tlsCertificates[0].password",
        message: expect.stringMatching(/^this secret is "\[redacted\]" \(Envoy's config dump/),
      }),
    ]);
  });

  it("reads a dump filtered with ?resource=: configs holding the entries themselves", () => {
    const dump = resourceDump("ClustersConfigDump.DynamicCluster", [
      { version_info: "7", cluster: backend, last_updated: "2026-01-29T10:00:00Z" },
    ]);
    expect(names(dump)).toEqual(["Cluster backend"]);
    const listeners = resourceDump("ListenersConfigDump.DynamicListener", [
      { name: "edge", active_state: { listener: edge }, warming_state: { listener: edge } },
    ]);
    expect(names(listeners)).toEqual(["Listener edge"]);
  });

  it("reads one part of a dump alone (istioctl proxy-config secret -o json prints a SecretsConfigDump)", () => {
    const [secrets] = (configDump({ secrets: { active: [redactedTlsSecret("default", "x")] } })
      .configs ?? []) as JsonObject[];
    const { "@type": _, ...alone } = secrets as JsonObject;
    const result = parsed(alone, "secrets.json");
    expect(result.resources).toEqual([]);
    expect(result.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/^secret "default" is a TLS certificate, not imported/),
    ]);
  });

  it("names the parts Switchyard does not store: scoped routes and ECDS filters", () => {
    const dump = configDump({
      ...whole,
      other: [
        {
          "@type": "type.googleapis.com/envoy.admin.v3.ScopedRoutesConfigDump",
          dynamic_scoped_route_configs: [{ name: "scopes", scoped_route_configs: [] }],
        },
        {
          "@type": "type.googleapis.com/envoy.admin.v3.EcdsConfigDump",
          ecds_filters: [{ version_info: "1" }],
        },
      ],
    });
    const { notes } = imported(dump);
    expect(noteAt(notes, "configs[3].dynamic_scoped_route_configs")).toEqual([
      "not imported: Switchyard does not store scoped routes (1 here); the listeners that use them are imported as they are",
    ]);
    expect(noteAt(notes, "configs[4].ecds_filters")).toEqual([
      "not imported: Switchyard does not store ECDS filters (1 here); the listeners that use them are imported as they are",
    ]);
  });

  it("warns of a field an entry has that the Envoy API Switchyard has does not, and reads the rest", () => {
    const dump = configDump(whole);
    const clusters = (dump.configs as JsonObject[])[0] as JsonObject;
    (clusters.static_clusters as JsonObject[])[0] = {
      ...((clusters.static_clusters as JsonObject[])[0] as JsonObject),
      resource_origin: "bootstrap",
    };
    const { notes, spec: fragment } = imported(dump);
    expect(fragment.clusters.map((c) => c.name)).toEqual(["backend", "static-one"]);
    expect(noteAt(notes, "configs[0].static_clusters[0].resource_origin")).toEqual([
      'not read: "resource_origin" is not a field of envoy.admin.v3.ClustersConfigDump.StaticCluster (added by the tool that wrote the dump, or by an Envoy newer than Switchyard\'s API)',
    ]);
  });

  it("reads a dump wrapped in names (egctl prints { namespace: { pod: dump } }), and refuses several proxies' dumps in one document", () => {
    const wrapped = { "envoy-gateway-system": { "envoy-default-eg-5f8c": configDump(whole) } };
    expect(names(wrapped)).toEqual(names(configDump(whole)));
    const two = {
      "envoy-gateway-system": { a: configDump(whole), b: configDump(whole) },
    };
    const result = parseEnvoyConfig(JSON.stringify(two), { filename: "egctl.json" });
    expect("errors" in result && result.errors.map((e) => e.message)).toEqual([
      "the document holds the config dumps of 2 proxies (envoy-gateway-system/a, envoy-gateway-system/b): import one proxy's dump at a time",
    ]);
  });
});
