import { specFromSources } from "@switchyard/snapshot";
import { describe, expect, it } from "vitest";
import { runRouteTests } from "../store/route-tests.js";
import { pins, spec, stored } from "../testing/route-test-fixtures.js";
import {
  routeTestFailures,
  routeTestRefusalText,
  routeTestVerdict,
  testsWithFailures,
} from "./route-test-gate.js";

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
    expect(routeTestRefusalText(failures, 3).split("\n")).toEqual([
      "this change breaks 1 route test case(s) that pass on version 3; fix the change or the tests (an admin may publish anyway with a reason):",
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
      1,
    );
    expect(text).toMatch(/^this change breaks 12 route test case/);
    expect(text.match(/case "case \d+"/g)).toHaveLength(10);
    expect(text.endsWith("  and 2 more")).toBe(true);
  });
});

describe("route tests protect, they don't veto: the gate's rule", () => {
  const verdict = (draft: string, latest: string, tests = [stored("pins", pins)]) => {
    const onDraft = runRouteTests(spec(draft), tests);
    return routeTestVerdict(onDraft, runRouteTests(spec(latest), testsWithFailures(onDraft)));
  };

  it("a case that passes on the latest version and fails on the draft breaks the publish", () => {
    expect(verdict("api-v1", "api-v2")).toEqual({
      breaks: [expect.objectContaining({ test: "pins", case: "orders go to v2" })],
      alreadyFailing: [],
    });
  });

  it("a case that fails on the latest version as on the draft is already failing, and breaks nothing", () => {
    // The veto of issue 44: a test that already failed refused every other team's publish.
    const { breaks, alreadyFailing } = verdict("api-v1", "api-v1");
    expect(breaks).toEqual([]);
    expect(alreadyFailing).toEqual([
      {
        test: "pins",
        team: "checkout",
        case: "orders go to v2",
        request: "GET http://api.example.com/v2/orders",
        differences: ['cluster_name: expected "api-v2", got "api-v1"'],
      },
    ]);
  });

  it("a case the draft fixes, or that passes on both, says nothing", () => {
    expect(verdict("api-v2", "api-v1")).toEqual({ breaks: [], alreadyFailing: [] });
    expect(verdict("api-v2", "api-v2")).toEqual({ breaks: [], alreadyFailing: [] });
  });

  it("cases are judged one by one: a test's case already failing does not excuse another it breaks", () => {
    const two = `${pins}- test_name: the rest goes to v1 too
  input: { authority: api.example.com, path: /v2/cart, method: GET }
  validate: { cluster_name: api-v1 }
`;
    // On the latest version /v2/ goes to api-v2: the first case passes, the third fails. The
    // draft sends /v2/ to canary: the first breaks, the third was failing already.
    const { breaks, alreadyFailing } = verdict("canary", "api-v2", [stored("pins", two)]);
    expect(breaks.map((f) => f.case)).toEqual(["orders go to v2"]);
    expect(alreadyFailing.map((f) => f.case)).toEqual(["the rest goes to v1 too"]);
  });

  it("before the first version every case fails on the (empty) latest configuration, so none refuses the first publish", () => {
    const onDraft = runRouteTests(spec("api-v1"), [stored("pins", pins)]);
    const latest = runRouteTests(specFromSources([]), testsWithFailures(onDraft));
    expect(routeTestVerdict(onDraft, latest).breaks).toEqual([]);
  });

  it("a stored test whose cases no longer parse fails on both sides, and refuses nothing", () => {
    const { breaks, alreadyFailing } = verdict("api-v2", "api-v2", [stored("old", "tests: 7")]);
    expect(breaks).toEqual([]);
    expect(alreadyFailing).toMatchObject([{ test: "old", case: "(the test's cases)" }]);
  });

  it("a case stored as known failing gates nothing: it neither breaks the publish nor is reported, and its test is not run on the latest version for it", () => {
    const known = [stored("pins", pins, "checkout", ["orders go to v2"])];
    expect(verdict("api-v1", "api-v2", known)).toEqual({ breaks: [], alreadyFailing: [] });
    expect(testsWithFailures(runRouteTests(spec("api-v1"), known))).toEqual([]);
  });

  it("only the tests with a failing case are run on the latest version, and a case not run there counts as passing", () => {
    const tests = [stored("pins", pins), stored("fine", pins.replace("api-v2", "api-v1"))];
    const onDraft = runRouteTests(spec("api-v1"), tests);
    expect(testsWithFailures(onDraft).map((t) => t.name)).toEqual(["pins"]);
    expect(routeTestVerdict(onDraft, []).breaks.map((f) => f.test)).toEqual(["pins"]);
  });
});
