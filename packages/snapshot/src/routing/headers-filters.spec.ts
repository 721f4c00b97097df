import { describe, expect, it } from "vitest";
import { virtualHostSpec } from "../fixtures.js";
import type { JsonObject, JsonValue } from "../model.js";
import { answered, anyHost, ask, edgeConfig, prefixRoute, routed } from "./routing-fixtures.js";

const add = (key: string, value: string, more: JsonObject = {}): JsonValue => ({
  header: { key, value },
  ...more,
});
const overwrite = (key: string, value: string) =>
  add(key, value, { appendAction: "OVERWRITE_IF_EXISTS_OR_ADD" });

/** A config whose three levels each overwrite x-level (and add x-<level>). */
function leveled(routeConfigurationExtra: JsonObject = {}) {
  return edgeConfig(
    [
      virtualHostSpec(
        "all",
        ["*"],
        [
          prefixRoute("/", "a", {
            extra: { requestHeadersToAdd: [overwrite("x-level", "route")] },
          }),
        ],
        {
          extra: { requestHeadersToAdd: [overwrite("x-level", "virtual-host")] },
        },
      ),
    ],
    {
      routeConfiguration: {
        extra: {
          requestHeadersToAdd: [overwrite("x-level", "route-configuration")],
          ...routeConfigurationExtra,
        },
      },
    },
  );
}
const header = (result: ReturnType<typeof answered>, name: string) =>
  result.requestHeaders.result.filter(([n]) => n === name).map(([, v]) => v);

describe("header mutations (Custom request/response headers)", () => {
  it("by default the route's headers are applied first and the route configuration's last, so the least specific overwrite wins", () => {
    const result = answered(ask(leveled()));
    expect(result.requestHeaders.operations.map((op) => op.level)).toEqual([
      "route",
      "virtual-host",
      "route-configuration",
    ]);
    expect(header(result, "x-level")).toEqual(["route-configuration"]);
  });

  it("most_specific_header_mutations_wins reverses the order, so the route's overwrite wins", () => {
    const result = answered(ask(leveled({ mostSpecificHeaderMutationsWins: true })));
    expect(result.requestHeaders.operations.map((op) => op.level)).toEqual([
      "route-configuration",
      "virtual-host",
      "route",
    ]);
    expect(header(result, "x-level")).toEqual(["route"]);
  });

  it("a weighted cluster entry's headers are applied before its route's", () => {
    const route = prefixRoute("/", "", {
      actionKind: "WEIGHTED_CLUSTERS",
      cluster: null,
      weightedClusters: [
        {
          name: "a",
          weight: 1,
          extra: {
            requestHeadersToAdd: [add("x-wc", "1")],
            responseHeadersToAdd: [add("x-wc-resp", "1")],
          },
        },
      ],
      extra: { requestHeadersToAdd: [add("x-route", "1")] },
    });
    const result = answered(ask(edgeConfig(anyHost(route))));
    expect(result.requestHeaders.operations.map((op) => [op.level, op.name])).toEqual([
      ["weighted-cluster", "x-wc"],
      ["route", "x-route"],
    ]);
    expect(result.responseHeaders.result).toContainEqual(["x-wc-resp", "1"]);
  });

  it("append actions: append adds a value, add-if-absent keeps an existing one, overwrite-if-exists needs one", () => {
    const route = prefixRoute("/", "a", {
      extra: {
        requestHeadersToAdd: [
          add("x-a", "2"),
          add("x-b", "2", { appendAction: "ADD_IF_ABSENT" }),
          add("x-c", "2", { appendAction: "OVERWRITE_IF_EXISTS" }),
          add("x-d", "2", { append: false }),
        ],
      },
    });
    const result = answered(
      ask(edgeConfig(anyHost(route)), {
        headers: [
          ["x-a", "1"],
          ["x-b", "1"],
          ["x-d", "1"],
        ],
      }),
    );
    expect(header(result, "x-a")).toEqual(["1", "2"]);
    expect(header(result, "x-b")).toEqual(["1"]);
    expect(header(result, "x-c")).toEqual([]);
    expect(header(result, "x-d")).toEqual(["2"]);
  });

  it("removals come before additions at a level, and an empty value is added only with keep_empty_value", () => {
    const route = prefixRoute("/", "a", {
      extra: {
        requestHeadersToRemove: ["x-a"],
        requestHeadersToAdd: [
          add("x-a", "new"),
          add("x-empty", ""),
          add("x-kept", "", { keepEmptyValue: true }),
        ],
      },
    });
    const result = answered(ask(edgeConfig(anyHost(route)), { headers: [["x-a", "old"]] }));
    expect(header(result, "x-a")).toEqual(["new"]);
    expect(header(result, "x-empty")).toEqual([]);
    expect(header(result, "x-kept")).toEqual([""]);
    expect(result.requestHeaders.operations.find((op) => op.name === "x-empty")?.skipped).toBe(
      true,
    );
  });

  it("response headers are added and removed at every level", () => {
    const config = edgeConfig([
      virtualHostSpec(
        "all",
        ["*"],
        [prefixRoute("/", "a", { extra: { responseHeadersToAdd: [add("x-route", "1")] } })],
        { extra: { responseHeadersToRemove: ["server"] } },
      ),
    ]);
    const result = answered(ask(config, { responseHeaders: [["server", "upstream"]] }));
    expect(result.responseHeaders.result).toEqual([["x-route", "1"]]);
  });

  it("a %COMMAND% value is shown unformatted and the answer says so", () => {
    const route = prefixRoute("/", "a", {
      extra: { requestHeadersToAdd: [add("x-client", "%DOWNSTREAM_REMOTE_ADDRESS%")] },
    });
    const result = answered(ask(edgeConfig(anyHost(route))));
    expect(result.requestHeaders.operations[0]).toMatchObject({ name: "x-client", dynamic: true });
    expect(result.notes.join(" ")).toContain("%COMMAND%");
  });

  it("internal_only_headers are removed from external requests before routing", () => {
    const config = edgeConfig(
      anyHost(
        prefixRoute("/", "a", { headers: [{ name: "x-debug", presentMatch: true }] }),
        prefixRoute("/", "b"),
      ),
      {
        routeConfiguration: { extra: { internalOnlyHeaders: ["x-debug"] } },
      },
    );
    expect(routed(ask(config, { headers: [["x-debug", "1"]] })).outcome).toEqual({
      t: "cluster",
      cluster: "b",
    });
    expect(routed(ask(config, { headers: [["x-debug", "1"]], internal: true })).outcome).toEqual({
      t: "cluster",
      cluster: "a",
    });
  });

  it("virtual clusters name the first whose headers match, else other", () => {
    const config = edgeConfig([
      virtualHostSpec("all", ["*"], [prefixRoute("/", "a")], {
        extra: {
          virtualClusters: [
            { name: "uploads", headers: [{ name: ":method", exactMatch: "POST" }] },
          ],
        },
      }),
    ]);
    expect(answered(ask(config, { method: "POST" })).virtualCluster).toBe("uploads");
    expect(answered(ask(config)).virtualCluster).toBe("other");
  });
});

const filter = (name: string, more: JsonObject = {}): JsonValue => ({
  name,
  typedConfig: {
    "@type": "type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer",
    maxRequestBytes: 1024,
  },
  ...more,
});
const bufferPerRoute = {
  "@type": "type.googleapis.com/envoy.extensions.filters.http.buffer.v3.BufferPerRoute",
  disabled: true,
};
const filterConfig = (fields: JsonObject) => ({
  "@type": "type.googleapis.com/envoy.config.route.v3.FilterConfig",
  ...fields,
});

describe("HTTP filters and per-route config (typed_per_filter_config)", () => {
  const config = (
    routeExtra: JsonObject,
    vhExtra: JsonObject = {},
    filters: JsonValue[] = [filter("buffer")],
  ) =>
    edgeConfig(
      [
        virtualHostSpec("all", ["*"], [prefixRoute("/", "a", { extra: routeExtra })], {
          extra: vhExtra,
        }),
      ],
      { chain: { httpFilters: filters } },
    );

  it("the HCM's filters apply in order, the router last", () => {
    const result = answered(ask(config({})));
    expect(result.httpFilters.map((f) => [f.name, f.enabled])).toEqual([
      ["buffer", true],
      ["envoy.filters.http.router", true],
    ]);
    expect(result.httpFilters[0]).toMatchObject({
      type: "envoy.extensions.filters.http.buffer.v3.Buffer",
      decidedBy: "filter",
      perRouteConfig: null,
    });
  });

  it("the route's per-filter config overrides the virtual host's", () => {
    const result = answered(
      ask(
        config(
          { typedPerFilterConfig: { buffer: bufferPerRoute } },
          { typedPerFilterConfig: { buffer: filterConfig({ disabled: true }) } },
        ),
      ),
    );
    expect(result.httpFilters[0]).toMatchObject({
      enabled: true,
      decidedBy: "route",
      perRouteConfig: {
        level: "route",
        type: "envoy.extensions.filters.http.buffer.v3.BufferPerRoute",
      },
    });
  });

  it("a FilterConfig with disabled true turns a filter off for the route", () => {
    const result = answered(
      ask(
        config(
          { typedPerFilterConfig: { buffer: filterConfig({ disabled: true }) } },
          { typedPerFilterConfig: { buffer: bufferPerRoute } },
        ),
      ),
    );
    expect(result.httpFilters[0]).toMatchObject({
      enabled: false,
      decidedBy: "route",
      perRouteConfig: { level: "virtual-host" },
    });
  });

  it("a filter disabled in the HCM runs only where a per-route entry enables it", () => {
    const filters = [filter("buffer", { disabled: true })];
    expect(answered(ask(config({}, {}, filters))).httpFilters[0]?.enabled).toBe(false);
    const enabled = answered(
      ask(config({ typedPerFilterConfig: { buffer: filterConfig({ config: {} }) } }, {}, filters)),
    );
    expect(enabled.httpFilters[0]).toMatchObject({
      enabled: true,
      decidedBy: "route",
      perRouteConfig: null,
    });
  });

  it("the route configuration's per-filter config applies when nothing more specific has one", () => {
    const result = answered(
      ask(
        edgeConfig(anyHost(prefixRoute("/", "a")), {
          chain: { httpFilters: [filter("buffer")] },
          routeConfiguration: { extra: { typedPerFilterConfig: { buffer: bufferPerRoute } } },
        }),
      ),
    );
    expect(result.httpFilters[0]).toMatchObject({
      decidedBy: "route-configuration",
      perRouteConfig: { level: "route-configuration" },
    });
  });

  it("a FilterConfig without config and not disabled is refused, as Envoy refuses it", () => {
    expect(ask(config({ typedPerFilterConfig: { buffer: filterConfig({}) } }))).toMatchObject({
      t: "refused",
      code: "invalid-config",
    });
  });

  it("no filters are listed when the route configuration is named directly", () => {
    const result = answered(ask(config({}), { routeConfiguration: "routes" }));
    expect(result.httpFilters).toEqual([]);
    expect(result.notes.join(" ")).toContain("named directly");
  });
});
