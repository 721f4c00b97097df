/**
 * Route tests in the console, in real Chromium: the admin stores a test on the Route tests page
 * and runs it on the draft; a change that breaks it is refused on the Changes page, naming the
 * failing case and what differs; the admin publishes anyway with a reason. A member sees the
 * failures and that an admin may override, and no override of their own. A test failing on the
 * latest version is stored only as known failing, shown so, and promoted once it passes. The
 * gate itself (API, CLI, members' limits, the audit log) is route-tests.e2e.spec.ts and
 * packages/server/test/route-test-veto.e2e.spec.ts.
 */

import { ImportClashAction, ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  accessClient,
  bearer,
  type ConsoleWorld,
  createAccount,
  privilegedAccess,
  putRouteTest,
  Role,
  signIn,
  startConsoleWorld,
  USER_PASSWORD,
} from "@switchyard/server/testing";
import { artifactPath, openWatchedPage } from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edgeConfig } from "./edge-config.js";

const pins = `tests:
- test_name: orders go to v2
  input: { authority: api.example.com, path: /v2/orders, method: GET }
  validate: { cluster_name: api-v2, path_rewrite: /orders }`;

describe("route tests in the console", () => {
  let world: ConsoleWorld;
  let harness: ConsoleWorld["harness"];

  beforeAll(async () => {
    world = await startConsoleWorld({
      // The refusals provoked on purpose, which Chromium logs as failed resource loads (HTTP
      // 400): cases that are no list, and the publish that breaks the test.
      ignore: (text, from) =>
        text.includes("status of 400") &&
        (from.endsWith("/switchyard.v1.RoutingService/PutRouteTest") ||
          from.endsWith("/switchyard.v1.ConfigService/Publish")),
    });
    harness = world.harness;
    await harness.api().apply({ content: edgeConfig("api-v2"), message: "the edge" });
  }, 120_000);

  afterAll(async () => {
    await world?.chromium.close();
    await harness?.stop();
  });

  it("an admin stores a test and runs it on the draft; a publish that breaks it is refused showing the failing case, and the admin publishes anyway with a reason", async () => {
    const { page, problems } = world;
    await page.goto(`${harness.baseUrl}/route-tester`);
    await page.getByRole("main").getByRole("link", { name: "Route tests", exact: true }).click();
    await page.waitForURL(/\/route-tests$/);

    const form = page.getByRole("region", { name: "New route test" });
    await form.getByLabel("Name").fill("checkout-pins");
    // The listener shows once the draft's listeners have loaded.
    await form.getByRole("option", { name: "Listener edge" }).waitFor({ state: "attached" });
    await form.getByLabel("Through").selectOption("listener:edge");
    await form.getByLabel("Cases", { exact: true }).fill("tests: []");
    await form.getByRole("button", { name: "Save test" }).click();
    // Refused by the server at the cases, with the path in the file.
    await form.getByText("tests: expected a list of at least one test").waitFor();

    await form.getByLabel("Cases", { exact: true }).fill(pins);
    await form.getByRole("button", { name: "Save test" }).click();
    const stored = page.getByRole("region", { name: "Stored tests" });
    const row = stored.getByRole("row", { name: /checkout-pins/ });
    await row.waitFor();
    expect(await row.innerText()).toMatch(/checkout-pins\s+admins\s+1\s+listener edge\s+admin/);

    await page.getByRole("button", { name: "Run all on the draft" }).click();
    const results = page.getByRole("region", { name: "Results on the draft" });
    const result = results.getByRole("listitem", { name: "Route test checkout-pins" });
    await result.getByText("PASS", { exact: true }).waitFor();
    expect(await result.innerText()).toMatch(/1 case passed/);
    await page.screenshot({ path: artifactPath("console-route-tests.png"), fullPage: true });

    // Someone moves /v2/ to api-v1 in the draft.
    await harness.api().import({
      content: edgeConfig("api-v1"),
      filename: "edge.yaml",
      onClash: ImportClashAction.REPLACE,
    });
    await page.goto(`${harness.baseUrl}/changes`);
    const publish = page.getByRole("form", { name: "Publish" });
    await publish.getByLabel("Message").fill("move v2 to v1");
    await publish.getByRole("button", { name: "Publish", exact: true }).click();
    const refusal = publish.getByRole("alert");
    await refusal.getByText("this change breaks 1 route test case", { exact: false }).waitFor();
    const failing = refusal.getByRole("list", { name: "Failing route test cases" });
    expect(await failing.innerText()).toMatch(
      /route test "checkout-pins", case "orders go to v2"\s+GET http:\/\/api\.example\.com\/v2\/orders\s+cluster_name: expected "api-v2", got "api-v1"/,
    );
    expect((await harness.api().listSnapshots({})).snapshots).toHaveLength(1);

    // "Publish anyway" asks for a reason first.
    await refusal.getByRole("button", { name: "Publish anyway" }).click();
    await refusal.getByText("Say why: the audit log keeps the reason").waitFor();
    await page.screenshot({
      path: artifactPath("console-route-tests-refused.png"),
      fullPage: true,
    });
    await refusal.getByLabel("Reason").fill("v2 is retired; checkout agreed in INC-42");
    await refusal.getByRole("button", { name: "Publish anyway" }).click();
    await page.getByText("Version 2 published").waitFor({ timeout: 15_000 });
    const versions = (await harness.api().listSnapshots({})).snapshots;
    expect(versions.map((v) => [v.version, v.message])).toEqual([
      [2n, "move v2 to v1"],
      [1n, "the edge"],
    ]);
    expect(problems.splice(0)).toEqual([]);
  }, 120_000);

  it("a member whose change breaks a test sees the failing case and that an admin may publish anyway, with no override of their own; they may not edit an admin's test", async () => {
    const admin = await harness.token();
    const team = await accessClient(harness.baseUrl, [bearer(admin)]).createTeam({
      name: "checkout",
      domains: ["api.example.com", "*.api.example.com"],
    });
    await createAccount(harness.baseUrl, "carol", Role.MEMBER, team.id);
    // The team's routes may name the edge's clusters (references are authorized).
    const access = await privilegedAccess(harness.baseUrl);
    for (const name of ["api-v1", "api-v2", "canary"])
      await access.setSharing({ kind: ResourceKind.CLUSTER, name, teamIds: [team.id] });
    // /v2/ back to api-v2, where the admin's test passes again; then the draft moves it to
    // canary, which breaks the test.
    await harness.api().apply({ content: edgeConfig("api-v2"), message: "v2 back" });
    await harness.api().import({
      content: edgeConfig("canary"),
      filename: "edge.yaml",
      onClash: ImportClashAction.REPLACE,
    });
    const { page, problems } = await openWatchedPage(world.chromium, {
      session: {
        url: harness.baseUrl,
        cookie: await signIn(harness.baseUrl, "carol", USER_PASSWORD),
      },
      ignore: (text, from) =>
        text.includes("status of 400") && from.endsWith("/switchyard.v1.ConfigService/Publish"),
    });
    await page.goto(`${harness.baseUrl}/route-tests`);
    const row = page.getByRole("region", { name: "Stored tests" }).getByRole("row", {
      name: /checkout-pins/,
    });
    await row.waitFor();
    // The form shows once the page knows carol is a member of a team; the admins' test offers
    // her neither Edit nor Delete.
    await page.getByRole("region", { name: "New route test" }).waitFor();
    expect(await row.getByRole("button").count()).toBe(0);

    await page.goto(`${harness.baseUrl}/changes`);
    const publish = page.getByRole("form", { name: "Publish" });
    await publish.getByLabel("Message").fill("canary takes v2");
    await publish.getByRole("button", { name: "Publish", exact: true }).click();
    const refusal = publish.getByRole("alert");
    await refusal.getByText("An admin may publish anyway").waitFor();
    expect(
      await refusal.getByRole("list", { name: "Failing route test cases" }).innerText(),
    ).toMatch(/cluster_name: expected "api-v2", got "canary"/);
    expect(await refusal.getByRole("button", { name: "Publish anyway" }).count()).toBe(0);
    expect(await refusal.getByLabel("Reason").count()).toBe(0);
    expect((await harness.api().listSnapshots({})).snapshots).toHaveLength(3);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it("an admin deletes a test once they confirm it", async () => {
    const { page, problems } = world;
    await page.goto(`${harness.baseUrl}/route-tests`);
    await page.getByRole("button", { name: "Delete route test checkout-pins" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete route test “checkout-pins”?" });
    await dialog.getByRole("button", { name: "Delete route test" }).click();
    await page.getByText("No route tests yet.").waitFor();
    expect((await harness.api().listSnapshots({})).snapshots).toHaveLength(3);
    expect(problems.splice(0)).toEqual([]);
  }, 60_000);

  it("a test failing on the latest version is refused at its cases until stored as known failing, which the page shows; a case failing before a publish refuses nothing, and once the known-failing case passes the admin promotes the test", async () => {
    const { page, problems } = world;
    // Version 3 sends /v2/ to api-v2; the draft (left by the member's refused publish) to canary.
    await page.goto(`${harness.baseUrl}/route-tests`);
    const form = page.getByRole("region", { name: "New route test" });
    await form.getByLabel("Name").fill("canary-pins");
    await form.getByRole("option", { name: "Listener edge" }).waitFor({ state: "attached" });
    await form.getByLabel("Through").selectOption("listener:edge");
    await form
      .getByLabel("Cases", { exact: true })
      .fill(pins.replace("cluster_name: api-v2, path_rewrite: /orders", "cluster_name: canary"));
    await form.getByRole("button", { name: "Save test" }).click();
    await form.getByText("1 case(s) fail on version 3", { exact: false }).waitFor();
    expect(await form.getByRole("list", { name: "Problems in the cases" }).innerText()).toBe(
      'tests[0]: case "orders go to v2": GET http://api.example.com/v2/orders: cluster_name: expected "canary", got "api-v2"',
    );
    expect((await harness.api().listSnapshots({})).snapshots).toHaveLength(3);

    // The refusal offers to store the failing case as known failing.
    await form.getByRole("button", { name: "Store as known failing" }).click();
    const row = page.getByRole("region", { name: "Stored tests" }).getByRole("row", {
      name: /canary-pins/,
    });
    await row.getByText("1 known failing").waitFor();

    // On the draft the known-failing case passes; the latest version still fails it, so the test
    // cannot gate it yet.
    await page.getByRole("button", { name: "Run all on the draft" }).click();
    const result = page
      .getByRole("region", { name: "Results on the draft" })
      .getByRole("listitem", { name: "Route test canary-pins" });
    await result.getByText("Known failing, passing on the draft", { exact: false }).waitFor();
    await page.screenshot({
      path: artifactPath("console-route-tests-known-failing.png"),
      fullPage: true,
    });
    await result.getByRole("button", { name: "Promote route test canary-pins" }).click();
    await page.getByText("Couldn’t promote “canary-pins”").waitFor();

    // A test stored before this rule, failing on version 3 (api-v2) and on the draft (canary),
    // refuses nothing: the publish says so.
    await putRouteTest(harness.database.prisma, {
      name: "legacy-pins",
      teamId: null,
      content: pins.replace("cluster_name: api-v2", "cluster_name: api-v1"),
      listener: "edge",
      routeConfiguration: "",
      author: "admin",
    });
    await page.goto(`${harness.baseUrl}/changes`);
    const publish = page.getByRole("form", { name: "Publish" });
    await publish.getByLabel("Message").fill("canary takes v2");
    await publish.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Version 4 published").waitFor({ timeout: 15_000 });
    expect(
      await page.getByRole("list", { name: "Route test cases already failing" }).innerText(),
    ).toBe(
      'route test "legacy-pins", case "orders go to v2": GET http://api.example.com/v2/orders: fails on version 3 too, so it does not refuse this change: cluster_name: expected "api-v1", got "canary"',
    );
    await page.screenshot({
      path: artifactPath("console-route-tests-already-failing.png"),
      fullPage: true,
    });

    // Version 4 sends /v2/ to canary: the known-failing case passes there, and the test is
    // promoted: every case gates again.
    await page.goto(`${harness.baseUrl}/route-tests`);
    await page.getByRole("button", { name: "Run all on the draft" }).click();
    await page.getByRole("button", { name: "Promote route test canary-pins" }).click();
    await page.getByText("Route test “canary-pins” promoted").waitFor();
    await page
      .getByRole("region", { name: "Stored tests" })
      .getByRole("row", { name: /canary-pins/ })
      .getByText("known failing")
      .waitFor({ state: "detached" });
    const stored = (await world.harness.api().listSnapshots({})).snapshots;
    expect(stored).toHaveLength(4);
    expect(problems.splice(0)).toEqual([]);
  }, 120_000);
});
