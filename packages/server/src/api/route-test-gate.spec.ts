import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  routeConfigurationSpec,
  routeSpec,
  virtualHostSpec,
} from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import { runRouteTests, type StoredRouteTest } from "../store/route-tests.js";
import { routeTestFailures, routeTestRefusalText } from "./route-test-gate.js";

const spec = (v2: string) =>
  configSpec({
    clusters: ["api-v1", "api-v2"].map((name) => clusterSpec(name)),
    routeConfigurations: [
      routeConfigurationSpec("edge-routes", "api-v1", {
        virtualHosts: [
          virtualHostSpec(
            "api",
            ["api.example.com"],
            [routeSpec(v2, { matchValue: "/v2/" }), routeSpec("api-v1", { matchValue: "/" })],
          ),
        ],
      }),
    ],
    listeners: [apiListenerSpec("edge", "edge-routes")],
  });

const stored = (
  name: string,
  content: string,
  team: string | null = "checkout",
): StoredRouteTest => ({
  name,
  team: team === null ? null : { id: "t1", name: team },
  content,
  listener: "edge",
  routeConfiguration: "",
  author: "carol",
  updatedAt: new Date(0),
});

const pins = `
tests:
- test_name: orders go to v2
  input: { authority: api.example.com, path: /v2/orders, method: GET }
  validate: { cluster_name: api-v2 }
- test_name: the rest goes to v1
  input: { authority: api.example.com, path: /cart, method: POST }
  validate: { cluster_name: api-v1 }
`;

describe("route tests as a publish gate", () => {
  it("a configuration that keeps every pinned answer has no failures", () => {
    expect(routeTestFailures(runRouteTests(spec("api-v2"), [stored("pins", pins)]))).toEqual([]);
  });

  it("names each failing case with its request and what differs, and only those", () => {
    const failures = routeTestFailures(runRouteTests(spec("api-v1"), [stored("pins", pins)]));
    expect(failures).toEqual([
      {
        test: "pins",
        team: "checkout",
        case: "orders go to v2",
        request: "GET http://api.example.com/v2/orders",
        differences: ['cluster_name: expected "api-v2", got "api-v1"'],
      },
    ]);
    expect(routeTestRefusalText(failures).split("\n")).toEqual([
      "this change breaks 1 route test case(s); fix the change or the tests (an admin may publish anyway with a reason):",
      '  route test "pins" (team checkout), case "orders go to v2": GET http://api.example.com/v2/orders',
      '    cluster_name: expected "api-v2", got "api-v1"',
    ]);
  });

  it("a case that cannot run (its listener is gone) fails, saying why", () => {
    const gone = { ...spec("api-v2"), listeners: [] };
    const [failure] = routeTestFailures(runRouteTests(gone, [stored("pins", pins, null)]));
    expect(failure).toMatchObject({ test: "pins", team: null, case: "orders go to v2" });
    expect(failure?.differences[0]).toMatch(/^cannot run: .*edge/);
  });

  it("lists ten failures and counts the rest", () => {
    const many = `tests:\n${Array.from(
      { length: 12 },
      (_, i) =>
        `- test_name: case ${i}\n  input: { authority: api.example.com, path: /v2/${i}, method: GET }\n  validate: { cluster_name: api-v2 }\n`,
    ).join("")}`;
    const text = routeTestRefusalText(
      routeTestFailures(runRouteTests(spec("api-v1"), [stored("many", many)])),
    );
    expect(text).toMatch(/^this change breaks 12 route test case/);
    expect(text.match(/case "case \d+"/g)).toHaveLength(10);
    expect(text.endsWith("  and 2 more")).toBe(true);
  });
});
