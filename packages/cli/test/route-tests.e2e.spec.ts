/**
 * Route tests that gate publishing: a member pins the answers their team relies on, for their
 * team's domains only; a publish that breaks one is refused (API and `switchyard publish`),
 * naming the test, the request and what differs, and changes nothing, as is a review request of
 * it; an admin may publish anyway with a reason, which the audit log keeps.
 */
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ImportClashAction } from "@switchyard/proto/switchyard/v1/config_pb";
import { RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import {
  accessClient,
  bearer,
  configClient,
  createAccount,
  type Harness,
  Role,
  startHarness,
  tokenFor,
  USER_PASSWORD,
} from "@switchyard/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edgeConfig } from "./edge-config.js";
import { cli } from "./run-cli.js";

const pins = (cluster: string, host = "api.example.com") => `
tests:
- test_name: orders go to v2
  input: { authority: ${host}, path: /v2/orders, method: GET }
  validate: { cluster_name: ${cluster}, path_rewrite: /orders }
`;

describe("route tests that gate publishing", () => {
  let harness: Harness;
  let adminToken: string;
  let memberToken: string;
  const routing = (token: string) =>
    createClient(
      RoutingService,
      createConnectTransport({
        baseUrl: harness.baseUrl,
        httpVersion: "1.1",
        interceptors: [bearer(token)] as Interceptor[],
      }),
    );
  const as = (token: string, ...args: string[]) =>
    cli(["--server", harness.baseUrl, ...args], { env: { SWITCHYARD_TOKEN: token } });
  const refusal = (call: Promise<unknown>) =>
    call.then(
      () => undefined,
      (error: unknown) => ConnectError.from(error),
    );

  beforeAll(async () => {
    harness = await startHarness();
    adminToken = await harness.token();
    const access = accessClient(harness.baseUrl, [bearer(adminToken)]);
    const team = await access.createTeam({ name: "checkout", domains: ["api.example.com"] });
    await createAccount(harness.baseUrl, "carol", Role.MEMBER, team.id);
    memberToken = await tokenFor(harness.baseUrl, "carol", USER_PASSWORD);
    await harness.api().apply({ content: edgeConfig("api-v2"), message: "the edge" });
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("a member stores a test for their team's domain, not for another host; everyone can run them", async () => {
    // Empty cases are refused, saying where.
    const empty = await as(memberToken, "route", "tests", "put", "checkout-pins", "-f", "-");
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/content: \d+ problem/);
    const put = await routing(memberToken).putRouteTest({
      name: "checkout-pins",
      content: pins("api-v2"),
      listener: "edge",
    });
    expect(put).toMatchObject({ team: "checkout", cases: 1, author: "carol" });
    const foreign = await refusal(
      routing(memberToken).putRouteTest({
        name: "spy",
        content: pins("web", "www.example.org"),
        listener: "edge",
      }),
    );
    expect(foreign?.code).toBe(Code.PermissionDenied);
    expect(foreign?.rawMessage).toMatch(/host "www\.example\.org", which no team owns/);
    const listed = await as(adminToken, "route", "tests");
    expect(listed.stdout).toMatch(/^checkout-pins\s+checkout\s+1\s+listener edge\s+carol/m);
    const run = await as(memberToken, "route", "tests", "run");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      "PASS  checkout-pins (team checkout)\n1 case(s) passed, 0 failed (the draft)\n",
    );
  });

  it("a publish that breaks a test is refused, naming the test, the request and what differs, and leaves the draft as it was; switchyard diff -f says so before", async () => {
    const api = configClient(harness.baseUrl, [bearer(adminToken)]);
    // Before: `switchyard diff -f` says the publish would break the test (exit 2, as for any error).
    const drafted = (await api.diff({})).draftRevision;
    const dry = await cli(["--server", harness.baseUrl, "diff", "-f", "-"], {
      env: { SWITCHYARD_TOKEN: adminToken },
      stdin: edgeConfig("api-v1"),
    });
    expect(dry.code).toBe(2);
    expect(dry.stdout).toContain(
      'route test "checkout-pins" (team checkout), case "orders go to v2": GET http://api.example.com/v2/orders: cluster_name: expected "api-v2", got "api-v1"',
    );
    expect((await api.diff({})).draftRevision).toBe(drafted);
    // An edit of the stored objects (replace), as apply --draft makes it.
    await api.import({
      content: edgeConfig("api-v1"),
      filename: "edge.yaml",
      onClash: ImportClashAction.REPLACE,
    });
    const before = (await api.diff({})).draftRevision;
    const refused = await refusal(api.publish({ message: "move v2 to v1" }));
    expect(refused?.code).toBe(Code.FailedPrecondition);
    expect(refused?.rawMessage).toBe(
      [
        "this change breaks 1 route test case(s) that pass on version 1; fix the change or the tests (an admin may publish anyway with a reason):",
        '  route test "checkout-pins" (team checkout), case "orders go to v2": GET http://api.example.com/v2/orders',
        '    cluster_name: expected "api-v2", got "api-v1"',
      ].join("\n"),
    );
    expect((await api.listSnapshots({})).snapshots).toHaveLength(1);
    expect((await api.diff({})).draftRevision).toBe(before);
    const byCli = await as(adminToken, "publish", "-m", "move v2 to v1");
    expect(byCli.code).toBe(1);
    expect(byCli.stderr).toMatch(/cluster_name: expected "api-v2", got "api-v1"/);
    const failing = await as(memberToken, "route", "tests", "run");
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(
      /^FAIL {2}checkout-pins \(team checkout\)\n\s+case "orders go to v2"\n\s+cluster_name: expected "api-v2", got "api-v1"$/m,
    );
  });

  it("a review request of a change that breaks a test is refused as its publish would be, and stores no request", async () => {
    const api = configClient(harness.baseUrl, [bearer(adminToken)]);
    // The draft still moves /v2/ to api-v1 (the publish before was refused).
    const diff = await api.diff({});
    const asked = await refusal(
      api.requestReview({
        message: "move v2 to v1",
        draftRevision: diff.draftRevision,
        baseVersion: diff.fromVersion,
      }),
    );
    expect(asked?.code).toBe(Code.FailedPrecondition);
    expect(asked?.rawMessage).toMatch(
      /^this change breaks 1 route test case\(s\) that pass on version 1; .*\n {2}route test "checkout-pins" \(team checkout\), case "orders go to v2": GET http:\/\/api\.example\.com\/v2\/orders\n {4}cluster_name: expected "api-v2", got "api-v1"$/,
    );
    expect((await api.listReviewRequests({})).requests).toEqual([]);
    expect((await api.diff({})).draftRevision).toBe(diff.draftRevision);
  });

  it("only an admin overrides, with a reason the audit log keeps beside the failures", async () => {
    const member = configClient(harness.baseUrl, [bearer(memberToken)]);
    const denied = await refusal(
      member.publish({ message: "move v2 to v1", routeTestOverride: "trust me" }),
    );
    expect(denied?.code).toBe(Code.PermissionDenied);
    expect(denied?.rawMessage).toMatch(/^route_test_override: only an admin/);
    const published = await as(
      adminToken,
      "publish",
      "-m",
      "move v2 to v1",
      "--override-route-tests",
      "v2 is retired; checkout agreed in INC-42",
    );
    expect(published.stderr).toBe("");
    expect(published.stdout).toMatch(/^published version 2/);
    const access = accessClient(harness.baseUrl, [bearer(adminToken)]);
    const { events } = await access.listAuditEvents({});
    const event = events.find((e) => e.action === "publish" && e.target === "snapshot/2");
    expect(event?.detail?.routeTestOverride).toMatchObject({
      reason: "v2 is retired; checkout agreed in INC-42",
      failures: [{ test: "checkout-pins", case: "orders go to v2" }],
    });
  });

  it("a case failing on the latest version is a warning of switchyard diff -f, not an error: the change does not break it", async () => {
    // checkout-pins fails on version 2 (/v2/ goes to api-v1); canary takes /v2/ in the files.
    const dry = await cli(["--server", harness.baseUrl, "diff", "-f", "-"], {
      env: { SWITCHYARD_TOKEN: adminToken },
      stdin: edgeConfig("canary"),
    });
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain(
      '  warning  : route test "checkout-pins" (team checkout), case "orders go to v2": GET http://api.example.com/v2/orders: fails on version 2 too, so it does not refuse this change: cluster_name: expected "api-v2", got "canary"',
    );
    expect(dry.stdout).not.toMatch(/^ {2}error/m);
  });

  it("switchyard route tests put refuses cases that fail on the latest version, naming each; --known-failing stores them, listed and run as known failing; once they pass, run says so and promote lets them gate", async () => {
    const file = pins("api-v2");
    const put = (...flags: string[]) =>
      cli(
        [
          "--server",
          harness.baseUrl,
          "route",
          "tests",
          "put",
          "checkout-pins",
          "-f",
          "-",
          "--listener",
          "edge",
          ...flags,
        ],
        { env: { SWITCHYARD_TOKEN: memberToken }, stdin: file },
      );
    const refused = await put();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /content: 1 case\(s\) fail on version 2, the latest published version, where a stored test must pass: .*\n {2}error {2}content: tests\[0\]: case "orders go to v2": GET http:\/\/api\.example\.com\/v2\/orders: cluster_name: expected "api-v2", got "api-v1"$/m,
    );
    const known = await put("--known-failing");
    expect(known.stderr).toBe("");
    expect(known.stdout).toBe(
      'stored route test checkout-pins (1 case(s), team checkout): every publish runs it; known failing on the latest version, gating nothing until it passes and the test is promoted (switchyard route tests promote checkout-pins): "orders go to v2"\n',
    );
    expect((await as(memberToken, "route", "tests")).stdout).toMatch(
      /^checkout-pins\s+checkout\s+1\s+listener edge\s+carol\s+1 of 1\s*$/m,
    );
    const run = await as(memberToken, "route", "tests", "run");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^PASS {2}checkout-pins \(team checkout\)\n {6}case "orders go to v2" \(known failing: gates nothing\)\n/,
    );
    expect(run.stdout).toMatch(/0 case\(s\) passed, 1 failed \(1 known failing\) \(the draft\)\n$/);

    // /v2/ back to api-v2: the known-failing case passes, and says so.
    await harness.api().apply({ content: edgeConfig("api-v2"), message: "v2 back" });
    const passes = await as(memberToken, "route", "tests", "run", "--version", "3");
    expect(passes.stdout).toContain(
      'case "orders go to v2" passes, stored as known failing: switchyard route tests promote checkout-pins lets it gate',
    );
    const promoted = await as(memberToken, "route", "tests", "promote", "checkout-pins");
    expect(promoted.stdout).toBe(
      "promoted route test checkout-pins (1 case(s), team checkout): every publish runs it\n",
    );
    expect((await as(memberToken, "route", "tests")).stdout).toMatch(
      /^checkout-pins\s+checkout\s+1\s+listener edge\s+carol\s+-\s*$/m,
    );
  });

  it("stored cases are capped, 2,000 a team and 10,000 in all: a put past either is refused saying so, and stores nothing", async () => {
    const many = (count: number) =>
      `tests:\n${Array.from(
        { length: count },
        (_, i) =>
          `- test_name: pin ${i}\n  input: { authority: api.example.com, path: /v2/orders, method: GET }\n  validate: { cluster_name: api-v2 }\n`,
      ).join("")}`;
    const admin = routing(adminToken);
    const stored = async () => (await admin.listRouteTests({})).tests;
    const before = await stored();
    const overTeam = await refusal(
      routing(memberToken).putRouteTest({ name: "checkout-many", content: many(2_000) }),
    );
    expect(overTeam?.code).toBe(Code.ResourceExhausted);
    expect(overTeam?.rawMessage).toMatch(
      /^content: team checkout's route tests would hold 2001 cases, more than the 2000 a team may store/,
    );
    // Admins' tests count in the total only: fill it to the limit exactly, then one more.
    const room = 10_000 - before.reduce((n, test) => n + test.cases, 0);
    await admin.putRouteTest({ name: "bulk-a", content: many(5_000) });
    await admin.putRouteTest({ name: "bulk-b", content: many(room - 5_000) });
    const overTotal = await refusal(admin.putRouteTest({ name: "bulk-c", content: many(1) }));
    expect(overTotal?.code).toBe(Code.ResourceExhausted);
    expect(overTotal?.rawMessage).toMatch(
      /^content: the stored route tests would hold 10001 cases, more than the 10000 allowed/,
    );
    // Rewriting a stored test counts its new cases, not its old ones as well.
    await admin.putRouteTest({ name: "bulk-b", content: many(room - 5_000) });
    expect((await stored()).map((test) => test.name)).toEqual(
      [...before.map((test) => test.name), "bulk-a", "bulk-b"].sort(),
    );
    await admin.deleteRouteTest({ name: "bulk-a" });
    await admin.deleteRouteTest({ name: "bulk-b" });
  }, 60_000);
});
