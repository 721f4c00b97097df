import {
  create,
  type DescMessage,
  equals,
  fromJson,
  type JsonValue,
  type MessageShape,
  toJson,
} from "@bufbuild/protobuf";
import { anyPack, anyUnpack } from "@bufbuild/protobuf/wkt";
import { assert, describe, expect, it } from "vitest";
import {
  type Cluster,
  Cluster_DiscoveryType,
  ClusterSchema,
} from "./gen/envoy/config/cluster/v3/cluster_pb.js";
import { type Listener, ListenerSchema } from "./gen/envoy/config/listener/v3/listener_pb.js";
import { RouterSchema } from "./gen/envoy/extensions/filters/http/router/v3/router_pb.js";
import {
  type HttpConnectionManager,
  HttpConnectionManagerSchema,
} from "./gen/envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager_pb.js";
import {
  type HttpProtocolOptions,
  HttpProtocolOptionsSchema,
} from "./gen/envoy/extensions/upstreams/http/v3/http_protocol_options_pb.js";
import { registry } from "./index.js";

const httpProtocolOptionsKey = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions";

function http2Options(): HttpProtocolOptions {
  return create(HttpProtocolOptionsSchema, {
    upstreamProtocolOptions: {
      case: "explicitHttpConfig",
      value: { protocolConfig: { case: "http2ProtocolOptions", value: {} } },
    },
  });
}

function edsCluster(): Cluster {
  return create(ClusterSchema, {
    name: "backend",
    clusterDiscoveryType: { case: "type", value: Cluster_DiscoveryType.EDS },
    edsClusterConfig: { edsConfig: { configSourceSpecifier: { case: "ads", value: {} } } },
    typedExtensionProtocolOptions: {
      [httpProtocolOptionsKey]: anyPack(HttpProtocolOptionsSchema, http2Options()),
    },
  });
}

function rdsConnectionManager(): HttpConnectionManager {
  return create(HttpConnectionManagerSchema, {
    statPrefix: "ingress",
    routeSpecifier: {
      case: "rds",
      value: {
        routeConfigName: "routes",
        configSource: { configSourceSpecifier: { case: "ads", value: {} } },
      },
    },
    httpFilters: [
      {
        name: "envoy.filters.http.router",
        configType: { case: "typedConfig", value: anyPack(RouterSchema, create(RouterSchema)) },
      },
    ],
  });
}

function apiListener(): Listener {
  return create(ListenerSchema, {
    name: "frontend",
    apiListener: { apiListener: anyPack(HttpConnectionManagerSchema, rdsConnectionManager()) },
  });
}

/** JSON through text and back, as it travels over REST xDS or into the database. */
function roundTrip<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>) {
  const text = JSON.stringify(toJson(schema, message, { registry }));
  const json = JSON.parse(text) as JsonValue;
  return { json, decoded: fromJson(schema, json, { registry }) };
}

describe("registry", () => {
  it("a Cluster with HttpProtocolOptions packed in typed_extension_protocol_options round-trips through JSON", () => {
    const cluster = edsCluster();
    const { json, decoded } = roundTrip(ClusterSchema, cluster);

    expect(json).toMatchObject({
      typedExtensionProtocolOptions: {
        [httpProtocolOptionsKey]: {
          "@type": `type.googleapis.com/${httpProtocolOptionsKey}`,
          explicitHttpConfig: { http2ProtocolOptions: {} },
        },
      },
    });
    expect(equals(ClusterSchema, decoded, cluster)).toBe(true);
    const packed = decoded.typedExtensionProtocolOptions[httpProtocolOptionsKey];
    assert.isDefined(packed);
    // Unpacked by type URL alone: the registry supplies the schema.
    expect(anyUnpack(packed, registry)).toEqual(http2Options());
  });

  it("an HttpConnectionManager packed in a Listener's api_listener round-trips through JSON, nested Any included", () => {
    const listener = apiListener();
    const { json, decoded } = roundTrip(ListenerSchema, listener);

    expect(json).toMatchObject({
      apiListener: {
        apiListener: {
          "@type":
            "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
          rds: { routeConfigName: "routes", configSource: { ads: {} } },
          httpFilters: [
            {
              name: "envoy.filters.http.router",
              typedConfig: {
                "@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router",
              },
            },
          ],
        },
      },
    });
    expect(equals(ListenerSchema, decoded, listener)).toBe(true);
    const packed = decoded.apiListener?.apiListener;
    assert.isDefined(packed);
    expect(anyUnpack(packed, registry)).toEqual(rdsConnectionManager());
  });

  it("fromJson of a Cluster with an unknown field throws an error naming the field", () => {
    expect(() =>
      fromJson(ClusterSchema, { name: "backend", connectTimeoutz: "1s" }, { registry }),
    ).toThrow(/"connectTimeoutz"/);
  });

  it("toJson cannot write an Any whose type is missing from the registry it is given", () => {
    expect(() => toJson(ClusterSchema, edsCluster())).toThrow(/HttpProtocolOptions/);
  });

  it.each([
    "envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy",
    "envoy.extensions.filters.network.redis_proxy.v3.RedisProxy",
    "envoy.extensions.filters.http.ext_authz.v3.ExtAuthz",
    "envoy.extensions.filters.http.compressor.v3.Compressor",
    "envoy.extensions.filters.http.lua.v3.LuaPerRoute",
    "envoy.extensions.filters.udp.udp_proxy.v3.UdpProxyConfig",
    "envoy.config.trace.v3.ZipkinConfig",
    "envoy.config.trace.v3.OpenTelemetryConfig",
    "envoy.extensions.clusters.aggregate.v3.ClusterConfig",
    "envoy.extensions.router.cluster_specifiers.lua.v3.LuaConfig",
    "envoy.type.matcher.v3.HttpRequestHeaderMatchInput",
    "xds.type.v3.TypedStruct",
    "udpa.type.v1.TypedStruct",
  ])("resolves %s, an extension with no generated code, by type name", (typeName) => {
    expect(registry.getMessage(typeName)?.typeName).toBe(typeName);
  });

  it("keeps the validate.rules options of the Envoy fields", () => {
    const field = registry
      .getMessage("envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy")
      ?.fields.find((f) => f.name === "stat_prefix");
    // stat_prefix = 1 [(validate.rules).string = {min_len: 1}]: option field 1071 of FieldOptions.
    expect(field?.proto.options?.$unknown?.some((u) => u.no === 1071)).toBe(true);
  });
});
