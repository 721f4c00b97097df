import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { isObject } from "./form-values";

/*
 * What a form shows is decided by more Envoy fields than the one the model extracts: a cluster
 * says HTTP/2 in three ways, a listener's chain can take its certificate from a file, inline or
 * over SDS. These read every such field (from the model's `extra`, the Envoy fields it keeps as
 * proto3 JSON), so the forms show what Envoy will do, not only what they edit. Pure.
 */

/** Envoy's field name for a proto3 JSON key: `statPrefix` → `stat_prefix`. */
export const envoyName = (key: string): string =>
  key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export const HTTP_PROTOCOL_OPTIONS = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions";

/**
 * Where a cluster's HTTP/2 to its upstream comes from:
 * - "explicit": typed_extension_protocol_options' HttpProtocolOptions with
 *   explicit_http_config.http2_protocol_options (the model's `http2`);
 * - "deprecated": the Cluster's own http2_protocol_options, which Envoy still honours (the v3
 *   Cluster reference: "deprecated, use typed_extension_protocol_options");
 * - "auto": HttpProtocolOptions auto_config: HTTP/2 or HTTP/1.1, whichever ALPN negotiates;
 * - "downstream": use_downstream_protocol_config with http2_protocol_options: HTTP/2 when the
 *   downstream request is;
 * - undefined: HTTP/1.1.
 * https://www.envoyproxy.io/docs/envoy/latest/api-v3/extensions/upstreams/http/v3/http_protocol_options.proto
 */
export type Http2Source = "explicit" | "deprecated" | "auto" | "downstream";

function httpProtocolOptions(extra: JsonObject | undefined): JsonObject | undefined {
  const options = extra?.typedExtensionProtocolOptions;
  const entry = isObject(options) ? options[HTTP_PROTOCOL_OPTIONS] : undefined;
  return isObject(entry) ? entry : undefined;
}

export function http2Source(cluster: {
  readonly http2: boolean;
  readonly extra?: JsonObject | undefined;
}): Http2Source | undefined {
  if (cluster.http2) return "explicit";
  const entry = httpProtocolOptions(cluster.extra);
  if (
    isObject(entry?.explicitHttpConfig) &&
    isObject(entry.explicitHttpConfig.http2ProtocolOptions)
  )
    return "explicit";
  if (isObject(cluster.extra?.http2ProtocolOptions)) return "deprecated";
  if (isObject(entry?.autoConfig)) return "auto";
  if (
    isObject(entry?.useDownstreamProtocolConfig) &&
    isObject(entry.useDownstreamProtocolConfig.http2ProtocolOptions)
  )
    return "downstream";
  return undefined;
}

/** What the cluster form says under "HTTP/2 to upstream" about where it is set. */
export function http2SourceText(source: Http2Source | undefined): string | undefined {
  switch (source) {
    case "deprecated":
      return "On through the cluster’s http2_protocol_options (Envoy’s deprecated field). Unchecking removes it.";
    case "auto":
      return "HTTP/2 or HTTP/1.1, whichever the upstream negotiates by ALPN (HttpProtocolOptions auto_config). Unchecking makes it HTTP/1.1.";
    case "downstream":
      return "HTTP/2 when the downstream request is (HttpProtocolOptions use_downstream_protocol_config). Unchecking makes it HTTP/1.1.";
    default:
      return undefined;
  }
}

/**
 * The cluster's Envoy fields with every way of saying HTTP/2 taken out (for an unchecked "HTTP/2
 * to upstream"): the deprecated field, and HttpProtocolOptions' auto_config and
 * use_downstream_protocol_config, which become explicit HTTP/1.1 when the entry has other
 * settings (its upstream_protocol_options oneof is required), or go with the entry otherwise.
 */
export function withoutHttp2(extra: JsonObject | undefined): JsonObject | undefined {
  if (extra === undefined) return undefined;
  const { http2ProtocolOptions: _, ...rest } = extra;
  const entry = httpProtocolOptions(extra);
  const says = http2Source({
    http2: false,
    extra: { typedExtensionProtocolOptions: { [HTTP_PROTOCOL_OPTIONS]: entry ?? {} } },
  });
  if (entry === undefined || says === undefined) {
    return extra.http2ProtocolOptions === undefined ? extra : rest;
  }
  const {
    autoConfig: _auto,
    useDownstreamProtocolConfig: _downstream,
    explicitHttpConfig: _explicit,
    ...entryRest
  } = entry;
  const { typedExtensionProtocolOptions: _options, ...others } = rest;
  const options = { ...asObject(extra.typedExtensionProtocolOptions) };
  if (Object.keys(entryRest).some((key) => key !== "@type")) {
    options[HTTP_PROTOCOL_OPTIONS] = {
      ...entryRest,
      explicitHttpConfig: { httpProtocolOptions: {} },
    };
  } else delete options[HTTP_PROTOCOL_OPTIONS];
  return Object.keys(options).length > 0
    ? { ...others, typedExtensionProtocolOptions: options }
    : others;
}

function asObject(value: JsonValue | undefined): JsonObject {
  return isObject(value) ? value : {};
}

/** Whether a transport socket is Envoy's TLS (an Upstream or Downstream TlsContext). */
export function isTlsSocket(socket: JsonValue | undefined): boolean {
  const type = isObject(socket) ? asObject(socket.typedConfig)["@type"] : undefined;
  return typeof type === "string" && /\.tls\.v3\.(Upstream|Downstream)TlsContext$/.test(type);
}

/** Where a DataSource's bytes come from: a file's path, an environment variable, or inline. */
function dataSource(value: JsonValue | undefined): string | undefined {
  if (!isObject(value)) return undefined;
  if (typeof value.filename === "string") return `file ${value.filename}`;
  if (typeof value.environmentVariable === "string")
    return `environment variable ${value.environmentVariable}`;
  if (value.inlineString !== undefined || value.inlineBytes !== undefined) return "inline";
  return undefined;
}

/** SDS secret references: `name (SDS)` each. */
function sdsNames(value: JsonValue | undefined): string[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list
    .filter(isObject)
    .map((config) =>
      typeof config.name === "string" && config.name !== "" ? config.name : "unnamed",
    )
    .map((name) => `“${name}” over SDS`);
}

/**
 * The TLS a transport socket kept in the model's `extra` configures, in words ("certificate from
 * file /etc/envoy/cert.pem, validation context inline"), or undefined when there is none: the
 * sources the form's "TLS secret" field (an SDS secret served by Switchyard) does not edit. A
 * transport socket that is not TLS is named.
 * https://www.envoyproxy.io/docs/envoy/latest/api-v3/extensions/transport_sockets/tls/v3/common.proto
 */
export function transportSocketText(socket: JsonValue | undefined): string | undefined {
  if (!isObject(socket)) return undefined;
  const typedConfig = asObject(socket.typedConfig);
  const type = typeof typedConfig["@type"] === "string" ? typedConfig["@type"] : "";
  if (!isTlsSocket(socket)) {
    const name = typeof socket.name === "string" ? socket.name : type.split("/").pop();
    return `The transport socket is ${name || "set"} (in the Envoy fields; edit it as Envoy YAML).`;
  }
  const common = asObject(typedConfig.commonTlsContext);
  const parts: string[] = [];
  const certificates = Array.isArray(common.tlsCertificates) ? common.tlsCertificates : [];
  for (const certificate of certificates.filter(isObject)) {
    const chain = dataSource(certificate.certificateChain);
    parts.push(`certificate from ${chain ?? "the Envoy fields"}`);
  }
  for (const name of sdsNames(common.tlsCertificateSdsSecretConfigs))
    parts.push(`certificate ${name}`);
  if (common.tlsCertificateProviderInstance !== undefined)
    parts.push("certificate from a certificate provider");
  const validation = asObject(common.validationContext);
  const ca = dataSource(validation.trustedCa);
  if (ca !== undefined) parts.push(`trusted CA from ${ca}`);
  else if (common.validationContext !== undefined) parts.push("a validation context");
  for (const name of sdsNames(common.validationContextSdsSecretConfig))
    parts.push(`validation context ${name}`);
  if (common.combinedValidationContext !== undefined) parts.push("a combined validation context");
  const what = parts.length > 0 ? parts.join(", ") : "Envoy’s defaults";
  return `TLS is on: ${what} (in the Envoy fields; edit them as Envoy YAML).`;
}

/**
 * The fields of `value` beside those a form edits (`managed`), by Envoy's names, e.g. outlier
 * detection's consecutive_gateway_failure: what the form keeps but does not show.
 */
export function otherFields(value: JsonValue | undefined, managed: readonly string[]): string[] {
  if (!isObject(value)) return [];
  return Object.keys(value)
    .filter((key) => !managed.includes(key))
    .map(envoyName);
}
