import { Code, type Interceptor } from "@connectrpc/connect";
import { EndpointOperation, ImportClashAction } from "@switchyard/proto/switchyard/v1/config_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster, routeConfiguration, virtualHost } from "../src/testing/api-objects.js";
import {
  accessClient,
  bearer,
  configClient,
  createAccount,
  Role,
  refusal,
  tokenFor,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/**
 * Issue 44, point 3: a member must not make proxies touch their host around the DataSource rule.
 * Every field of Envoy's API that makes a proxy read or write a file, read an environment
 * variable, run code or reach a local socket (@switchyard/snapshot proxy-local-fields.ts) is
 * refused from a member wherever they can write it (their cluster, their virtual hosts), through
 * every write (an object, an import into the draft, an apply, an endpoint registration), naming
 * the field and what it does, and changing nothing; an admin may; a file a member's proxies only
 * read may sit under SWITCHYARD_MEMBER_FILE_DIRS.
 */
describe("members and what proxies do on their own host", () => {
  let harness: Harness;
  let admin: Interceptor[];
  let member: Interceptor[];
  const api = (interceptors: Interceptor[]) => configClient(harness.baseUrl, interceptors);
  const TYPE = "type.googleapis.com/";
  const eventLog = {
    timeout: "1s",
    interval: "5s",
    unhealthyThreshold: 3,
    healthyThreshold: 1,
    tcpHealthCheck: {},
    eventLogPath: "/etc/envoy/envoy.yaml",
  };
  const lua = (sourceCode: Record<string, string>) => ({
    "envoy.filters.http.lua": {
      "@type": `${TYPE}envoy.extensions.filters.http.lua.v3.LuaPerRoute`,
      sourceCode,
    },
  });
  const routes = (route: Record<string, unknown>, vhost: Record<string, unknown> = {}) =>
    routeConfiguration("shop-routes", [
      { ...virtualHost("shop", ["shop.a.example.com"], "a-api", route), ...vhost },
    ]);

  beforeAll(async () => {
    harness = await startHarness({ app: { memberFileDirs: ["/srv/envoy/lua"] } });
    const token = await harness.token();
    admin = [bearer(token)];
    const access = accessClient(harness.baseUrl, admin);
    const team = await access.createTeam({ name: "team-a", domains: ["*.a.example.com"] });
    await createAccount(harness.baseUrl, "member-a", Role.MEMBER, team.id);
    member = [bearer(await tokenFor(harness.baseUrl, "member-a", USER_PASSWORD))];
    await api(member).createCluster(edsCluster("a-api", "10.0.0.1:8080"));
    await api(member).createRouteConfiguration(routes({}));
    await api(member).publish({ message: "team a's cluster and routes" });
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("refuses a member's cluster whose health check appends to a file of the proxy, at the field, changing nothing", async () => {
    const error = await refusal(
      api(member).updateCluster(edsCluster("a-api", "10.0.0.1:8080", { healthChecks: [eventLog] })),
    );
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toBe(
      'clusters["a-api"].healthChecks[0].eventLogPath makes proxies append health check events to the file "/etc/envoy/envoy.yaml" on their own host, which only an admin may write: ask an admin',
    );
    expect((await api(admin).getCluster({ name: "a-api" })).healthChecks).toEqual([]);
  });

  it("refuses a member's cluster that loads its TLS secret from a path of the proxy's host", async () => {
    const transportSocket = {
      name: "envoy.transport_sockets.tls",
      typedConfig: {
        "@type": `${TYPE}envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext`,
        commonTlsContext: {
          tlsCertificateSdsSecretConfigs: [
            {
              name: "client",
              sdsConfig: { pathConfigSource: { path: "/etc/envoy/xds-client.yaml" } },
            },
          ],
        },
      },
    };
    const error = await refusal(
      api(member).updateCluster(
        edsCluster("a-api", "10.0.0.1:8080", { extra: { transportSocket } }),
      ),
    );
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toBe(
      'clusters["a-api"].extra.transportSocket.typedConfig.commonTlsContext.tlsCertificateSdsSecretConfigs[0].sdsConfig.pathConfigSource.path makes proxies load xDS resources (endpoints, secrets, ...) from the file "/etc/envoy/xds-client.yaml" on their own host, and members may name files under /srv/envoy/lua only (SWITCHYARD_MEMBER_FILE_DIRS): ask an admin',
    );
  });

  it("refuses a member's inline Lua in a route's per-filter config, though a directory is allowed", async () => {
    const error = await refusal(
      api(member).updateRouteConfiguration(
        routes({ extra: { typedPerFilterConfig: lua({ inlineString: "os.execute('id')" }) } }),
      ),
    );
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toBe(
      'routeConfigurations["shop-routes"].virtualHosts["shop"].routes[0].extra.typedPerFilterConfig["envoy.filters.http.lua"].sourceCode makes proxies run the Lua code given inline on their own host, which only an admin may write: ask an admin',
    );
  });

  it("refuses a member's Wasm module read from a file outside the allowed directory, in a TypedStruct", async () => {
    const wasm = {
      "envoy.filters.http.wasm": {
        "@type": `${TYPE}xds.type.v3.TypedStruct`,
        typeUrl: `${TYPE}envoy.extensions.filters.http.wasm.v3.Wasm`,
        value: {
          config: {
            vmConfig: {
              runtime: "envoy.wasm.runtime.v8",
              code: { local: { filename: "/tmp/m.wasm" } },
            },
          },
        },
      },
    };
    const error = await refusal(
      api(member).updateRouteConfiguration(routes({ extra: { typedPerFilterConfig: wasm } })),
    );
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toContain(
      'makes proxies run the Wasm module in the file "/tmp/m.wasm"',
    );
  });

  it("refuses a member's response header holding %ENVIRONMENT(X)%", async () => {
    const error = await refusal(
      api(member).updateRouteConfiguration(
        routes(
          {},
          {
            extra: {
              responseHeadersToAdd: [
                { header: { key: "x-leak", value: "%ENVIRONMENT(XDS_TOKEN)%" } },
              ],
            },
          },
        ),
      ),
    );
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toContain('the environment variable "XDS_TOKEN"');
  });

  it("refuses a member's endpoint on a Unix socket of the proxy's host, registered or written", async () => {
    const registered = await refusal(
      api(member).setEndpoints({
        cluster: "a-api",
        operation: EndpointOperation.SET,
        endpoints: [{ address: "unix:///var/run/docker.sock", port: 0 }],
      }),
    );
    expect(registered.code).toBe(Code.PermissionDenied);
    expect(registered.rawMessage).toBe(
      'clusters["a-api"].localities[0].endpoints[0].address makes proxies connect to (or listen on) the Unix socket "/var/run/docker.sock" on their own host, which only an admin may write: ask an admin',
    );
    const written = await refusal(
      api(member).createCluster(
        edsCluster("a-agent", "10.0.0.2:80", {
          localities: [{ weight: 1, endpoints: [{ address: "unix:///run/spire/agent.sock" }] }],
        }),
      ),
    );
    expect(written.code).toBe(Code.PermissionDenied);
    expect(written.rawMessage).toContain('the Unix socket "/run/spire/agent.sock"');
    const published = await api(admin).getCluster({ name: "a-api" });
    expect(published.localities[0]?.endpoints.map((e) => e.address)).toEqual(["10.0.0.1"]);
  });

  const clusterYaml = `- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: a-api
  type: EDS
  eds_cluster_config: { eds_config: { ads: {} } }
  connect_timeout: 1s
  health_checks:
  - { timeout: 1s, interval: 5s, unhealthy_threshold: 3, healthy_threshold: 1, tcp_health_check: {}, event_log_path: /etc/envoy/envoy.yaml }
`;

  it("refuses the health check event log through an import into the draft and an apply too", async () => {
    const imported = await refusal(
      // An edit of the stored cluster (replace), as apply --draft makes it.
      api(member).import({
        content: clusterYaml,
        filename: "a.yaml",
        onClash: ImportClashAction.REPLACE,
      }),
    );
    expect(imported.code).toBe(Code.PermissionDenied);
    expect(imported.rawMessage).toContain('clusters["a-api"].healthChecks[0].eventLogPath');
    const applied = await refusal(
      api(member).apply({ content: clusterYaml, filename: "a.yaml", message: "m" }),
    );
    expect(applied.code).toBe(Code.PermissionDenied);
    expect(applied.rawMessage).toContain("append health check events");
    expect((await api(admin).getCluster({ name: "a-api" })).healthChecks).toEqual([]);
  });

  it("takes a member's Lua script from the allowed directory, and any of these from an admin", async () => {
    await api(member).updateRouteConfiguration(
      routes({ extra: { typedPerFilterConfig: lua({ filename: "/srv/envoy/lua/auth.lua" }) } }),
    );
    await api(admin).updateCluster(
      edsCluster("a-api", "10.0.0.1:8080", { healthChecks: [eventLog] }),
    );
    await api(admin).updateRouteConfiguration(
      routes({ extra: { typedPerFilterConfig: lua({ inlineString: "-- an admin's" }) } }),
    );
    expect((await api(admin).getCluster({ name: "a-api" })).healthChecks).toEqual([eventLog]);
  });
});
