import { create, type JsonObject } from "@bufbuild/protobuf";
import { type Listener, ListenerSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { z } from "zod";
import {
  durationMs,
  isObject,
  joinList,
  jsonText,
  msDuration,
  objectName,
  parseJsonObjects,
  parseUint,
  passthrough,
  splitList,
  toJsonText,
  uintText,
  uintToText,
} from "./form-values";
import type { FieldMap } from "./issue-path";

/** The listener form's values, and how they become a `switchyard.v1.Listener` and back. */

export const TCP_PROXY_NAME = "envoy.filters.network.tcp_proxy";
export const TCP_PROXY_TYPE =
  "type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy";

/** The TcpProxy fields the form edits; the others are kept as written (`extra`). */
const TCP_PROXY_KEYS = [
  "@type",
  "statPrefix",
  "cluster",
  "weightedClusters",
  "idleTimeout",
  "accessLog",
];

/**
 * A chain's tcp_proxy (envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy): where connections
 * go (one cluster, or weighted clusters), its stat prefix, idle timeout and access log.
 * https://www.envoyproxy.io/docs/envoy/latest/api-v3/extensions/filters/network/tcp_proxy/v3/tcp_proxy.proto
 */
const tcpProxySchema = z.object({
  statPrefix: z.string().trim(),
  target: z.enum(["cluster", "weighted"]),
  cluster: z.string().trim(),
  weightedClusters: z.array(
    z.object({
      name: z.string().trim().min(1, "Enter a cluster"),
      // TcpProxy.WeightedCluster.ClusterWeight.weight: uint32, gte 1.
      weight: uintText({ min: 1, what: "a weight" }),
      extra: passthrough,
    }),
  ),
  /** Empty: Envoy's default, one hour; 0 turns the timeout off. */
  idleTimeoutMs: uintText({ optional: true }),
  accessLog: jsonText("array"),
  /** The TcpProxy's other fields (hash_policy, tunneling_config, ...). */
  extra: passthrough,
  /** The filter's own other fields, beside `name` and `typed_config`. */
  filterExtra: passthrough,
});

export type TcpProxyForm = z.infer<typeof tcpProxySchema>;

export const newTcpProxy = (): TcpProxyForm => ({
  statPrefix: "tcp",
  target: "cluster",
  cluster: "",
  weightedClusters: [],
  idleTimeoutMs: "",
  accessLog: "",
  extra: undefined,
  filterExtra: undefined,
});

/** The tcp_proxy a filter is, as the form edits it; undefined when it is another filter. */
export function tcpProxyFormOf(filter: JsonObject | undefined): TcpProxyForm | undefined {
  if (filter === undefined) return undefined;
  const { name, typedConfig, ...filterExtra } = filter;
  if (!isObject(typedConfig) || typedConfig["@type"] !== TCP_PROXY_TYPE) return undefined;
  const extra: JsonObject = {};
  for (const [key, value] of Object.entries(typedConfig))
    if (!TCP_PROXY_KEYS.includes(key)) extra[key] = value;
  const weighted = isObject(typedConfig.weightedClusters)
    ? typedConfig.weightedClusters
    : undefined;
  const entries = Array.isArray(weighted?.clusters) ? weighted.clusters.filter(isObject) : [];
  return {
    statPrefix: typeof typedConfig.statPrefix === "string" ? typedConfig.statPrefix : "",
    target: weighted !== undefined ? "weighted" : "cluster",
    cluster: typeof typedConfig.cluster === "string" ? typedConfig.cluster : "",
    weightedClusters: entries.map(({ name: cluster, weight, ...rest }) => ({
      name: typeof cluster === "string" ? cluster : "",
      weight: typeof weight === "number" ? String(weight) : "",
      extra: Object.keys(rest).length > 0 ? rest : undefined,
    })),
    idleTimeoutMs: uintToText(durationMs(typedConfig.idleTimeout)),
    accessLog: toJsonText(typedConfig.accessLog),
    extra: Object.keys(extra).length > 0 ? extra : undefined,
    // The filter's own other fields, and its name when it is not the usual one.
    filterExtra:
      Object.keys(filterExtra).length > 0 || (typeof name === "string" && name !== TCP_PROXY_NAME)
        ? {
            ...filterExtra,
            ...(typeof name === "string" && name !== TCP_PROXY_NAME ? { name } : {}),
          }
        : undefined,
  };
}

/** The tcp_proxy filter of the form: its fields over the ones it keeps as written. */
export function tcpProxyFilterOf(form: TcpProxyForm): JsonObject {
  const idle = parseUint(form.idleTimeoutMs);
  const accessLog = parseJsonObjects(form.accessLog);
  const typedConfig: JsonObject = {
    "@type": TCP_PROXY_TYPE,
    ...form.extra,
    statPrefix: form.statPrefix.trim(),
  };
  if (form.target === "cluster") typedConfig.cluster = form.cluster.trim();
  else
    typedConfig.weightedClusters = {
      clusters: form.weightedClusters.map((c) => ({
        ...c.extra,
        name: c.name.trim(),
        weight: parseUint(c.weight) ?? 0,
      })),
    };
  if (idle !== undefined) typedConfig.idleTimeout = msDuration(idle);
  if (accessLog.length > 0) typedConfig.accessLog = accessLog;
  return { name: TCP_PROXY_NAME, ...form.filterExtra, typedConfig };
}

const filterChainSchema = z
  .object({
    name: z.string().trim(),
    /** The listener's default_filter_chain: it takes the connections no other chain matches. */
    isDefault: z.boolean(),
    serverNames: z.string(),
    tlsSecretName: z.string().trim(),
    /**
     * "http": network filters, then the HTTP connection manager; "tcp": network filters, then a
     * tcp_proxy (its own form); "network": network filters only, as Envoy JSON.
     */
    kind: z.enum(["http", "tcp", "network"]),
    networkFilters: jsonText("array"),
    statPrefix: z.string().trim(),
    routeSource: z.enum(["rds", "inline"]),
    routeConfigName: z.string().trim(),
    httpFilters: jsonText("array"),
    accessLog: jsonText("array"),
    hcmExtra: passthrough,
    tcp: tcpProxySchema,
    extra: passthrough,
  })
  .superRefine((c, ctx) => {
    if (c.kind === "tcp") {
      // TcpProxy: stat_prefix min_len 1; the cluster_specifier oneof is required, and
      // WeightedCluster.clusters has min_items 1.
      if (c.tcp.statPrefix === "")
        ctx.addIssue({
          code: "custom",
          path: ["tcp", "statPrefix"],
          message: "Enter a stat prefix",
        });
      if (c.tcp.target === "cluster" && c.tcp.cluster === "")
        ctx.addIssue({
          code: "custom",
          path: ["tcp", "cluster"],
          message: "Enter the cluster connections go to",
        });
      if (c.tcp.target === "weighted" && c.tcp.weightedClusters.length === 0)
        ctx.addIssue({
          code: "custom",
          path: ["tcp", "weightedClusters"],
          message: "Add a cluster to split connections across",
        });
    }
    if (c.kind === "http" && c.routeConfigName === "") {
      ctx.addIssue({
        code: "custom",
        path: ["routeConfigName"],
        message: "Choose the route configuration this listener serves",
      });
    }
    if (c.kind === "network" && c.networkFilters.trim() === "") {
      ctx.addIssue({
        code: "custom",
        path: ["networkFilters"],
        message: "Add the chain's network filters, e.g. a tcp_proxy to a cluster",
      });
    }
  });

/** A Unix socket address as the model writes it (envoy-address.ts in @switchyard/snapshot). */
const UNIX_PREFIX = "unix://";

export const listenerFormSchema = z
  .object({
    name: objectName("listener"),
    /**
     * "api": a gRPC api listener (proxyless gRPC); "socket": an IP address and port, or a Unix
     * socket; "internal": an internal listener, reached by clusters of the same proxy as
     * envoy://NAME, which binds nothing.
     */
    mode: z.enum(["api", "socket", "internal"]),
    address: z.string().trim(),
    port: z.string(),
    filterChains: z.array(filterChainSchema),
  })
  .superRefine((l, ctx) => {
    if (l.mode === "api") {
      if (l.filterChains.length !== 1) {
        ctx.addIssue({
          code: "custom",
          path: ["filterChains"],
          message: "A gRPC api listener has exactly one filter chain",
        });
      }
      return;
    }
    if (l.mode === "socket") {
      if (l.address === "") {
        ctx.addIssue({
          code: "custom",
          path: ["address"],
          message: "Enter the address to listen on, e.g. 0.0.0.0, or unix:///run/envoy.sock",
        });
      }
      if (l.address.startsWith(UNIX_PREFIX)) {
        if (l.port.trim() !== "") {
          ctx.addIssue({
            code: "custom",
            path: ["port"],
            message: "A Unix socket has no port: clear it",
          });
        }
      } else {
        const port = uintText({ min: 0, max: 65535, what: "a port" }).safeParse(l.port);
        if (!port.success) {
          ctx.addIssue({
            code: "custom",
            path: ["port"],
            message: port.error.issues[0]?.message ?? "Enter a port",
          });
        }
      }
    }
    if (l.filterChains.length === 0) {
      ctx.addIssue({ code: "custom", path: ["filterChains"], message: "Add a filter chain" });
    }
    if (l.filterChains.filter((c) => c.isDefault).length > 1) {
      ctx.addIssue({
        code: "custom",
        path: ["filterChains"],
        message: "Only one filter chain can be the default",
      });
    }
  });

export type ListenerForm = z.infer<typeof listenerFormSchema>;
export type FilterChainForm = ListenerForm["filterChains"][number];

export const newFilterChain = (routeConfigName = ""): FilterChainForm => ({
  name: "",
  isDefault: false,
  serverNames: "",
  tlsSecretName: "",
  kind: "http",
  networkFilters: "",
  statPrefix: "ingress_http",
  routeSource: "rds",
  routeConfigName,
  httpFilters: "",
  accessLog: "",
  hcmExtra: undefined,
  tcp: newTcpProxy(),
  extra: undefined,
});

export const emptyListenerForm = (routeConfigName = ""): ListenerForm => ({
  name: "",
  mode: "api",
  address: "",
  port: "",
  filterChains: [newFilterChain(routeConfigName)],
});

/** Whether the listener is an internal listener (`internal_listener` in its Envoy fields). */
function isInternal(listener: Listener): boolean {
  return listener.extra?.internalListener !== undefined;
}

export function listenerFormOf(listener: Listener): ListenerForm {
  return {
    name: listener.name,
    mode: listener.apiListener ? "api" : isInternal(listener) ? "internal" : "socket",
    address: listener.address ?? "",
    port: uintToText(listener.port),
    filterChains: listener.filterChains.map((c) => {
      // A network-only chain ending in a tcp_proxy gets the tcp_proxy's form (what Envoy needs
      // to be its last filter: tcp_proxy is terminal).
      const last = c.networkOnly ? c.networkFilters.at(-1) : undefined;
      const tcp = tcpProxyFormOf(last);
      return {
        name: c.name,
        isDefault: c.isDefault,
        serverNames: joinList(c.serverNames),
        tlsSecretName: c.tlsSecretName ?? "",
        kind: tcp ? "tcp" : c.networkOnly ? "network" : "http",
        networkFilters: toJsonText(tcp ? c.networkFilters.slice(0, -1) : c.networkFilters),
        statPrefix: c.statPrefix,
        routeSource: c.inlineRouteConfigName !== undefined ? "inline" : "rds",
        routeConfigName: c.inlineRouteConfigName ?? c.rdsRouteConfigName ?? "",
        httpFilters: toJsonText(c.httpFilters),
        accessLog: toJsonText(c.accessLog),
        hcmExtra: c.hcmExtra,
        tcp: tcp ?? newTcpProxy(),
        extra: c.extra,
      } satisfies FilterChainForm;
    }),
  };
}

export function listenerOfForm(form: ListenerForm, original?: Listener): Listener {
  const socket = form.mode === "socket";
  const unix = socket && form.address.trim().startsWith(UNIX_PREFIX);
  return create(ListenerSchema, {
    name: form.name.trim(),
    apiListener: form.mode === "api",
    address: socket ? form.address.trim() : undefined,
    port: socket && !unix ? parseUint(form.port) : undefined,
    extra: withInternalListener(original?.extra, form.mode === "internal"),
    filterChains: form.filterChains.map((c) => {
      const http = c.kind === "http";
      return {
        name: c.name.trim(),
        isDefault: form.mode !== "api" && c.isDefault,
        serverNames: splitList(c.serverNames),
        tlsSecretName: c.tlsSecretName.trim() || undefined,
        networkFilters:
          c.kind === "tcp"
            ? [...parseJsonObjects(c.networkFilters), tcpProxyFilterOf(c.tcp)]
            : parseJsonObjects(c.networkFilters),
        networkOnly: !http,
        statPrefix: http ? c.statPrefix.trim() || "ingress_http" : "",
        rdsRouteConfigName: http && c.routeSource === "rds" ? c.routeConfigName.trim() : undefined,
        inlineRouteConfigName:
          http && c.routeSource === "inline" ? c.routeConfigName.trim() : undefined,
        httpFilters: http ? parseJsonObjects(c.httpFilters) : [],
        accessLog: http ? parseJsonObjects(c.accessLog) : [],
        hcmExtra: http ? c.hcmExtra : undefined,
        extra: c.extra,
      };
    }),
  });
}

/**
 * The listener's Envoy fields with `internal_listener` set (an empty InternalListenerConfig) or
 * left out, as the listener type says; the other fields are kept as they were.
 */
function withInternalListener(
  extra: JsonObject | undefined,
  internal: boolean,
): JsonObject | undefined {
  if ((extra?.internalListener !== undefined) === internal) return extra;
  const { internalListener: _, ...rest } = extra ?? {};
  return internal ? { ...rest, internalListener: {} } : rest;
}

const chain = "filterChains.*";
export const listenerFieldMap: FieldMap = {
  fields: [
    "name",
    "address",
    "port",
    "filterChains",
    ...[
      "name",
      "isDefault",
      "serverNames",
      "tlsSecretName",
      "networkFilters",
      "statPrefix",
      "routeConfigName",
      "httpFilters",
      "accessLog",
      "tcp.statPrefix",
      "tcp.cluster",
      "tcp.weightedClusters",
      "tcp.weightedClusters.*.name",
      "tcp.weightedClusters.*.weight",
      "tcp.idleTimeoutMs",
      "tcp.accessLog",
    ].map((f) => `${chain}.${f}`),
  ],
  aliases: {
    apiListener: "mode",
    [`${chain}.rdsRouteConfigName`]: `${chain}.routeConfigName`,
    [`${chain}.inlineRouteConfigName`]: `${chain}.routeConfigName`,
  },
};
