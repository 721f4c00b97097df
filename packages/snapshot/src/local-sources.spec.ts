import { create, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { describe, expect, it } from "vitest";
import { localSourcesIn } from "./envoy/envoy-data-sources.js";
import {
  clusterSpec,
  endpointSpec,
  routeConfigurationSpec,
  routeSpec,
  virtualHostSpec,
} from "./fixtures.js";
import { clusterLocalSources, routeConfigurationLocalSources } from "./local-sources.js";

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
      const found = localSourcesIn(desc, withFile(desc, field, "/etc/envoy/envoy.yaml"));
      return !found.some((s) => s.kind === "file" && s.name === "/etc/envoy/envoy.yaml");
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
        kind: "file",
        name: "/etc/envoy/envoy.yaml",
      },
      {
        path: 'routeConfigurations["r"].virtualHosts["v"].routes[1].extra.typedPerFilterConfig["envoy.filters.http.lua"].sourceCode',
        kind: "environment variable",
        name: "XDS_TOKEN",
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
    expect(clusterLocalSources(cluster)).toEqual([
      {
        path: 'clusters["c"].extra.transportSocket.typedConfig.commonTlsContext.validationContext.trustedCa',
        kind: "file",
        name: "/etc/ssl/certs/ca.pem",
      },
    ]);
  });

  it("are none in a cluster and routes of modelled fields only", () => {
    expect(clusterLocalSources(clusterSpec("c", [endpointSpec("10.0.0.1", 80)]))).toEqual([]);
    expect(routeConfigurationLocalSources(routeConfigurationSpec("r", "c"))).toEqual([]);
  });
});
