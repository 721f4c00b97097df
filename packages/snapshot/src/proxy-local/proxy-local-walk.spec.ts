import { create, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { installEnvoySchemas, readEnvoySchema, registry } from "@switchyard/proto";
import { envoySchemaBytes } from "@switchyard/testing/shared-data";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envoyFromJson } from "../envoy/envoy-proto-json.js";
import { PROXY_LOCAL_FIELDS, type ProxyLocalField } from "./proxy-local-fields.js";
import { proxyLocalIn } from "./proxy-local-walk.js";

const FILE = "/etc/envoy/envoy.yaml";
const DATA_SOURCE = "envoy.config.core.v3.DataSource";

function message(typeName: string): DescMessage {
  const desc = registry.getMessage(typeName);
  if (!desc) throw new Error(`no ${typeName} in the registry`);
  return desc;
}

/** A value of one element of `field` that makes `row` count. */
function element(field: DescField, row: ProxyLocalField): unknown {
  const type = field.message?.typeName;
  if (type === undefined) {
    const path = row.only === "unix-target" ? "unix:/run/agent.sock" : FILE;
    return field.scalar === 12 ? new TextEncoder().encode(path) : path;
  }
  if (type === "google.protobuf.StringValue") return FILE;
  const file = create(message(DATA_SOURCE), { specifier: { case: "filename", value: FILE } });
  if (type === DATA_SOURCE) return file;
  if (type === "envoy.config.core.v3.AsyncDataSource") {
    return create(message(type), { specifier: { case: "local", value: file } } as never);
  }
  const name = message(type).fields.some((f) => f.name === "name") ? { name: "XDS_TOKEN" } : {};
  return create(message(type), name as never);
}

/** A message of the row's type with the row's field set. */
function withRowField(row: ProxyLocalField) {
  const typeName = row.field.slice(0, row.field.lastIndexOf("."));
  const desc = message(typeName);
  const field = desc.fields.find((f) => `${typeName}.${f.name}` === row.field);
  if (!field) throw new Error(`no ${row.field}`);
  const one = element(field, row);
  const value = field.fieldKind === "list" ? [one] : field.fieldKind === "map" ? { k: one } : one;
  const init = field.oneof
    ? { [field.oneof.localName]: { case: field.localName, value } }
    : { [field.localName]: value };
  return { desc, message: create(desc, init as never) };
}

describe("the walk for proxy-local fields", () => {
  beforeAll(() => {
    const read = readEnvoySchema("envoy-api", envoySchemaBytes());
    if ("problem" in read) throw new Error(read.problem);
    installEnvoySchemas([read.schema]);
  });
  afterAll(() => installEnvoySchemas([]));

  it("finds every field of the table in a message of its type, with its kind", () => {
    const missed = PROXY_LOCAL_FIELDS.filter((row) => {
      const { desc, message } = withRowField(row);
      return !proxyLocalIn(desc, message).some((u) => u.field === row.field && u.kind === row.kind);
    });
    expect(missed.map((row) => row.field)).toEqual([]);
  });
});

const CLUSTER = "envoy.config.cluster.v3.Cluster";
const ROUTES = "envoy.config.route.v3.RouteConfiguration";
const TYPE = "type.googleapis.com/";

/** What the walk finds in an Envoy resource written as proto3 JSON, without the descriptions. */
function found(typeName: string, resource: Record<string, unknown>) {
  const desc = message(typeName);
  return proxyLocalIn(desc, envoyFromJson(desc, resource as never)).map(
    ({ at, field, kind, reads }) => ({ at: at.join("."), field, kind, reads }),
  );
}

const routeWith = (route: Record<string, unknown>, vhost: Record<string, unknown> = {}) => ({
  name: "r",
  virtualHosts: [
    { name: "v", domains: ["*"], routes: [{ match: { prefix: "/" }, ...route }], ...vhost },
  ],
});

const LUA_PER_ROUTE = `${TYPE}envoy.extensions.filters.http.lua.v3.LuaPerRoute`;
const WASM = `${TYPE}envoy.extensions.filters.http.wasm.v3.Wasm`;

describe("what makes a proxy touch its host, found in a written resource", () => {
  it("a cluster's health check appending to a file of the host", () => {
    const cluster = {
      name: "c",
      healthChecks: [{ timeout: "1s", interval: "5s", tcpHealthCheck: {}, eventLogPath: FILE }],
    };
    expect(found(CLUSTER, cluster)).toEqual([
      {
        at: "healthChecks.0.eventLogPath",
        field: "envoy.config.core.v3.HealthCheck.event_log_path",
        kind: "writes-file",
        reads: null,
      },
    ]);
  });

  it("a secret loaded from a path of the host, in a cluster's TLS transport socket", () => {
    const cluster = {
      name: "c",
      transportSocket: {
        name: "envoy.transport_sockets.tls",
        typedConfig: {
          "@type": `${TYPE}envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext`,
          commonTlsContext: {
            tlsCertificateSdsSecretConfigs: [
              { name: "client", sdsConfig: { pathConfigSource: { path: "/etc/envoy/sds.yaml" } } },
            ],
          },
        },
      },
    };
    expect(found(CLUSTER, cluster)).toEqual([
      {
        at: "transportSocket.typedConfig.commonTlsContext.tlsCertificateSdsSecretConfigs.0.sdsConfig.pathConfigSource.path",
        field: "envoy.config.core.v3.PathConfigSource.path",
        kind: "loads-config",
        reads: "/etc/envoy/sds.yaml",
      },
    ]);
  });

  it("Lua code given inline in a route's per-filter config, as code run (not only a file read)", () => {
    const lua = { "@type": LUA_PER_ROUTE, sourceCode: { inlineString: "os.execute('id')" } };
    const routes = routeWith({ route: { cluster: "c" }, typedPerFilterConfig: { lua } });
    const [use] = proxyLocalIn(message(ROUTES), envoyFromJson(message(ROUTES), routes as never));
    expect(use).toEqual({
      at: ["virtualHosts", 0, "routes", 0, "typedPerFilterConfig", "lua", "sourceCode"],
      field: "envoy.extensions.filters.http.lua.v3.LuaPerRoute.source_code",
      kind: "runs-code",
      does: "run the Lua code given inline",
      reads: null,
      instead: null,
    });
  });

  it("a Lua script read from a file, as code run from that file (what an allowed directory can cover), once", () => {
    const lua = { "@type": LUA_PER_ROUTE, sourceCode: { filename: "/srv/lua/auth.lua" } };
    const routes = routeWith({ route: { cluster: "c" }, typedPerFilterConfig: { lua } });
    expect(found(ROUTES, routes)).toEqual([
      {
        at: "virtualHosts.0.routes.0.typedPerFilterConfig.lua.sourceCode",
        field: "envoy.extensions.filters.http.lua.v3.LuaPerRoute.source_code",
        kind: "runs-code",
        reads: "/srv/lua/auth.lua",
      },
    ]);
  });

  it("a Wasm module read from a file, in a TypedStruct per-filter config, as code run from that file", () => {
    const wasm = {
      "@type": `${TYPE}xds.type.v3.TypedStruct`,
      typeUrl: WASM,
      value: {
        config: {
          vmConfig: {
            runtime: "envoy.wasm.runtime.v8",
            code: { local: { filename: "/tmp/x.wasm" } },
          },
        },
      },
    };
    const routes = routeWith({ route: { cluster: "c" }, typedPerFilterConfig: { wasm } });
    expect(found(ROUTES, routes)).toEqual([
      {
        at: "virtualHosts.0.routes.0.typedPerFilterConfig.wasm.value.config.vmConfig.code",
        field: "envoy.extensions.wasm.v3.VmConfig.code",
        kind: "runs-code",
        reads: "/tmp/x.wasm",
      },
      {
        at: "virtualHosts.0.routes.0.typedPerFilterConfig.wasm.value.config.vmConfig.code.local",
        field: "envoy.config.core.v3.DataSource.filename",
        kind: "reads-file",
        reads: "/tmp/x.wasm",
      },
    ]);
  });

  it("a Wasm module fetched from a remote source, as code run that no directory covers", () => {
    const wasm = {
      "@type": WASM,
      config: {
        vmConfig: {
          runtime: "envoy.wasm.runtime.v8",
          code: {
            remote: {
              httpUri: { uri: "https://x.example/m.wasm", cluster: "c", timeout: "1s" },
              sha256: "ab",
            },
          },
        },
      },
    };
    const routes = routeWith({ route: { cluster: "c" }, typedPerFilterConfig: { wasm } });
    const [use] = proxyLocalIn(message(ROUTES), envoyFromJson(message(ROUTES), routes as never));
    expect(use?.does).toBe('run the Wasm module fetched from "https://x.example/m.wasm"');
    expect(use?.reads).toBeNull();
  });

  it("%ENVIRONMENT(X)% in a header a route adds, as an environment variable read", () => {
    const routes = routeWith(
      { route: { cluster: "c" } },
      { responseHeadersToAdd: [{ header: { key: "x-leak", value: "%ENVIRONMENT(XDS_TOKEN)%" } }] },
    );
    const [use] = proxyLocalIn(message(ROUTES), envoyFromJson(message(ROUTES), routes as never));
    expect(use).toMatchObject({
      at: ["virtualHosts", 0, "responseHeadersToAdd", 0, "header", "value"],
      kind: "reads-env",
      does: 'put the environment variable "XDS_TOKEN" into what it formats (%ENVIRONMENT(XDS_TOKEN)%)',
    });
  });

  it("a Unix socket endpoint, as a local socket", () => {
    const assignment = {
      clusterName: "c",
      endpoints: [
        { lbEndpoints: [{ endpoint: { address: { pipe: { path: "/var/run/docker.sock" } } } }] },
      ],
    };
    expect(found("envoy.config.endpoint.v3.ClusterLoadAssignment", assignment)).toEqual([
      {
        at: "endpoints.0.lbEndpoints.0.endpoint.address.pipe.path",
        field: "envoy.config.core.v3.Pipe.path",
        kind: "local-socket",
        reads: null,
      },
    ]);
  });

  it("a gRPC target only when it is a Unix socket", () => {
    const extProc = (targetUri: string) => ({
      "@type": `${TYPE}envoy.extensions.filters.http.ext_proc.v3.ExtProcPerRoute`,
      overrides: { grpcService: { googleGrpc: { targetUri, statPrefix: "p" } } },
    });
    const at = (targetUri: string) =>
      found(
        ROUTES,
        routeWith({ route: { cluster: "c" }, typedPerFilterConfig: { p: extProc(targetUri) } }),
      );
    expect(at("unix:/run/spire/agent.sock").map((u) => u.kind)).toEqual(["local-socket"]);
    expect(at("ext-proc.example.com:443")).toEqual([]);
  });

  it("an internal listener endpoint as nothing: it stays inside the proxy", () => {
    const assignment = {
      clusterName: "c",
      endpoints: [
        {
          lbEndpoints: [
            { endpoint: { address: { envoyInternalAddress: { serverListenerName: "l" } } } },
          ],
        },
      ],
    };
    expect(found("envoy.config.endpoint.v3.ClusterLoadAssignment", assignment)).toEqual([]);
  });

  it("in an extension Switchyard has no schema for, each key named like a path, as unclassified", () => {
    const golang = {
      "@type": `${TYPE}envoy.extensions.filters.http.golang.v3alpha.Config`,
      libraryId: "x",
      libraryPath: "/tmp/evil.so",
      pluginName: "p",
    };
    const routes = routeWith({ route: { cluster: "c" }, typedPerFilterConfig: { golang } });
    expect(found(ROUTES, routes)).toEqual([
      {
        at: "virtualHosts.0.routes.0.typedPerFilterConfig.golang.value.libraryId",
        field: "envoy.extensions.filters.http.golang.v3alpha.Config.libraryId",
        kind: "unclassified",
        reads: null,
      },
      {
        at: "virtualHosts.0.routes.0.typedPerFilterConfig.golang.value.libraryPath",
        field: "envoy.extensions.filters.http.golang.v3alpha.Config.libraryPath",
        kind: "unclassified",
        reads: null,
      },
    ]);
  });

  it("an extension packed as bytes of a type Switchyard has no schema for, as unclassified", () => {
    const desc = message(ROUTES);
    const route = create(message("envoy.config.route.v3.Route"), {
      typedPerFilterConfig: {
        x: { typeUrl: `${TYPE}com.example.Unknown`, value: new Uint8Array([8, 1]) },
      },
    } as never);
    const routes = create(desc, {
      virtualHosts: [{ name: "v", domains: ["*"], routes: [route] }],
    } as never);
    expect(proxyLocalIn(desc, routes).map((u) => [u.at.join("."), u.kind])).toEqual([
      ["virtualHosts.0.routes.0.typedPerFilterConfig.x", "unclassified"],
    ]);
  });

  it("nothing in a cluster and routes that touch no host", () => {
    expect(found(CLUSTER, { name: "c", connectTimeout: "1s", type: "EDS" })).toEqual([]);
    expect(
      found(
        ROUTES,
        routeWith(
          { route: { cluster: "c", prefixRewrite: "/x" } },
          { requestHeadersToAdd: [{ header: { key: "x", value: "%REQ(host)%" } }] },
        ),
      ),
    ).toEqual([]);
  });
});
