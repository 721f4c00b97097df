import { create, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { describe, expect, it } from "vitest";
import {
  clusterSpec,
  endpointSpec,
  routeConfigurationSpec,
  routeSpec,
  virtualHostSpec,
} from "./fixtures.js";
import { clusterLocalSources, routeConfigurationLocalSources } from "./local-sources.js";
import { proxyLocalIn } from "./proxy-local/proxy-local-walk.js";

const DATA_SOURCE = "envoy.config.core.v3.DataSource";

/** Every field of every Envoy message that holds a DataSource, singular or in a list or map. */
function dataSourceFields(): { desc: DescMessage; field: DescField }[] {
  const out: { desc: DescMessage; field: DescField }[] = [];
  for (const type of registry) {
    if (type.kind !== "message" || !type.typeName.startsWith("envoy.")) continue;
    for (const field of type.fields) {
      if (field.message?.typeName === DATA_SOURCE) out.push({ desc: type, field });
    }
  }
  return out;
}

/** A message of `desc` with `field` holding a DataSource that reads `filename`. */
function withFile(desc: DescMessage, field: DescField, filename: string) {
  const source = { specifier: { case: "filename", value: filename } };
  const value =
    field.fieldKind === "list" ? [source] : field.fieldKind === "map" ? { key: source } : source;
  const init = field.oneof
    ? { [field.oneof.localName]: { case: field.localName, value } }
    : { [field.localName]: value };
  return create(desc, init as never);
}

describe("local sources: what makes a proxy read its own host", () => {
  const fields = dataSourceFields();

  it("are looked for in every DataSource field of the Envoy API (44 places in its v3 protos)", () => {
    expect(fields.length).toBeGreaterThanOrEqual(44);
  });

  it("are found in every one of them, at its path", () => {
    const missed = fields.filter(({ desc, field }) => {
      const found = proxyLocalIn(desc, withFile(desc, field, "/etc/envoy/envoy.yaml"));
      return !found.some(
        (use) => use.at[0] === field.jsonName && use.reads === "/etc/envoy/envoy.yaml",
      );
    });
    expect(missed.map(({ desc, field }) => `${desc.typeName}.${field.name}`)).toEqual([]);
  });

  it("are found in a route's direct response body and in a Lua filter's per-route code, at the model field", () => {
    const routes = routeConfigurationSpec("r", "c", {
      virtualHosts: [
        virtualHostSpec(
          "v",
          ["*"],
          [
            routeSpec("", {
              actionKind: "DIRECT_RESPONSE",
              cluster: null,
              directResponse: { status: 200, body: { filename: "/etc/envoy/envoy.yaml" } },
            }),
            routeSpec("c", {
              extra: {
                typedPerFilterConfig: {
                  "envoy.filters.http.lua": {
                    "@type": "type.googleapis.com/envoy.extensions.filters.http.lua.v3.LuaPerRoute",
                    sourceCode: { environmentVariable: "XDS_TOKEN" },
                  },
                },
              },
            }),
          ],
        ),
      ],
    });
    expect(routeConfigurationLocalSources(routes)).toEqual([
      {
        path: 'routeConfigurations["r"].virtualHosts["v"].routes[0].directResponse.body',
        field: "envoy.config.core.v3.DataSource.filename",
        kind: "reads-file",
        does: 'read the file "/etc/envoy/envoy.yaml"',
        reads: "/etc/envoy/envoy.yaml",
        instead: "ask an admin, or give the data inline",
      },
      {
        path: 'routeConfigurations["r"].virtualHosts["v"].routes[1].extra.typedPerFilterConfig["envoy.filters.http.lua"].sourceCode',
        field: "envoy.extensions.filters.http.lua.v3.LuaPerRoute.source_code",
        kind: "runs-code",
        does: 'run the Lua code in the environment variable "XDS_TOKEN"',
        reads: null,
        instead: null,
      },
    ]);
  });

  it("are found in a cluster's TLS context, a file certificate included", () => {
    const cluster = clusterSpec("c", [endpointSpec("10.0.0.1", 443)], {
      extra: {
        transportSocket: {
          name: "envoy.transport_sockets.tls",
          typedConfig: {
            "@type":
              "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext",
            commonTlsContext: {
              validationContext: { trustedCa: { filename: "/etc/ssl/certs/ca.pem" } },
            },
          },
        },
      },
    });
    expect(clusterLocalSources(cluster)).toMatchObject([
      {
        path: 'clusters["c"].extra.transportSocket.typedConfig.commonTlsContext.validationContext.trustedCa',
        kind: "reads-file",
        reads: "/etc/ssl/certs/ca.pem",
      },
    ]);
  });

  it("are found in a cluster's health checks: an event log appended to, at the model field", () => {
    const cluster = clusterSpec("c", [endpointSpec("10.0.0.1", 80)], {
      healthChecks: [
        {
          timeout: "1s",
          interval: "5s",
          tcpHealthCheck: {},
          eventLogPath: "/etc/envoy/envoy.yaml",
        },
      ],
    });
    expect(clusterLocalSources(cluster)).toEqual([
      {
        path: 'clusters["c"].healthChecks[0].eventLogPath',
        field: "envoy.config.core.v3.HealthCheck.event_log_path",
        kind: "writes-file",
        does: 'append health check events to the file "/etc/envoy/envoy.yaml"',
        reads: null,
        instead: null,
      },
    ]);
  });

  it("are found in an EDS cluster's endpoints, which it serves apart: a Unix socket, at the endpoint's address", () => {
    const cluster = clusterSpec("c", [endpointSpec("unix:///var/run/docker.sock", 0)]);
    expect(clusterLocalSources(cluster)).toMatchObject([
      {
        path: 'clusters["c"].localities[0].endpoints[0].address',
        field: "envoy.config.core.v3.Pipe.path",
        kind: "local-socket",
        does: 'connect to (or listen on) the Unix socket "/var/run/docker.sock"',
      },
    ]);
  });

  it("are none in a cluster and routes of modelled fields only", () => {
    expect(clusterLocalSources(clusterSpec("c", [endpointSpec("10.0.0.1", 80)]))).toEqual([]);
    expect(routeConfigurationLocalSources(routeConfigurationSpec("r", "c"))).toEqual([]);
  });
});
