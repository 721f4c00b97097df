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
