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
});
