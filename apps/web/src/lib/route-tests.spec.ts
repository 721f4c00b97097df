import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { Severity, ValidationErrorsSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type RouteTest,
  RouteTestSchema,
  RunRouteTestsResponseSchema,
} from "@switchyard/proto/switchyard/v1/routing_pb";
import { describe, expect, it } from "vitest";
import { classifyRefusal, refusalTitle } from "./refusal";
import {
  mayWriteRouteTest,
  parseRouteTestRefusal,
  promoteRouteTestRequest,
  putRouteTestRequest,
  routeTestRows,
  routeTestSaveFailure,
  routeTestSchema,
  routeTestValues,
  runRows,
  runSummary,
} from "./route-tests";
import type { Writer } from "./write-access";

const cases = `tests:
- test_name: orders go to v2
  input: { authority: api.example.com, path: /v2/orders, method: GET }
  validate: { cluster_name: api-v2 }`;

const valid = {
  name: "checkout-pins",
  team: "checkout",
  through: "listener:edge",
  content: cases,
  knownFailing: false,
};

const admin: Writer = { role: "admin" };
const member: Writer = { role: "member", team: { name: "checkout", clusters: [] } };
const viewer: Writer = { role: "viewer" };

/** A stored test as ListRouteTests returns it. */
function stored(init: Partial<Omit<RouteTest, "$typeName" | "updateTime">> = {}): RouteTest {
  return create(RouteTestSchema, {
    name: "checkout-pins",
    team: "checkout",
    content: cases,
    listener: "edge",
    author: "carol",
    cases: 1,
    updateTime: timestampFromDate(new Date("2025-01-02T03:04:05Z")),
    ...init,
  });
}

/** The refusal route-test-gate.ts words for a publish that breaks route tests. */
const breaks = [
  "this change breaks 2 route test case(s) that pass on version 4; fix the change or the tests (an admin may publish anyway with a reason):",
  '  route test "checkout-pins" (team checkout), case "orders go to v2": GET http://api.example.com/v2/orders',
  '    cluster_name: expected "api-v2", got "api-v1"',
  '    path_rewrite: expected "/orders", got "/v2/orders"',
  '  route test "edge", case "no host": GET http://nowhere/',
  '    cannot run: listener: listener "gone" does not exist',
  "  and 3 more",
].join("\n");

describe("the Route tests page's form", () => {
  it("sends what the form holds: the listener or route configuration it routes through, the team for an admin only", () => {
    const values = routeTestSchema.parse(valid);
    expect(putRouteTestRequest(values, admin)).toEqual({
      name: "checkout-pins",
      team: "checkout",
      content: cases,
      listener: "edge",
    });
    // A member's test is their team's: the server decides, the form sends none.
    expect(putRouteTestRequest(values, member)).toMatchObject({ team: "" });
    expect(
      putRouteTestRequest(
        routeTestSchema.parse({ ...valid, through: "route-configuration:a:b" }),
        admin,
      ),
    ).toMatchObject({ routeConfiguration: "a:b" });
    const neither = putRouteTestRequest(routeTestSchema.parse({ ...valid, through: "" }), admin);
    expect(neither).not.toHaveProperty("listener");
    expect(neither).not.toHaveProperty("routeConfiguration");
    // Ticked, failing cases are stored as known failing rather than refused.
    expect(
      putRouteTestRequest(routeTestSchema.parse({ ...valid, knownFailing: true }), member),
    ).toMatchObject({ knownFailing: true });
  });

  it("promotes a stored test by storing it again as it is, without known failing", () => {
    const test = stored({ knownFailing: true, knownFailingCases: ["orders go to v2"] });
    expect(promoteRouteTestRequest(test)).toEqual({
      name: "checkout-pins",
      team: "checkout",
      content: cases,
      listener: "edge",
      routeConfiguration: "",
    });
  });

  it("says what is wrong before asking: a name the server refuses, no cases", () => {
    const result = routeTestSchema.safeParse({ ...valid, name: "checkout pins", content: "  " });
    expect(result.success).toBe(false);
    const messages = Object.fromEntries(
      (result.error?.issues ?? []).map((i) => [String(i.path[0]), i.message]),
    );
    expect(messages).toEqual({
      name: "Letters, digits, '.', '_' and '-' only.",
      content: "Write the cases: tests: [{test_name, input, validate}].",
    });
  });

  it("edits a stored test as it was written, known failing still if it was", () => {
    expect(routeTestValues(stored())).toEqual(valid);
    expect(
      routeTestValues(stored({ knownFailing: true, knownFailingCases: ["orders go to v2"] })),
    ).toEqual({ ...valid, knownFailing: true });
    expect(routeTestValues(stored({ listener: "", routeConfiguration: "edge-routes" }))).toEqual({
      ...valid,
      through: "route-configuration:edge-routes",
    });
  });

  it("offers writing to an admin for any test, to a member for their team's, to a viewer never", () => {
    expect(mayWriteRouteTest(admin, stored({ team: "" }))).toBe(true);
    expect(mayWriteRouteTest(member)).toBe(true);
    expect(mayWriteRouteTest(member, stored())).toBe(true);
    expect(mayWriteRouteTest(member, stored({ team: "payments" }))).toBe(false);
    expect(mayWriteRouteTest({ role: "member" })).toBe(false);
    expect(mayWriteRouteTest(viewer)).toBe(false);
    expect(mayWriteRouteTest({ role: undefined })).toBe(false);
  });
});

describe("a refused save, where it belongs", () => {
  it("puts malformed cases under the cases, each with its path in the file", () => {
    const error = new ConnectError(
      "content: 2 problem(s) in the route test's cases",
      Code.InvalidArgument,
      undefined,
      [
        {
          desc: ValidationErrorsSchema,
          value: {
            issues: [
              {
                severity: Severity.ERROR,
                path: "content: tests[0].input.authority",
                message: "required",
              },
              { severity: Severity.ERROR, path: "content: line 3", message: "bad indentation" },
            ],
          },
        },
      ],
    );
    expect(routeTestSaveFailure(error)).toEqual({
      field: "content",
      message: "2 problem(s) in the route test's cases",
      issues: [
        { key: "0:tests[0].input.authority", text: "tests[0].input.authority: required" },
        { key: "1:line 3", text: "line 3: bad indentation" },
      ],
      failingOnLatest: false,
    });
  });

  it("puts cases that fail on the latest version at the cases, each with what differs, offering to store them as known failing", () => {
    const error = new ConnectError(
      "content: 1 case(s) fail on version 3, the latest published version, where a stored test must pass: fix them, or store them as known failing",
      Code.FailedPrecondition,
      undefined,
      [
        {
          desc: ValidationErrorsSchema,
          value: {
            issues: [
              {
                severity: Severity.ERROR,
                path: "content: tests[0]",
                message:
                  'case "orders go to v2": GET http://api.example.com/v2/orders: cluster_name: expected "api-v2", got "api-v1"',
              },
            ],
          },
        },
      ],
    );
    expect(routeTestSaveFailure(error)).toEqual({
      field: "content",
      message:
        "1 case(s) fail on version 3, the latest published version, where a stored test must pass: fix them, or store them as known failing",
      issues: [
        {
          key: "0:tests[0]",
          text: 'tests[0]: case "orders go to v2": GET http://api.example.com/v2/orders: cluster_name: expected "api-v2", got "api-v1"',
        },
      ],
      failingOnLatest: true,
    });
  });

  it("puts each other refusal at the field the server names, or over the whole form", () => {
    const at = (message: string, code: Code) => {
      const failure = routeTestSaveFailure(new ConnectError(message, code));
      return [failure.field, failure.message];
    };
    expect(at('name: "a b" is not a route test name', Code.InvalidArgument)).toEqual([
      "name",
      '"a b" is not a route test name',
    ]);
    expect(at('team: team "nope" does not exist', Code.NotFound)).toEqual([
      "team",
      'team "nope" does not exist',
    ]);
    expect(at("listener: name a listener or a route configuration", Code.InvalidArgument)).toEqual([
      "through",
      "name a listener or a route configuration",
    ]);
    expect(
      at(
        'content: a case asks for host "www.example.org", which no team owns',
        Code.PermissionDenied,
      ),
    ).toEqual(["content", 'a case asks for host "www.example.org", which no team owns']);
    expect(at('route test "x" belongs to team payments', Code.PermissionDenied)).toEqual([
      "name",
      'route test "x" belongs to team payments',
    ]);
    expect(at("a member in no team writes no route tests", Code.PermissionDenied)).toEqual([
      undefined,
      "a member in no team writes no route tests",
    ]);
    expect(at("name: database down", Code.Internal)).toEqual([undefined, "name: database down"]);
  });
});

describe("the stored tests and a run", () => {
  it("lists each test with its team (admins' when none), its cases, what it routes through and who wrote it", () => {
    const [row, admins] = routeTestRows([
      stored(),
      stored({ name: "fallback", team: "", listener: "", routeConfiguration: "" }),
    ]);
    expect(row).toMatchObject({
      key: "checkout-pins",
      team: "checkout",
      cases: 1,
      knownFailing: 0,
      through: "listener edge",
      author: "carol",
      updated: new Date("2025-01-02T03:04:05Z"),
    });
    expect(admins).toMatchObject({ team: "admins", through: "the only route configuration" });
  });

  it("shows each test PASS or FAIL and each failing case with what differs, keyed apart even when cases share a name", () => {
    const run = create(RunRouteTestsResponseSchema, {
      version: 0n,
      passed: 2,
      failed: 2,
      tests: [
        {
          name: "checkout-pins",
          team: "checkout",
          passed: 1,
          failed: 2,
          results: [
            {
              name: "orders",
              passed: false,
              mismatches: [{ field: "cluster_name", expected: "api-v2", actual: "api-v1" }],
            },
            { name: "orders", passed: false, refused: 'listener: listener "gone" does not exist' },
            { name: "health", passed: true },
          ],
        },
        { name: "www", team: "", passed: 1, failed: 0, results: [{ name: "w", passed: true }] },
      ],
    });
    const [pins, www] = runRows(run);
    expect(pins).toMatchObject({ passed: false, summary: "2 of 3 cases failed" });
    expect(pins?.failures).toEqual([
      {
        key: "0:orders",
        name: "orders",
        knownFailing: false,
        differences: [
          { key: "0:cluster_name", text: 'cluster_name: expected "api-v2", got "api-v1"' },
        ],
      },
      {
        key: "1:orders",
        name: "orders",
        knownFailing: false,
        differences: [
          { key: "refused", text: 'cannot run: listener: listener "gone" does not exist' },
        ],
      },
    ]);
    expect(www).toMatchObject({
      passed: true,
      team: "admins",
      summary: "1 case passed",
      failures: [],
    });
    expect(runSummary(run)).toBe("1 test fails, 1 passes on the draft (2 of 4 cases passed).");
    expect(runSummary(create(RunRouteTestsResponseSchema, { version: 3n }))).toBe(
      "No route tests stored: nothing ran on version 3.",
    );
  });

  it("a test failing only known-failing cases passes, saying so; a known-failing case that passes is named, for promotion", () => {
    const run = create(RunRouteTestsResponseSchema, {
      version: 0n,
      passed: 1,
      failed: 1,
      knownFailing: 1,
      tests: [
        {
          name: "legacy",
          team: "checkout",
          passed: 1,
          failed: 1,
          knownFailing: 1,
          results: [
            {
              name: "old",
              passed: false,
              knownFailing: true,
              mismatches: [{ field: "cluster_name", expected: "a", actual: "b" }],
            },
            { name: "fixed", passed: true, knownFailing: true },
          ],
        },
      ],
    });
    const [legacy] = runRows(run);
    expect(legacy).toMatchObject({
      passed: true,
      summary: "1 of 2 cases failed, known failing",
      nowPassing: ["fixed"],
      failures: [{ name: "old", knownFailing: true }],
    });
    expect(runSummary(run)).toBe(
      "The test passes on the draft (1 of 2 cases passed; 1 known failing).",
    );
    expect(routeTestRows([stored({ knownFailingCases: ["old"] })])[0]?.knownFailing).toBe(1);
  });
});

describe("a publish refused because route tests fail", () => {
  it("is told apart from other refusals and lists each failing case, its request and what differs", () => {
    const refusal = classifyRefusal(new ConnectError(breaks, Code.FailedPrecondition));
    expect(refusal.t).toBe("route-tests");
    if (refusal.t !== "route-tests") return;
    expect(refusalTitle(refusal)).toBe(
      "Refused: this change breaks 2 route test cases. Fix the change or the tests.",
    );
    expect(refusal.failures).toEqual(parseRouteTestRefusal(breaks));
    expect(parseRouteTestRefusal(breaks)).toEqual({
      headline:
        "this change breaks 2 route test case(s) that pass on version 4; fix the change or the tests (an admin may publish anyway with a reason):",
      count: 2,
      failures: [
        {
          key: "0",
          title: 'route test "checkout-pins" (team checkout), case "orders go to v2"',
          request: "GET http://api.example.com/v2/orders",
          differences: [
            { key: "1", text: 'cluster_name: expected "api-v2", got "api-v1"' },
            { key: "2", text: 'path_rewrite: expected "/orders", got "/v2/orders"' },
          ],
        },
        {
          key: "3",
          title: 'route test "edge", case "no host"',
          request: "GET http://nowhere/",
          differences: [{ key: "4", text: 'cannot run: listener: listener "gone" does not exist' }],
        },
      ],
      more: "and 3 more",
    });
  });

  it("keeps a line it does not recognise, and is not mistaken for another FailedPrecondition", () => {
    expect(
      parseRouteTestRefusal("this change breaks 1 route test case(s):\nsomething new").failures,
    ).toEqual([{ key: "0", title: "something new", request: "", differences: [] }]);
    expect(
      classifyRefusal(new ConnectError("this change breaks 1 route test case(s)", Code.Internal)).t,
    ).toBe("other");
  });
});
