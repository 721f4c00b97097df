import { toBinary } from "@bufbuild/protobuf";
import { ListenerSchema } from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../model.js";
import {
  envoyFromJson,
  envoyToJson,
  isOpaqueType,
  withProtoFieldNames,
} from "./envoy-proto-json.js";

const KAFKA = "type.googleapis.com/envoy.extensions.filters.network.kafka_broker.v3.KafkaBroker";
const TCP_PROXY = "type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy";
const TYPED_STRUCT = "type.googleapis.com/xds.type.v3.TypedStruct";

function listener(filters: JsonObject[]): JsonObject {
  return {
    name: "kafka",
    address: { socketAddress: { address: "0.0.0.0", portValue: 9092 } },
    filterChains: [{ filters }],
  };
}

const kafkaFilter: JsonObject = {
  name: "envoy.filters.network.kafka_broker",
  typedConfig: { "@type": KAFKA, stat_prefix: "broker", force_pass_through: true },
};

describe("extensions Switchyard has no schema for", () => {
  it("are told apart from the types the registry knows", () => {
    expect(isOpaqueType(KAFKA)).toBe(true);
    expect(isOpaqueType(TCP_PROXY)).toBe(false);
  });

  it("are encoded as the TypedStruct Envoy converts to the type they name, their fields as its value", () => {
    const message = envoyFromJson(ListenerSchema, listener([kafkaFilter]));
    const configType = message.filterChains[0]?.filters[0]?.configType;
    expect(configType?.case === "typedConfig" && configType.value.typeUrl).toBe(TYPED_STRUCT);
    expect(toBinary(ListenerSchema, message).length).toBeGreaterThan(0);
    expect(envoyToJson(ListenerSchema, message)).toEqual(listener([kafkaFilter]));
  });

  it("are shown back as written, next to filters of known types left as they are", () => {
    const tcp: JsonObject = {
      name: "envoy.filters.network.tcp_proxy",
      typedConfig: { "@type": TCP_PROXY, statPrefix: "kafka", cluster: "brokers" },
    };
    const json = listener([kafkaFilter, tcp]);
    expect(envoyToJson(ListenerSchema, envoyFromJson(ListenerSchema, json))).toEqual(json);
  });

  it("leave an explicit TypedStruct of a known type, and a Struct's keys, untouched", () => {
    const typed: JsonObject = {
      name: "envoy.filters.network.tcp_proxy",
      typedConfig: {
        "@type": TYPED_STRUCT,
        typeUrl: TCP_PROXY,
        value: { stat_prefix: "tcp", cluster: "c", metadata_match: { "@type": KAFKA } },
      },
    };
    const json = listener([typed]);
    expect(envoyToJson(ListenerSchema, envoyFromJson(ListenerSchema, json))).toEqual(json);
  });

  it("writes each Any's @type first, as Envoy's docs and users write it", () => {
    const tcp: JsonObject = {
      name: "envoy.filters.network.tcp_proxy",
      typedConfig: { statPrefix: "db", cluster: "db", "@type": TCP_PROXY },
    };
    const json = envoyToJson(ListenerSchema, envoyFromJson(ListenerSchema, listener([tcp])));
    const filter = (json as { filterChains: { filters: { typedConfig: JsonObject }[] }[] })
      .filterChains[0]?.filters[0];
    expect(Object.keys(filter?.typedConfig ?? {})[0]).toBe("@type");
  });
});

describe("Envoy's field names for what is shown, exported and diffed", () => {
  it("renames every field to its proto name, through typed configs, leaving map keys, Struct contents and unknown extensions as they are", () => {
    const json = {
      name: "edge",
      perConnectionBufferLimitBytes: 1024,
      filterChains: [
        {
          filters: [
            {
              name: "envoy.filters.network.http_connection_manager",
              typedConfig: {
                "@type":
                  "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
                statPrefix: "ingress_http",
                rds: { routeConfigName: "edge-routes", configSource: { ads: {} } },
              },
            },
            {
              name: "envoy.filters.network.kafka_broker",
              typedConfig: {
                "@type":
                  "type.googleapis.com/envoy.extensions.filters.network.kafka_broker.v3.KafkaBroker",
                statPrefix: "kafka",
              },
            },
          ],
        },
      ],
      metadata: { filterMetadata: { "team.example": { ownerTeam: "payments" } } },
    };
    expect(withProtoFieldNames(ListenerSchema, json)).toEqual({
      name: "edge",
      per_connection_buffer_limit_bytes: 1024,
      filter_chains: [
        {
          filters: [
            {
              name: "envoy.filters.network.http_connection_manager",
              typed_config: {
                "@type":
                  "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
                stat_prefix: "ingress_http",
                rds: { route_config_name: "edge-routes", config_source: { ads: {} } },
              },
            },
            {
              name: "envoy.filters.network.kafka_broker",
              // A contrib filter the registry has no schema for: as the user wrote it.
              typed_config: {
                "@type":
                  "type.googleapis.com/envoy.extensions.filters.network.kafka_broker.v3.KafkaBroker",
                statPrefix: "kafka",
              },
            },
          ],
        },
      ],
      // A map's keys and a Struct's are data, not fields.
      metadata: { filter_metadata: { "team.example": { ownerTeam: "payments" } } },
    });
  });

  it("reads back, through the schema, as the same message", () => {
    const message = envoyFromJson(ListenerSchema, {
      name: "edge",
      perConnectionBufferLimitBytes: 1024,
      listenerFilters: [{ name: "envoy.filters.listener.tls_inspector" }],
    });
    const shown = withProtoFieldNames(ListenerSchema, envoyToJson(ListenerSchema, message));
    expect(shown).toEqual({
      name: "edge",
      per_connection_buffer_limit_bytes: 1024,
      listener_filters: [{ name: "envoy.filters.listener.tls_inspector" }],
    });
    expect(toBinary(ListenerSchema, envoyFromJson(ListenerSchema, shown))).toEqual(
      toBinary(ListenerSchema, message),
    );
  });
});
