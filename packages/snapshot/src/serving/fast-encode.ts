import type { DescMessage } from "@bufbuild/protobuf";
import { WireType } from "@bufbuild/protobuf/wire";
import {
  Cluster_DiscoveryType,
  Cluster_EdsClusterConfigSchema,
  Cluster_LbPolicy,
  ClusterSchema,
} from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import {
  AddressSchema,
  SocketAddressSchema,
} from "@switchyard/proto/envoy/config/core/v3/address_pb";
import { LocalitySchema } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import {
  ApiVersion,
  ConfigSourceSchema,
} from "@switchyard/proto/envoy/config/core/v3/config_source_pb";
import { HealthStatus } from "@switchyard/proto/envoy/config/core/v3/health_check_pb";
import {
  EndpointSchema,
  LbEndpointSchema,
  LocalityLbEndpointsSchema,
} from "@switchyard/proto/envoy/config/endpoint/v3/endpoint_components_pb";
import { ClusterLoadAssignmentSchema } from "@switchyard/proto/envoy/config/endpoint/v3/endpoint_pb";
import {
  HttpProtocolOptions_ExplicitHttpConfigSchema,
  HttpProtocolOptionsSchema,
} from "@switchyard/proto/envoy/extensions/upstreams/http/v3/http_protocol_options_pb";
import { addressKind } from "../envoy/envoy-address.js";
import { edsResourceName, HTTP_PROTOCOL_OPTIONS } from "../envoy/envoy-json.js";
import type { ClusterSpec, EndpointSpec, JsonObject, LocalitySpec } from "../model.js";
import { WireWriter } from "./wire-writer.js";

/**
 * Direct wire encoders for the most common resources: an assignment and a cluster that use only
 * modelled fields (nothing in `extra`). They write exactly the bytes the generic path
 * (JSON → fromJson → toBinary) writes — fields in ascending number, proto3 defaults omitted, oneof
 * members always — so a resource has the same version whichever path encoded it; fast-encode.spec.ts
 * checks this over random specs. They exist because the reflective path costs ~50 µs per
 * assignment, which dominates compiling a fleet-sized config. Anything else returns undefined and
 * takes the generic path.
 */

/** Field numbers, read from the generated descriptors rather than copied by hand. */
function fieldNumber(schema: DescMessage, name: string): number {
  const field = schema.fields.find((f) => f.name === name);
  if (!field) throw new Error(`${schema.typeName} has no field ${name}`);
  return field.number;
}

const F = {
  cla: {
    clusterName: fieldNumber(ClusterLoadAssignmentSchema, "cluster_name"),
    endpoints: fieldNumber(ClusterLoadAssignmentSchema, "endpoints"),
  },
  lle: {
    locality: fieldNumber(LocalityLbEndpointsSchema, "locality"),
    lbEndpoints: fieldNumber(LocalityLbEndpointsSchema, "lb_endpoints"),
    weight: fieldNumber(LocalityLbEndpointsSchema, "load_balancing_weight"),
    priority: fieldNumber(LocalityLbEndpointsSchema, "priority"),
  },
  locality: {
    region: fieldNumber(LocalitySchema, "region"),
    zone: fieldNumber(LocalitySchema, "zone"),
    subZone: fieldNumber(LocalitySchema, "sub_zone"),
  },
  lbEndpoint: {
    endpoint: fieldNumber(LbEndpointSchema, "endpoint"),
    healthStatus: fieldNumber(LbEndpointSchema, "health_status"),
    weight: fieldNumber(LbEndpointSchema, "load_balancing_weight"),
  },
  endpoint: { address: fieldNumber(EndpointSchema, "address") },
  address: { socketAddress: fieldNumber(AddressSchema, "socket_address") },
  socketAddress: {
    address: fieldNumber(SocketAddressSchema, "address"),
    portValue: fieldNumber(SocketAddressSchema, "port_value"),
  },
  cluster: {
    name: fieldNumber(ClusterSchema, "name"),
    type: fieldNumber(ClusterSchema, "type"),
    edsClusterConfig: fieldNumber(ClusterSchema, "eds_cluster_config"),
    connectTimeout: fieldNumber(ClusterSchema, "connect_timeout"),
    lbPolicy: fieldNumber(ClusterSchema, "lb_policy"),
    loadAssignment: fieldNumber(ClusterSchema, "load_assignment"),
    protocolOptions: fieldNumber(ClusterSchema, "typed_extension_protocol_options"),
    lrsServer: fieldNumber(ClusterSchema, "lrs_server"),
  },
  eds: {
    edsConfig: fieldNumber(Cluster_EdsClusterConfigSchema, "eds_config"),
    serviceName: fieldNumber(Cluster_EdsClusterConfigSchema, "service_name"),
  },
  configSource: {
    ads: fieldNumber(ConfigSourceSchema, "ads"),
    resourceApiVersion: fieldNumber(ConfigSourceSchema, "resource_api_version"),
    self: fieldNumber(ConfigSourceSchema, "self"),
  },
  http: { explicit: fieldNumber(HttpProtocolOptionsSchema, "explicit_http_config") },
  explicit: {
    http2: fieldNumber(HttpProtocolOptions_ExplicitHttpConfigSchema, "http2_protocol_options"),
  },
} as const;

const isEmpty = (object: JsonObject) => Object.keys(object).length === 0;

function string(writer: WireWriter, field: number, value: string): void {
  if (value !== "") writer.tag(field, WireType.LengthDelimited).string(value);
}

function uint32Wrapper(writer: WireWriter, field: number, value: number): void {
  writer.tag(field, WireType.LengthDelimited).fork();
  if (value !== 0) writer.tag(1, WireType.Varint).varint(value);
  writer.join();
}

/** A socket address with nothing unmodelled: a Unix socket or an internal address takes the generic path. */
function endpointEligible(endpoint: EndpointSpec): boolean {
  return isEmpty(endpoint.extra) && addressKind(endpoint.address) === "socket";
}

function localityEligible(locality: LocalitySpec): boolean {
  return isEmpty(locality.extra) && locality.endpoints.every(endpointEligible);
}

function writeEndpoint(writer: WireWriter, endpoint: EndpointSpec): void {
  // LbEndpoint { endpoint { address { socket_address { address, port_value } } }, health_status, load_balancing_weight }
  writer.tag(F.lbEndpoint.endpoint, WireType.LengthDelimited).fork();
  writer.tag(F.endpoint.address, WireType.LengthDelimited).fork();
  writer.tag(F.address.socketAddress, WireType.LengthDelimited).fork();
  string(writer, F.socketAddress.address, endpoint.address);
  writer.tag(F.socketAddress.portValue, WireType.Varint).varint(endpoint.port); // a oneof member: always written
  writer.join().join().join();
  const health = HealthStatus[endpoint.healthStatus];
  if (health !== 0) writer.tag(F.lbEndpoint.healthStatus, WireType.Varint).varint(health);
  if (endpoint.weight !== null) uint32Wrapper(writer, F.lbEndpoint.weight, endpoint.weight);
}

function writeAssignmentBody(writer: WireWriter, cluster: ClusterSpec): void {
  string(writer, F.cla.clusterName, edsResourceName(cluster));
  for (const locality of cluster.localities) {
    writer.tag(F.cla.endpoints, WireType.LengthDelimited).fork();
    writer.tag(F.lle.locality, WireType.LengthDelimited).fork();
    string(writer, F.locality.region, locality.region);
    string(writer, F.locality.zone, locality.zone);
    string(writer, F.locality.subZone, locality.subZone);
    writer.join();
    for (const endpoint of locality.endpoints) {
      writer.tag(F.lle.lbEndpoints, WireType.LengthDelimited).fork();
      writeEndpoint(writer, endpoint);
      writer.join();
    }
    if (locality.weight !== null) uint32Wrapper(writer, F.lle.weight, locality.weight);
    if (locality.priority !== 0)
      writer.tag(F.lle.priority, WireType.Varint).varint(locality.priority);
    writer.join();
  }
}

/**
 * True when a cluster's assignment is written by encodeAssignmentFast: from modelled fields only,
 * every one of which validation checks itself (validate-envoy.ts reads no such resource again).
 */
export function assignmentEncodesFast(cluster: ClusterSpec): boolean {
  return isEmpty(cluster.assignmentExtra) && cluster.localities.every(localityEligible);
}

/**
 * The discovery types written here: those whose endpoints are an EDS assignment or an inline
 * load_assignment. ORIGINAL_DST and extension (CUSTOM) clusters take the generic path.
 */
const FAST_TYPES: Partial<Record<ClusterSpec["discoveryType"], number>> = {
  EDS: Cluster_DiscoveryType.EDS,
  STATIC: Cluster_DiscoveryType.STATIC,
  STRICT_DNS: Cluster_DiscoveryType.STRICT_DNS,
  LOGICAL_DNS: Cluster_DiscoveryType.LOGICAL_DNS,
};

/** Reused by every call: encoding is synchronous, and `finish` copies the bytes out. */
const shared = new WireWriter();

/** envoy.config.endpoint.v3.ClusterLoadAssignment, or undefined when it needs the generic path. */
export function encodeAssignmentFast(cluster: ClusterSpec): Uint8Array | undefined {
  if (!assignmentEncodesFast(cluster)) return undefined;
  const writer = shared;
  writeAssignmentBody(writer, cluster);
  return writer.finish();
}

const HTTP_PROTOCOL_OPTIONS_TYPE_URL = `type.googleapis.com/${HTTP_PROTOCOL_OPTIONS}`;
const HTTP2_OPTIONS: Uint8Array = (() => {
  const writer = new WireWriter();
  writer.tag(F.http.explicit, WireType.LengthDelimited).fork();
  writer.tag(F.explicit.http2, WireType.LengthDelimited).fork().join();
  writer.join();
  return writer.finish();
})();

/**
 * True when a cluster is written by encodeClusterFast: from modelled fields only (its inline
 * assignment too), every one of which validation checks itself (validate-envoy.ts).
 */
export function clusterEncodesFast(cluster: ClusterSpec): boolean {
  return (
    isEmpty(cluster.extra) &&
    cluster.healthChecks.length === 0 &&
    cluster.circuitBreakers === null &&
    cluster.outlierDetection === null &&
    cluster.tlsSecretName === null &&
    FAST_TYPES[cluster.discoveryType] !== undefined &&
    (cluster.discoveryType === "EDS" || assignmentEncodesFast(cluster)) &&
    Number.isInteger(cluster.connectTimeoutMs) &&
    cluster.connectTimeoutMs >= 0
  );
}

/** envoy.config.cluster.v3.Cluster, or undefined when it needs the generic path. */
export function encodeClusterFast(cluster: ClusterSpec): Uint8Array | undefined {
  const type = FAST_TYPES[cluster.discoveryType];
  if (type === undefined || !clusterEncodesFast(cluster)) return undefined;
  const writer = shared;
  string(writer, F.cluster.name, cluster.name);
  // `type` is a oneof member (cluster_discovery_type): written even when STATIC (0).
  writer.tag(F.cluster.type, WireType.Varint).varint(type);
  if (cluster.discoveryType === "EDS") {
    writer.tag(F.cluster.edsClusterConfig, WireType.LengthDelimited).fork();
    writer.tag(F.eds.edsConfig, WireType.LengthDelimited).fork();
    writer.tag(F.configSource.ads, WireType.LengthDelimited).fork().join();
    writer.tag(F.configSource.resourceApiVersion, WireType.Varint).varint(ApiVersion.V3);
    writer.join();
    string(writer, F.eds.serviceName, cluster.edsServiceName ?? "");
    writer.join();
  }
  // connect_timeout: google.protobuf.Duration { seconds, nanos }
  writer.tag(F.cluster.connectTimeout, WireType.LengthDelimited).fork();
  const seconds = Math.floor(cluster.connectTimeoutMs / 1000);
  const nanos = (cluster.connectTimeoutMs % 1000) * 1_000_000;
  if (seconds !== 0) writer.tag(1, WireType.Varint).varint(seconds);
  if (nanos !== 0) writer.tag(2, WireType.Varint).varint(nanos);
  writer.join();
  const lbPolicy = Cluster_LbPolicy[cluster.lbPolicy];
  if (lbPolicy !== 0) writer.tag(F.cluster.lbPolicy, WireType.Varint).varint(lbPolicy);
  if (cluster.discoveryType !== "EDS") {
    writer.tag(F.cluster.loadAssignment, WireType.LengthDelimited).fork();
    writeAssignmentBody(writer, cluster);
    writer.join();
  }
  if (cluster.http2) {
    // map<string, Any> entry { key, value: Any { type_url, value } }
    writer.tag(F.cluster.protocolOptions, WireType.LengthDelimited).fork();
    writer.tag(1, WireType.LengthDelimited).string(HTTP_PROTOCOL_OPTIONS);
    writer.tag(2, WireType.LengthDelimited).fork();
    writer.tag(1, WireType.LengthDelimited).string(HTTP_PROTOCOL_OPTIONS_TYPE_URL);
    writer.tag(2, WireType.LengthDelimited).bytes(HTTP2_OPTIONS);
    writer.join();
    writer.join();
  }
  if (cluster.reportLoad) {
    // lrs_server: ConfigSource { self: SelfConfigSource {} } (a oneof member: written empty).
    writer.tag(F.cluster.lrsServer, WireType.LengthDelimited).fork();
    writer.tag(F.configSource.self, WireType.LengthDelimited).fork().join();
    writer.join();
  }
  return writer.finish();
}
