import { create } from "@bufbuild/protobuf";
import { ListenerSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import {
  emptyListenerForm,
  listenerFormOf,
  listenerFormSchema,
  listenerOfForm,
} from "./listener-form";

describe("the listener form", () => {
  it("gives back a stored socket listener unchanged when nothing was edited", () => {
    const stored = create(ListenerSchema, {
      name: "edge",
      address: "0.0.0.0",
      port: 10000,
      filterChains: [
        {
          name: "web",
          serverNames: ["a.example.com"],
          statPrefix: "edge",
          inlineRouteConfigName: "web-routes",
          httpFilters: [{ name: "envoy.filters.http.fault" }],
          hcmExtra: { useRemoteAddress: true },
        },
      ],
      extra: { perConnectionBufferLimitBytes: 1 },
    });
    expect(listenerOfForm(listenerFormOf(stored), stored)).toEqual(stored);
  });

  it("sends an api listener without address or port", () => {
    const form = {
      ...emptyListenerForm("routes"),
      name: "payments",
      address: "1.2.3.4",
      port: "80",
    };
    const message = listenerOfForm(form);
    expect(message.apiListener).toBe(true);
    expect(message.address).toBeUndefined();
    expect(message.port).toBeUndefined();
    expect(message.filterChains[0]?.rdsRouteConfigName).toBe("routes");
  });

  it("requires an address and a port in range for a socket listener", () => {
    const form = {
      ...emptyListenerForm("r"),
      name: "edge",
      mode: "socket" as const,
      port: "70000",
    };
    const paths = listenerFormSchema.safeParse(form).error?.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(["address", "port"]);
  });

  it("gives back an internal listener (no address, internal_listener kept) and its default chain unchanged", () => {
    const stored = create(ListenerSchema, {
      name: "inner",
      filterChains: [
        { name: "fallback", isDefault: true, statPrefix: "inner", rdsRouteConfigName: "r" },
      ],
      extra: { internalListener: {} },
    });
    const form = listenerFormOf(stored);
    expect(form.mode).toBe("internal");
    expect(form.filterChains[0]?.isDefault).toBe(true);
    expect(listenerOfForm(form, stored)).toEqual(stored);
  });

  it("turning a socket listener into an internal one sets internal_listener and drops the address", () => {
    const stored = create(ListenerSchema, {
      name: "edge",
      address: "0.0.0.0",
      port: 80,
      filterChains: [{ statPrefix: "edge", rdsRouteConfigName: "r" }],
      extra: { perConnectionBufferLimitBytes: 1 },
    });
    const message = listenerOfForm({ ...listenerFormOf(stored), mode: "internal" }, stored);
    expect(message.address).toBeUndefined();
    expect(message.port).toBeUndefined();
    expect(message.extra).toEqual({ perConnectionBufferLimitBytes: 1, internalListener: {} });
  });

  it("takes a Unix socket address with no port, and refuses a port beside it", () => {
    const form = {
      ...emptyListenerForm("r"),
      name: "admin",
      mode: "socket" as const,
      address: "unix:///run/envoy/admin.sock",
    };
    expect(listenerFormSchema.safeParse(form).success).toBe(true);
    expect(listenerOfForm(form).port).toBeUndefined();
    const paths = listenerFormSchema
      .safeParse({ ...form, port: "80" })
      .error?.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(["port"]);
  });

  it("allows one default filter chain", () => {
    const chain = emptyListenerForm("r").filterChains[0];
    if (!chain) throw new Error("expected a chain");
    const form = {
      ...emptyListenerForm("r"),
      name: "edge",
      mode: "socket" as const,
      address: "0.0.0.0",
      port: "80",
      filterChains: [
        { ...chain, isDefault: true },
        { ...chain, isDefault: true },
      ],
    };
    const paths = listenerFormSchema.safeParse(form).error?.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(["filterChains"]);
  });
});

describe("the tcp_proxy form", () => {
  const tcpProxy = {
    name: "envoy.filters.network.tcp_proxy",
    typedConfig: {
      "@type": "type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy",
      statPrefix: "db",
      cluster: "db-primary",
      idleTimeout: "30s",
      maxConnectAttempts: 3,
      hashPolicy: [{ sourceIp: {} }],
    },
  };
  const rbac = { name: "envoy.filters.network.rbac", typedConfig: { "@type": "x" } };
  const stored = create(ListenerSchema, {
    name: "db",
    address: "0.0.0.0",
    port: 5432,
    filterChains: [{ networkOnly: true, networkFilters: [rbac, tcpProxy] }],
  });

  it("opens a network chain ending in a tcp_proxy as its form: cluster, stat prefix, idle timeout", () => {
    const chain = listenerFormOf(stored).filterChains[0];
    expect(chain?.kind).toBe("tcp");
    expect(chain?.tcp).toMatchObject({
      statPrefix: "db",
      target: "cluster",
      cluster: "db-primary",
      idleTimeoutMs: "30000",
    });
    expect(JSON.parse(chain?.networkFilters ?? "")).toEqual([rbac]);
  });

  it("gives back the tcp_proxy unchanged when nothing was edited, its unknown fields included", () => {
    expect(listenerOfForm(listenerFormOf(stored), stored)).toEqual(stored);
  });

  it("saves weighted clusters, an access log and no idle timeout, and keeps the fields it does not edit", () => {
    const form = listenerFormOf(stored);
    const chain = form.filterChains[0];
    if (chain === undefined) throw new Error("no chain");
    const edited = {
      ...chain,
      tcp: {
        ...chain.tcp,
        target: "weighted" as const,
        weightedClusters: [
          { name: "db-primary", weight: "90", extra: undefined },
          { name: "db-replica", weight: "10", extra: undefined },
        ],
        idleTimeoutMs: "",
        accessLog: '[{ "name": "envoy.access_loggers.stdout" }]',
      },
    };
    const values = { ...form, filterChains: [edited] };
    expect(listenerFormSchema.safeParse(values).success).toBe(true);
    const saved = listenerOfForm(values, stored);
    expect(saved.filterChains[0]?.networkFilters).toEqual([
      rbac,
      {
        name: "envoy.filters.network.tcp_proxy",
        typedConfig: {
          "@type": "type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy",
          statPrefix: "db",
          weightedClusters: {
            clusters: [
              { name: "db-primary", weight: 90 },
              { name: "db-replica", weight: 10 },
            ],
          },
          accessLog: [{ name: "envoy.access_loggers.stdout" }],
          maxConnectAttempts: 3,
          hashPolicy: [{ sourceIp: {} }],
        },
      },
    ]);
  });

  it("refuses a tcp_proxy without a stat prefix or a cluster before asking the server", () => {
    const form = listenerFormOf(stored);
    const chain = form.filterChains[0];
    if (chain === undefined) throw new Error("no chain");
    const result = listenerFormSchema.safeParse({
      ...form,
      filterChains: [{ ...chain, tcp: { ...chain.tcp, statPrefix: "", cluster: "" } }],
    });
    expect(result.error?.issues.map((i) => i.path.join("."))).toEqual([
      "filterChains.0.tcp.statPrefix",
      "filterChains.0.tcp.cluster",
    ]);
  });
});
