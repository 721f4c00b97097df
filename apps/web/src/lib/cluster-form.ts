import { create, type JsonObject } from "@bufbuild/protobuf";
import {
  type Cluster,
  ClusterSchema,
  DiscoveryType,
  DiscoveryTypeSchema,
  HealthStatus,
  HealthStatusSchema,
  LbPolicy,
  LbPolicySchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { z } from "zod";
import { envoyName, http2Source, withoutHttp2 } from "./envoy-facts";
import {
  durationMs,
  type EnumValueName,
  enumName,
  enumValueNames,
  isEmptyObject,
  isObject,
  jsonText,
  mergeManaged,
  msDuration,
  objectName,
  parseJsonObjects,
  parseUint,
  passthrough,
  toJsonText,
  uintText,
  uintToText,
} from "./form-values";
import type { FieldMap } from "./issue-path";

/** The cluster form's values, and how they become a `switchyard.v1.Cluster` and back. */

/** The choices, in proto order (config.proto), without the UNSPECIFIED values. */
export type DiscoveryTypeName = EnumValueName<typeof DiscoveryType>;
export type LbPolicyName = EnumValueName<typeof LbPolicy>;
export type HealthStatusName = EnumValueName<typeof HealthStatus>;
export const discoveryTypes = enumValueNames(DiscoveryTypeSchema, DiscoveryType);
export const lbPolicies = enumValueNames(LbPolicySchema, LbPolicy);
export const healthStatuses = enumValueNames(HealthStatusSchema, HealthStatus);

/**
 * An endpoint's address as the model writes it (envoy-address.ts in @switchyard/snapshot): an IP
 * or host name with a port, or a Unix socket (unix://PATH) or internal listener (envoy://NAME),
 * which have none.
 */
const portless = (address: string) =>
  address.trim().startsWith("unix://") || address.trim().startsWith("envoy://");

const endpointSchema = z
  .object({
    address: z
      .string()
      .trim()
      .min(1, "Enter an IP address or host name, unix:///path.sock or envoy://LISTENER"),
    port: z.string(),
    weight: uintText({ min: 1, optional: true }),
    healthStatus: z.enum(healthStatuses),
    extra: passthrough,
  })
  .superRefine((e, ctx) => {
    if (portless(e.address)) {
      if (e.port.trim() !== "" && e.port.trim() !== "0")
        ctx.addIssue({
          code: "custom",
          path: ["port"],
          message: "A Unix socket or internal listener has no port: clear it",
        });
      return;
    }
    const port = uintText({ min: 1, max: 65535, what: "a port" }).safeParse(e.port);
    if (!port.success)
      ctx.addIssue({
        code: "custom",
        path: ["port"],
        message: port.error.issues[0]?.message ?? "Enter a port",
      });
  });

const localitySchema = z.object({
  region: z.string().trim(),
  zone: z.string().trim(),
  subZone: z.string().trim(),
  weight: uintText({ min: 1, optional: true }),
  priority: uintText({ min: 0, max: 1000 }),
  endpoints: z.array(endpointSchema),
  extra: passthrough,
});

export const clusterFormSchema = z.object({
  name: objectName("cluster"),
  discoveryType: z.enum(discoveryTypes),
  lbPolicy: z.enum(lbPolicies),
  connectTimeoutMs: uintText({ min: 1, what: "a timeout" }),
  http2: z.boolean(),
  reportLoad: z.boolean(),
  tlsSecretName: z.string().trim(),
  edsServiceName: z.string().trim(),
  healthChecks: jsonText("array"),
  maxConnections: uintText({ optional: true }),
  maxPendingRequests: uintText({ optional: true }),
  maxRequests: uintText({ optional: true }),
  maxRetries: uintText({ optional: true }),
  consecutive5xx: uintText({ optional: true }),
  ejectionIntervalMs: uintText({ min: 1, optional: true }),
  baseEjectionTimeMs: uintText({ min: 1, optional: true }),
  maxEjectionPercent: uintText({ max: 100, optional: true }),
  localities: z.array(localitySchema),
});

export type ClusterForm = z.infer<typeof clusterFormSchema>;
export type EndpointForm = ClusterForm["localities"][number]["endpoints"][number];
export type LocalityForm = ClusterForm["localities"][number];

export const newEndpoint = (): EndpointForm => ({
  address: "",
  port: "",
  weight: "",
  healthStatus: "UNKNOWN",
  extra: undefined,
});

export const newLocality = (): LocalityForm => ({
  region: "",
  zone: "",
  subZone: "",
  weight: "1",
  priority: "0",
  endpoints: [newEndpoint()],
  extra: undefined,
});

export function emptyClusterForm(): ClusterForm {
  return {
    name: "",
    discoveryType: "EDS",
    lbPolicy: "ROUND_ROBIN",
    connectTimeoutMs: "5000",
    http2: false,
    reportLoad: false,
    tlsSecretName: "",
    edsServiceName: "",
    healthChecks: "",
    maxConnections: "",
    maxPendingRequests: "",
    maxRequests: "",
    maxRetries: "",
    consecutive5xx: "",
    ejectionIntervalMs: "",
    baseEjectionTimeMs: "",
    maxEjectionPercent: "",
    localities: [newLocality()],
  };
}

const enumValue = (values: Record<string, string | number>, name: string): number => {
  const v = values[name];
  return typeof v === "number" ? v : 0;
};

/** The circuit breaker thresholds the form edits: those of the DEFAULT priority. */
const thresholdKeys = [
  "maxConnections",
  "maxPendingRequests",
  "maxRequests",
  "maxRetries",
] as const;
export const outlierKeys = ["consecutive5xx", "interval", "baseEjectionTime", "maxEjectionPercent"];

/** The circuit breaker fields the form edits: the DEFAULT priority's thresholds. */
export const circuitBreakerKeys = ["thresholds"];

/** The thresholds the form does not show: those of the other priorities, and the default's other fields. */
export function otherThresholds(circuitBreakers: JsonObject | undefined): string[] {
  const list = Array.isArray(circuitBreakers?.thresholds) ? circuitBreakers.thresholds : [];
  const current = defaultThresholds(circuitBreakers);
  const others = list
    .filter((t): t is JsonObject => isObject(t) && t !== current)
    .map((t) => `the ${String(t.priority ?? "DEFAULT")} priority`);
  const fields = Object.keys(current ?? {})
    .filter((k) => k !== "priority" && !(thresholdKeys as readonly string[]).includes(k))
    .map(envoyName);
  return [...fields, ...others];
}

function defaultThresholds(circuitBreakers: JsonObject | undefined): JsonObject | undefined {
  const list = circuitBreakers?.thresholds;
  if (!Array.isArray(list)) return undefined;
  return list.find(
    (t): t is JsonObject => isObject(t) && (t.priority === undefined || t.priority === "DEFAULT"),
  );
}

const numberText = (value: unknown): string => (typeof value === "number" ? String(value) : "");

export function clusterFormOf(cluster: Cluster): ClusterForm {
  const thresholds = defaultThresholds(cluster.circuitBreakers);
  const od = cluster.outlierDetection;
  return {
    name: cluster.name,
    discoveryType: enumName(DiscoveryType, cluster.discoveryType, discoveryTypes, "EDS"),
    lbPolicy: enumName(LbPolicy, cluster.lbPolicy, lbPolicies, "ROUND_ROBIN"),
    connectTimeoutMs: uintToText(cluster.connectTimeoutMs || 5000),
    // Every way Envoy takes HTTP/2 to the upstream, not only the one the model extracts.
    http2: http2Source(cluster) !== undefined,
    reportLoad: cluster.reportLoad,
    tlsSecretName: cluster.tlsSecretName ?? "",
    edsServiceName: cluster.edsServiceName ?? "",
    healthChecks: toJsonText(cluster.healthChecks),
    maxConnections: numberText(thresholds?.maxConnections),
    maxPendingRequests: numberText(thresholds?.maxPendingRequests),
    maxRequests: numberText(thresholds?.maxRequests),
    maxRetries: numberText(thresholds?.maxRetries),
    consecutive5xx: numberText(od?.consecutive5xx),
    ejectionIntervalMs: uintToText(durationMs(od?.interval)),
    baseEjectionTimeMs: uintToText(durationMs(od?.baseEjectionTime)),
    maxEjectionPercent: numberText(od?.maxEjectionPercent),
    localities: cluster.localities.map((l) => ({
      region: l.region,
      zone: l.zone,
      subZone: l.subZone,
      weight: uintToText(l.weight),
      priority: String(l.priority),
      extra: l.extra,
      endpoints: l.endpoints.map((e) => ({
        address: e.address,
        port: portless(e.address) ? "" : String(e.port),
        weight: uintToText(e.weight),
        healthStatus: enumName(HealthStatus, e.healthStatus, healthStatuses, "UNKNOWN"),
        extra: e.extra,
      })),
    })),
  };
}

function circuitBreakersOf(
  form: ClusterForm,
  base: JsonObject | undefined,
): JsonObject | undefined {
  const list = Array.isArray(base?.thresholds) ? base.thresholds : [];
  const current = defaultThresholds(base);
  const merged = mergeManaged(current, thresholdKeys, {
    maxConnections: parseUint(form.maxConnections),
    maxPendingRequests: parseUint(form.maxPendingRequests),
    maxRequests: parseUint(form.maxRequests),
    maxRetries: parseUint(form.maxRetries),
  });
  const others = list.filter((t) => t !== current);
  const thresholds = isEmptyObject(merged) ? others : [merged, ...others];
  const out = mergeManaged(base, ["thresholds"], {
    thresholds: thresholds.length > 0 ? thresholds : undefined,
  });
  return isEmptyObject(out) ? undefined : out;
}

function outlierDetectionOf(
  form: ClusterForm,
  base: JsonObject | undefined,
): JsonObject | undefined {
  const interval = parseUint(form.ejectionIntervalMs);
  const ejection = parseUint(form.baseEjectionTimeMs);
  const out = mergeManaged(base, outlierKeys, {
    consecutive5xx: parseUint(form.consecutive5xx),
    interval: interval === undefined ? undefined : msDuration(interval),
    baseEjectionTime: ejection === undefined ? undefined : msDuration(ejection),
    maxEjectionPercent: parseUint(form.maxEjectionPercent),
  });
  return isEmptyObject(out) ? undefined : out;
}

/**
 * The message to save. `original` is the stored cluster being edited, if any: what the form does
 * not show (`extra`, other circuit breaker priorities, ...) is kept from it.
 */
export function clusterOfForm(form: ClusterForm, original?: Cluster): Cluster {
  // HTTP/2 said in another of Envoy's ways (the deprecated field, auto_config, ...) stays as it
  // was written while the box is checked; unchecked, every way of saying it is taken out.
  const source = original === undefined ? undefined : http2Source(original);
  const writtenElsewhere = source !== undefined && source !== "explicit";
  return create(ClusterSchema, {
    name: form.name.trim(),
    discoveryType: enumValue(DiscoveryType, form.discoveryType),
    lbPolicy: enumValue(LbPolicy, form.lbPolicy),
    connectTimeoutMs: parseUint(form.connectTimeoutMs) ?? 0,
    http2: form.http2 && !writtenElsewhere,
    reportLoad: form.reportLoad,
    tlsSecretName: form.tlsSecretName.trim() || undefined,
    edsServiceName: form.edsServiceName.trim() || undefined,
    healthChecks: parseJsonObjects(form.healthChecks),
    circuitBreakers: circuitBreakersOf(form, original?.circuitBreakers),
    outlierDetection: outlierDetectionOf(form, original?.outlierDetection),
    extra: form.http2 ? original?.extra : withoutHttp2(original?.extra),
    assignmentExtra: original?.assignmentExtra,
    localities: form.localities.map((l) => ({
      region: l.region.trim(),
      zone: l.zone.trim(),
      subZone: l.subZone.trim(),
      weight: parseUint(l.weight),
      priority: parseUint(l.priority) ?? 0,
      extra: l.extra,
      endpoints: l.endpoints.map((e) => ({
        address: e.address.trim(),
        port: parseUint(e.port) ?? 0,
        weight: parseUint(e.weight),
        healthStatus: enumValue(HealthStatus, e.healthStatus),
        extra: e.extra,
      })),
    })),
  });
}

export const clusterFieldMap: FieldMap = {
  fields: [
    "name",
    "discoveryType",
    "lbPolicy",
    "connectTimeoutMs",
    "http2",
    "reportLoad",
    "tlsSecretName",
    "edsServiceName",
    "healthChecks",
    "localities.*.region",
    "localities.*.zone",
    "localities.*.subZone",
    "localities.*.weight",
    "localities.*.priority",
    "localities.*.endpoints",
    "localities.*.endpoints.*.address",
    "localities.*.endpoints.*.port",
    "localities.*.endpoints.*.weight",
    "localities.*.endpoints.*.healthStatus",
  ],
  aliases: {
    "circuitBreakers.thresholds": "maxConnections",
    "outlierDetection.consecutive5xx": "consecutive5xx",
    "outlierDetection.interval": "ejectionIntervalMs",
    "outlierDetection.baseEjectionTime": "baseEjectionTimeMs",
    "outlierDetection.maxEjectionPercent": "maxEjectionPercent",
    localities: "localities",
  },
};
