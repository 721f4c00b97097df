import { type DescMessage, fromJson, type JsonValue, type Message } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { describe, expect, it } from "vitest";
import { type OpaqueExtension, type Segment, walkEnvoy } from "./envoy-walk.js";

const TYPE = "type.googleapis.com/";
const TCP_PROXY = "envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy";
const KAFKA_BROKER = "envoy.extensions.filters.network.kafka_broker.v3.KafkaBroker";

function schema(typeName: string): DescMessage {
  const desc = registry.getMessage(typeName);
  if (!desc) throw new Error(`${typeName} is not in the registry`);
  return desc;
}

function message(typeName: string, json: JsonValue): Message {
  return fromJson(schema(typeName), json, { registry });
}

/** A listener whose one filter has `typedConfig`. */
function listenerWith(typedConfig: JsonValue): Message {
  return message("envoy.config.listener.v3.Listener", {
    name: "tcp",
    address: { socketAddress: { address: "0.0.0.0", portValue: 9000 } },
    filterChains: [{ filters: [{ name: "envoy.filters.network.tcp_proxy", typedConfig }] }],
  });
}

interface Seen {
  readonly entered: string[];
  readonly values: string[];
  readonly opaque: [string, OpaqueExtension][];
}

const dotted = (at: readonly Segment[]) => at.join(".");

/** What a walk of `msg` reports: entered messages and visited values as "path type". */
function walkOf(desc: DescMessage, msg: Message): Seen {
  const seen: Seen = { entered: [], values: [], opaque: [] };
  walkEnvoy(desc, msg, {
    enter(d, _m, at) {
      seen.entered.push(`${dotted(at)} ${d.typeName}`.trim());
      return true;
    },
    value(_field, _value, at) {
      seen.values.push(dotted(at));
      return true;
    },
    opaque(at, extension) {
      seen.opaque.push([dotted(at), extension]);
    },
  });
  return seen;
}

const AT_FILTER = "filterChains.0.filters.0.typedConfig";

describe("walkEnvoy", () => {
  it("visits every set field, list item and map value depth first, at JSON names, indexes and keys", () => {
    const cluster = message("envoy.config.cluster.v3.Cluster", {
      name: "api",
      connectTimeout: "1s",
      loadAssignment: {
        clusterName: "api",
        endpoints: [
          { lbEndpoints: [{ endpoint: { address: { socketAddress: { portValue: 8080 } } } }] },
        ],
      },
      metadata: { filterMetadata: { team: { owner: "payments" } } },
    });
    // A list is visited item by item, a map value by value.
    expect(walkOf(schema("envoy.config.cluster.v3.Cluster"), cluster).values).toEqual([
      "name",
      "connectTimeout",
      "loadAssignment",
      "loadAssignment.clusterName",
      "loadAssignment.endpoints.0",
      "loadAssignment.endpoints.0.lbEndpoints.0",
      "loadAssignment.endpoints.0.lbEndpoints.0.endpoint",
      "loadAssignment.endpoints.0.lbEndpoints.0.endpoint.address",
      "loadAssignment.endpoints.0.lbEndpoints.0.endpoint.address.socketAddress",
      "loadAssignment.endpoints.0.lbEndpoints.0.endpoint.address.socketAddress.portValue",
      "metadata",
      "metadata.filterMetadata.team",
    ]);
  });

  it("leaves unset fields and proto3 zero values out, and does not enter well-known types", () => {
    const cluster = message("envoy.config.cluster.v3.Cluster", {
      name: "",
      connectTimeout: "0s",
      perConnectionBufferLimitBytes: 0,
    });
    const seen = walkOf(schema("envoy.config.cluster.v3.Cluster"), cluster);
    // A set Duration and a set wrapper are values, even when zero; an empty name is unset.
    expect(seen.values).toEqual(["connectTimeout", "perConnectionBufferLimitBytes"]);
    expect(seen.entered).toEqual(["envoy.config.cluster.v3.Cluster"]);
  });

  it("walks a message made with a generated schema like one made from the registry", () => {
    const json = { name: "api", connectTimeout: "1s", lbPolicy: "RING_HASH" } as const;
    const generated = fromJson(ClusterSchema, json, { registry });
    expect(walkOf(ClusterSchema, generated)).toEqual(
      walkOf(schema(ClusterSchema.typeName), message(ClusterSchema.typeName, json)),
    );
  });

  it("walks the content of an Any under the Any's own path, as proto3 JSON writes it inline", () => {
    const listener = listenerWith({ "@type": TYPE + TCP_PROXY, statPrefix: "db", cluster: "db" });
    const seen = walkOf(schema("envoy.config.listener.v3.Listener"), listener);
    expect(seen.entered).toContain(`${AT_FILTER} ${TCP_PROXY}`);
    expect(seen.values).toContain(`${AT_FILTER}.statPrefix`);
    expect(seen.values).toContain(`${AT_FILTER}.cluster`);
  });

  it.each([["xds.type.v3.TypedStruct"], ["udpa.type.v1.TypedStruct"]])(
    "walks a %s of a known type as that type, under value",
    (typedStruct) => {
      const listener = listenerWith({
        "@type": TYPE + typedStruct,
        typeUrl: TYPE + TCP_PROXY,
        value: { stat_prefix: "db", cluster: "db" },
      });
      const seen = walkOf(schema("envoy.config.listener.v3.Listener"), listener);
      expect(seen.entered).toContain(`${AT_FILTER}.value ${TCP_PROXY}`);
      expect(seen.values).toContain(`${AT_FILTER}.value.statPrefix`);
      expect(seen.opaque).toEqual([]);
    },
  );

  it("reports an Any of a type the registry lacks as opaque, and does not enter it", () => {
    const listener = listenerWith({ "@type": TYPE + TCP_PROXY, statPrefix: "kafka" });
    // The registry cannot pack a type it lacks: point a packed Any at one.
    const filter = (listener as unknown as ListenerShape).filterChains[0]?.filters[0];
    if (filter) filter.configType.value.typeUrl = TYPE + KAFKA_BROKER;
    const seen = walkOf(schema("envoy.config.listener.v3.Listener"), listener);
    expect(seen.opaque).toEqual([
      [AT_FILTER, { t: "unknown-type", via: "any", typeUrl: TYPE + KAFKA_BROKER }],
    ]);
    expect(seen.values.filter((path) => path.startsWith(`${AT_FILTER}.`))).toEqual([]);
  });

  it("reports a TypedStruct of a type the registry lacks as opaque, and does not convert it", () => {
    const listener = listenerWith({
      "@type": "type.googleapis.com/xds.type.v3.TypedStruct",
      typeUrl: TYPE + KAFKA_BROKER,
      value: { stat_prefix: "kafka", broker_address: "no such field anywhere" },
    });
    const seen = walkOf(schema("envoy.config.listener.v3.Listener"), listener);
    expect(seen.opaque).toEqual([
      [AT_FILTER, { t: "unknown-type", via: "typed-struct", typeUrl: TYPE + KAFKA_BROKER }],
    ]);
    expect(seen.entered.at(-1)).toBe(`${AT_FILTER} xds.type.v3.TypedStruct`);
  });

  it("reports a TypedStruct whose value does not read as its type, with the error", () => {
    const listener = listenerWith({
      "@type": "type.googleapis.com/xds.type.v3.TypedStruct",
      typeUrl: TYPE + TCP_PROXY,
      value: { stat_prefix: "db", idle_timeout: "forever" },
    });
    const [only, ...rest] = walkOf(schema("envoy.config.listener.v3.Listener"), listener).opaque;
    expect(rest).toEqual([]);
    expect(only?.[0]).toBe(AT_FILTER);
    expect(only?.[1]).toMatchObject({ t: "unconvertible", via: "typed-struct" });
    expect(only?.[1].t === "unconvertible" && only[1].error.message).toMatch(
      /idle_timeout|Duration/,
    );
  });

  it("does not enter a message its visitor refuses, nor a value it refuses", () => {
    const listener = listenerWith({ "@type": TYPE + TCP_PROXY, statPrefix: "db", cluster: "db" });
    const entered: string[] = [];
    walkEnvoy(schema("envoy.config.listener.v3.Listener"), listener, {
      enter(desc) {
        entered.push(desc.typeName);
        return desc.typeName !== "envoy.config.listener.v3.FilterChain";
      },
      value(field) {
        return field.name !== "address";
      },
    });
    expect(entered).toEqual([
      "envoy.config.listener.v3.Listener",
      "envoy.config.listener.v3.FilterChain",
    ]);
  });

  it("prefixes every path with the path it is given", () => {
    const paths: string[] = [];
    walkEnvoy(
      schema("envoy.config.core.v3.HttpUri"),
      message("envoy.config.core.v3.HttpUri", { uri: "https://idp/jwks", cluster: "idp" }),
      { value: (_f, _v, at) => void paths.push(dotted(at)) },
      ["jwtProviders", "idp", "remoteJwks", "httpUri"],
    );
    expect(paths).toEqual([
      "jwtProviders.idp.remoteJwks.httpUri.uri",
      "jwtProviders.idp.remoteJwks.httpUri.cluster",
    ]);
  });
});

interface ListenerShape {
  filterChains: { filters: { configType: { value: { typeUrl: string } } }[] }[];
}
