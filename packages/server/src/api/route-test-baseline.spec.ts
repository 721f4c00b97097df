import { Code, ConnectError } from "@connectrpc/connect";
import { ValidationErrorsSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { parseRouterCheckTests } from "@switchyard/snapshot";
import { describe, expect, it } from "vitest";
import { runRouteTests } from "../store/route-tests.js";
import { pins, spec, stored } from "../testing/route-test-fixtures.js";
import { duplicateCaseNames, knownFailingCases } from "./route-test-baseline.js";

const run = (v2: string) => {
  const [result] = runRouteTests(spec(v2), [stored("pins", pins)]);
  if (result === undefined) throw new Error("no run");
  return result;
};

const refusalOf = (work: () => unknown): ConnectError => {
  try {
    work();
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("expected a refusal");
};

describe("a route test stored must pass on the latest version, or say which cases do not", () => {
  it("a test whose cases all pass there is stored with none known failing, asked or not", () => {
    expect(knownFailingCases(run("api-v2"), 3, false)).toEqual([]);
    expect(knownFailingCases(run("api-v2"), 3, true)).toEqual([]);
  });

  it("a failing case refuses the put unless known failing is asked for, naming the case, its request and what differs", () => {
    const refused = refusalOf(() => knownFailingCases(run("api-v1"), 3, false));
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage).toMatch(
      /^content: 1 case\(s\) fail on version 3, the latest published version, where a stored test must pass: .*--known-failing/,
    );
    expect(
      refused
        .findDetails(ValidationErrorsSchema)
        .flatMap((d) => d.issues.map((i) => [i.path, i.message])),
    ).toEqual([
      [
        "content: tests[0]",
        'case "orders go to v2": GET http://api.example.com/v2/orders: cluster_name: expected "api-v2", got "api-v1"',
      ],
    ]);
  });

  it("with known failing asked for, the failing cases are the ones stored as known failing", () => {
    expect(knownFailingCases(run("api-v1"), 3, true)).toEqual(["orders go to v2"]);
  });

  it("before anything is published the latest version is an empty configuration, and says so", () => {
    const [onNothing] = runRouteTests(
      { ...spec("api-v2"), listeners: [], routeConfigurations: [] },
      [stored("pins", pins)],
    );
    if (onNothing === undefined) throw new Error("no run");
    expect(refusalOf(() => knownFailingCases(onNothing, 0, false)).rawMessage).toMatch(
      /^content: 2 case\(s\) fail on the latest published version \(none is yet: an empty configuration\)/,
    );
  });

  it("two cases of one name are a problem at the second's test_name: a known-failing case is told by its name", () => {
    const parsed = parseRouterCheckTests(`${pins}- test_name: orders go to v2
  input: { authority: api.example.com, path: /v2/x, method: GET }
  validate: { cluster_name: api-v2 }
`);
    if (parsed.t !== "tests") throw new Error("does not parse");
    expect(duplicateCaseNames(parsed.tests)).toEqual([
      {
        path: "tests[2].test_name",
        message:
          '"orders go to v2" also names tests[0]: each case needs a name of its own, which its failures (and its being known failing) are told by',
      },
    ]);
  });
});
