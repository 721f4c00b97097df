/**
 * Lists read as Envoy and the tools around it write them: resources of one type without "@type"
 * (Envoy Gateway's listeners.yaml, clusters.yaml, ...; `istioctl proxy-config cluster -o json`),
 * read when the caller names the type and refused, saying how, when nobody does; and a single
 * value where a document's own list is expected (`static_resources.clusters: { name: ... }`),
 * read as a list of one as Envoy's JSON reading does.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configDump } from "@switchyard/testing/config-dump";
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
import {
  importEnvoyConfig,
  type ParseOptions,
  parseEnvoyConfig,
  RESOURCE_LIST_TYPES,
  type ResourceListType,
  resourceListTypeOfFile,
  resourceName,
} from "./envoy-import.js";

const spec = configSpec({
  clusters: [clusterSpec("backend", [endpointSpec("10.0.0.1", 8080)])],
  routeConfigurations: [routeConfigurationSpec("edge-routes", "backend")],
  listeners: [socketListenerSpec("edge", 8080, "edge-routes")],
});

/** The spec's resources of `type`, as Envoy Gateway writes them: no "@type", camelCase keys. */
function untyped(type: ResourceListType): JsonObject[] {
  return exportEnvoyResources(spec)
    .filter((resource) => resource.typeUrl === RESOURCE_LIST_TYPES[type])
    .map((resource) => {
      const { "@type": _, ...rest } = envoyResourceJson(resource);
      return rest;
    });
}

function read(text: string, options: ParseOptions = {}) {
  const result = parseEnvoyConfig(text, { filename: "list.yaml", ...options });
  if ("errors" in result) throw new Error(JSON.stringify(result.errors, null, 2));
  return result;
}

const kinds = (text: string, options: ParseOptions = {}) =>
  read(text, options).resources.map((r) => `${r.typeUrl.split(".").at(-1)} ${resourceName(r)}`);

describe("a list of resources without @type", () => {
  const cases: readonly [ResourceListType, string][] = [
    ["listeners", "Listener edge"],
    ["clusters", "Cluster backend"],
    ["routes", "RouteConfiguration edge-routes"],
    ["endpoints", "ClusterLoadAssignment backend"],
  ];
  for (const [type, expected] of cases) {
    it(`is read as ${type} when the caller names that type`, () => {
      expect(kinds(stringify(untyped(type)), { resourceType: type })).toEqual([expected]);
    });
  }

  it("is refused when nobody names its type, saying to pass --type and which types it takes", () => {
    const result = parseEnvoyConfig(stringify(untyped("clusters")), { filename: "clusters.yaml" });
    expect("errors" in result && result.errors).toEqual([
      expect.objectContaining({
        path: "",
        message:
          'these resources have no "@type": name their type (switchyard apply --type, ImportRequest.resource_type, the console\'s "Resource type"), one of listeners, clusters, routes, endpoints or secrets',
      }),
    ]);
  });

  it("reads an item that names its own @type as that type, whatever type the list is given", () => {
    const [listener] = exportEnvoyResources(spec)
      .filter((r) => r.typeUrl === RESOURCE_LIST_TYPES.listeners)
      .map(envoyResourceJson);
    const text = stringify([...untyped("clusters"), listener]);
    expect(kinds(text, { resourceType: "clusters" })).toEqual(["Cluster backend", "Listener edge"]);
  });

  it("reads a single resource without @type as one of the named type", () => {
    expect(kinds(stringify(untyped("clusters")[0]), { resourceType: "clusters" })).toEqual([
      "Cluster backend",
    ]);
  });

  it("reads { resources: [...] } without @type as the named type, or the response's type_url", () => {
    const resources = untyped("routes");
    expect(kinds(stringify({ resources }), { resourceType: "routes" })).toEqual([
      "RouteConfiguration edge-routes",
    ]);
    const response = { type_url: RESOURCE_LIST_TYPES.routes, resources };
    expect(kinds(stringify(response))).toEqual(["RouteConfiguration edge-routes"]);
  });

  it("gives each document the type named for it (a file of a set), over the type named for all", () => {
    const text = `${stringify(untyped("clusters"))}---\n${stringify(untyped("listeners"))}`;
    const documentTypes = new Map<number, ResourceListType>([[1, "listeners"]]);
    expect(kinds(text, { resourceType: "clusters", documentTypes })).toEqual([
      "Cluster backend",
      "Listener edge",
    ]);
  });

  it("refuses a type given for a document the text does not hold", () => {
    const result = parseEnvoyConfig(stringify(untyped("clusters")), {
      resourceType: "clusters",
      documentTypes: new Map([[2, "clusters"]]),
    });
    expect("errors" in result && result.errors.map((e) => e.message)).toEqual([
      "a type is given for document 2 (from 0), but the text holds 1 document",
    ]);
  });

  it("leaves the other shapes alone under a named type: a bootstrap is still a bootstrap", () => {
    const bootstrap = stringify({ static_resources: { clusters: untyped("clusters") } });
    expect(kinds(bootstrap, { resourceType: "listeners" })).toEqual(["Cluster backend"]);
  });

  it("reads each secret of a secrets list as a Secret, typed or not (the import seals them)", () => {
    const secrets = [
      {
        name: "edge-cert",
        tlsCertificate: {
          certificateChain: { inlineBytes: "Y2VydA==" },
          privateKey: { inlineBytes: "a2V5" },
        },
      },
      { name: "ca", validationContext: { trustedCa: { inlineBytes: "Y2E=" } } },
      { name: "hmac", genericSecret: { secret: { inlineString: "s" } } },
      {
        "@type": "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret",
        name: "typed-ca",
        validationContext: { trustedCa: { inlineBytes: "Y2E=" } },
      },
    ];
    expect(kinds(stringify(secrets), { resourceType: "secrets" })).toEqual([
      "Secret edge-cert",
      "Secret ca",
      "Secret hmac",
      "Secret typed-ca",
    ]);
  });
});

describe("a single value where a document's own list is expected", () => {
  const ONE_NOTE = (name: string) =>
    `${name} is a list: a single value is read as a list of one, as Envoy reads it`;
  const [cluster] = untyped("clusters");
  const [listener] = untyped("listeners");
  const typed = (json: JsonObject | undefined, typeUrl: string) => ({ "@type": typeUrl, ...json });
  const cases: readonly {
    readonly rule: string;
    readonly document: JsonObject;
    readonly at: string;
    readonly list: string;
  }[] = [
    {
      rule: "static_resources.clusters: one cluster",
      document: { static_resources: { clusters: cluster as JsonObject } },
      at: "static_resources.clusters",
      list: "clusters",
    },
    {
      rule: "static_resources.listeners: one listener",
      document: { static_resources: { listeners: listener as JsonObject } },
      at: "static_resources.listeners",
      list: "listeners",
    },
    {
      rule: "bare static_resources' clusters: one cluster",
      document: { clusters: cluster as JsonObject },
      at: "clusters",
      list: "clusters",
    },
    {
      rule: "a DiscoveryResponse's resources: one resource",
      document: { resources: typed(cluster, RESOURCE_LIST_TYPES.clusters) },
      at: "resources",
      list: "resources",
    },
    {
      rule: "a config dump's configs: one part",
      document: {
        configs: (
          configDump({ staticClusters: [typed(cluster, RESOURCE_LIST_TYPES.clusters)] })
            .configs as JsonObject[]
        )[0] as JsonObject,
      },
      at: "configs",
      list: "configs",
    },
    {
      rule: "a config dump's dynamic_active_clusters: one entry",
      document: {
        configs: [
          {
            "@type": "type.googleapis.com/envoy.admin.v3.ClustersConfigDump",
            dynamic_active_clusters: { cluster: typed(cluster, RESOURCE_LIST_TYPES.clusters) },
          },
        ],
      },
      at: "configs[0].dynamic_active_clusters",
      list: "dynamic_active_clusters",
    },
  ];
  for (const { rule, document, at, list } of cases) {
    it(`is read as a list of one, with Envoy's note: ${rule}`, () => {
      const result = read(JSON.stringify(document), { filename: "config.json" });
      expect(result.resources).toHaveLength(1);
      expect(result.warnings).toContainEqual(
        expect.objectContaining({ severity: "info", path: at, message: ONE_NOTE(list) }),
      );
    });
  }

  const VRP = fileURLToPath(
    new URL(
      "../../../../../shared/corpus/envoy-configs/configs/google-vrp/envoy-edge.yaml",
      import.meta.url,
    ),
  );
  it("imports the Google VRP edge bootstrap of Envoy's repository, whose static_resources.clusters is one cluster", () => {
    if (!existsSync(VRP)) {
      throw new Error(
        `the Envoy configs corpus is not at ${VRP} (../shared/corpus beside the repository)`,
      );
    }
    const result = read(readFileSync(VRP, "utf8"), { filename: "envoy-edge.yaml" });
    expect(result.warnings).toContainEqual(
      expect.objectContaining({ path: "static_resources.clusters", message: ONE_NOTE("clusters") }),
    );
    const { spec: fragment, issues } = importEnvoyConfig(result.resources);
    expect(issues.filter((i) => i.severity === "error")).toEqual([]);
    expect(fragment.clusters.map((c) => c.name)).toEqual(["service_foo"]);
    expect(fragment.listeners.map((l) => l.name)).toEqual(["listener_https"]);
  });
});

describe("the type a file's name says", () => {
  const cases: readonly [string, ResourceListType | undefined][] = [
    ["listeners.yaml", "listeners"],
    ["http-route.clusters.yaml", "clusters"],
    ["gw.routes.yml", "routes"],
    ["endpoints.json", "endpoints"],
    ["tls.secrets.yaml", "secrets"],
    ["my-clusters.yaml", undefined],
    ["clusters.txt", undefined],
    ["edge.yaml", undefined],
  ];
  for (const [name, type] of cases) {
    it(`${name} holds ${type ?? "no one type"}`, () => {
      expect(resourceListTypeOfFile(name)).toBe(type);
    });
  }
});
