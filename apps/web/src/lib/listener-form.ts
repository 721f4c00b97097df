import { create, type JsonObject } from "@bufbuild/protobuf";
import { type Listener, ListenerSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { z } from "zod";
import {
  joinList,
  jsonText,
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

const filterChainSchema = z
  .object({
    name: z.string().trim(),
    /** The listener's default_filter_chain: it takes the connections no other chain matches. */
    isDefault: z.boolean(),
    serverNames: z.string(),
    tlsSecretName: z.string().trim(),
    /** "http": network filters, then the HTTP connection manager; "network": network filters only. */
    kind: z.enum(["http", "network"]),
    networkFilters: jsonText("array"),
    statPrefix: z.string().trim(),
    routeSource: z.enum(["rds", "inline"]),
    routeConfigName: z.string().trim(),
    httpFilters: jsonText("array"),
    accessLog: jsonText("array"),
    hcmExtra: passthrough,
    extra: passthrough,
  })
  .superRefine((c, ctx) => {
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
    filterChains: listener.filterChains.map((c) => ({
      name: c.name,
      isDefault: c.isDefault,
      serverNames: joinList(c.serverNames),
      tlsSecretName: c.tlsSecretName ?? "",
      kind: c.networkOnly ? "network" : "http",
      networkFilters: toJsonText(c.networkFilters),
      statPrefix: c.statPrefix,
      routeSource: c.inlineRouteConfigName !== undefined ? "inline" : "rds",
      routeConfigName: c.inlineRouteConfigName ?? c.rdsRouteConfigName ?? "",
      httpFilters: toJsonText(c.httpFilters),
      accessLog: toJsonText(c.accessLog),
      hcmExtra: c.hcmExtra,
      extra: c.extra,
    })),
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
        networkFilters: parseJsonObjects(c.networkFilters),
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
    ].map((f) => `${chain}.${f}`),
  ],
  aliases: {
    apiListener: "mode",
    [`${chain}.rdsRouteConfigName`]: `${chain}.routeConfigName`,
    [`${chain}.inlineRouteConfigName`]: `${chain}.routeConfigName`,
  },
};
