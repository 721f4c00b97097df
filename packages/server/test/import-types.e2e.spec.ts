/**
 * ImportRequest.resource_type and document_types (ApplyRequest's too): resources given without
 * "@type", as gateways write one type to a file, are read as the type the request names; a list
 * of them without a type is refused saying how to name it, and a value the enum does not have is
 * refused saying which field and which values there are. Also an Envoy admin config dump through
 * Import, taking its active resources.
 */
import { Code, type Interceptor } from "@connectrpc/connect";
import { EnvoyResourceType } from "@switchyard/proto/switchyard/v1/config_pb";
import { configDump } from "@switchyard/testing/config-dump";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, configClient, refusal } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/** Clusters as Envoy Gateway's clusters.yaml holds them: camelCase, no "@type". */
const clustersYaml = (...names: string[]) =>
  names
    .map(
      (name) => `- name: ${name}
  type: STATIC
  connectTimeout: 5s
  loadAssignment:
    clusterName: ${name}
    endpoints:
    - lbEndpoints:
      - endpoint: { address: { socketAddress: { address: 10.0.0.1, portValue: 8080 } } }
`,
    )
    .join("");

const listenersYaml = `- name: gw-http
  address: { socketAddress: { address: 0.0.0.0, portValue: 10080 } }
  filterChains:
  - filters:
    - name: envoy.filters.network.tcp_proxy
      typedConfig:
        "@type": type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy
        statPrefix: gw
        cluster: gw-a
`;

describe("ImportRequest.resource_type and document_types", () => {
  let harness: Harness;
  let admin: Interceptor[];
  const api = () => configClient(harness.baseUrl, admin);

  beforeAll(async () => {
    harness = await startHarness();
    admin = [bearer(await harness.token())];
  }, 60_000);
  afterAll(async () => {
    await harness?.stop();
  });

  it("reads a list without @type as the resource_type the request names", async () => {
    const result = await api().import({
      filename: "clusters.yaml",
      content: clustersYaml("gw-a"),
      resourceType: EnvoyResourceType.CLUSTERS,
      dryRun: true,
    });
    expect(result.changes.map((c) => c.name)).toEqual(["gw-a"]);
  });

  it("refuses a list without @type when the request names no type, saying how to name it", async () => {
    const error = await refusal(
      api().import({ filename: "clusters.yaml", content: clustersYaml("gw-a"), dryRun: true }),
    );
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toContain(
      'these resources have no "@type": name their type (switchyard apply --type, ImportRequest.resource_type',
    );
  });

  it("gives each document of a set of files the type document_types names for it", async () => {
    const result = await api().import({
      filename: "apply.yaml",
      content: `${clustersYaml("gw-a")}---\n${listenersYaml}`,
      documentTypes: { 0: EnvoyResourceType.CLUSTERS, 1: EnvoyResourceType.LISTENERS },
      dryRun: true,
    });
    expect(result.changes.map((c) => c.name).sort()).toEqual(["gw-a", "gw-http"]);
  });

  it("applies and publishes with the type too (ApplyRequest.resource_type)", async () => {
    const result = await api().apply({
      filename: "clusters.yaml",
      content: clustersYaml("gw-applied"),
      resourceType: EnvoyResourceType.CLUSTERS,
      message: "gateway clusters",
    });
    expect(result.changes.map((c) => c.name)).toEqual(["gw-applied"]);
  });

  it("refuses a resource_type the enum does not have, naming the field and the values it takes", async () => {
    const error = await refusal(
      api().import({
        filename: "clusters.yaml",
        content: clustersYaml("gw-a"),
        resourceType: 42 as EnvoyResourceType,
        dryRun: true,
      }),
    );
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toBe(
      'ImportRequest.resource_type 42 is not an EnvoyResourceType: use one of ENVOY_RESOURCE_TYPE_UNSPECIFIED (0, every resource names its "@type"), ENVOY_RESOURCE_TYPE_LISTENERS (1), ENVOY_RESOURCE_TYPE_CLUSTERS (2), ENVOY_RESOURCE_TYPE_ROUTES (3), ENVOY_RESOURCE_TYPE_ENDPOINTS (4), ENVOY_RESOURCE_TYPE_SECRETS (5)',
    );
  });

  it("refuses a document_types value the enum does not have, and a position the content has no document at", async () => {
    const bad = await refusal(
      api().apply({
        filename: "clusters.yaml",
        content: clustersYaml("gw-a"),
        documentTypes: { 0: 9 as EnvoyResourceType },
        message: "m",
      }),
    );
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(bad.rawMessage).toMatch(
      /^ApplyRequest\.document_types\[0\] 9 is not an EnvoyResourceType: use one of /,
    );
    const missing = await refusal(
      api().import({
        filename: "clusters.yaml",
        content: clustersYaml("gw-a"),
        resourceType: EnvoyResourceType.CLUSTERS,
        documentTypes: { 3: EnvoyResourceType.LISTENERS },
        dryRun: true,
      }),
    );
    expect(missing.code).toBe(Code.InvalidArgument);
    expect(missing.rawMessage).toContain(
      "a type is given for document 3 (from 0), but the text holds 1 document",
    );
  });

  it("imports an Envoy admin config dump's active resources and says what it left out", async () => {
    const cluster = (name: string) => ({
      "@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster",
      name,
      type: "STATIC",
      connect_timeout: "1s",
      load_assignment: { cluster_name: name, endpoints: [] },
    });
    const dump = configDump({
      activeClusters: [cluster("dumped")],
      warmingClusters: [cluster("warming")],
    });
    const result = await api().import({
      filename: "config_dump.json",
      content: JSON.stringify(dump),
      dryRun: true,
    });
    expect(result.changes.map((c) => c.name)).toEqual(["dumped"]);
    expect(result.issues.map((i) => i.message)).toContainEqual(
      expect.stringMatching(/^not imported: a warming cluster is not serving traffic yet/),
    );
  });
});
