/**
 * "Where does this request go?" through the API (RoutingService.TestRoute) and `switchyard route
 * test`, on the draft and on a published version, and route test cases in Envoy's
 * router_check_tool format (`switchyard route test -f`), which exit 1 naming what differs; the
 * console's Route tester in real Chromium.
 * Envoy's matching rules themselves are unit-tested in @switchyard/snapshot (routing/).
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ImportClashAction } from "@switchyard/proto/switchyard/v1/config_pb";
import { DomainMatch, RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import { bearer, type ConsoleWorld, startConsoleWorld } from "@switchyard/server/testing";
import { artifactPath } from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edgeConfig as config } from "./edge-config.js";
import { runCli } from "./run-cli.js";

describe("where does this request go? (RoutingService, switchyard route test, the Route tester page)", () => {
  let world: ConsoleWorld;
  let harness: ConsoleWorld["harness"];
  let routing: ReturnType<typeof createClient<typeof RoutingService>>;
  const cli = async (...args: string[]) => runCli(harness.baseUrl, await harness.token(), ...args);
  const refusal = (call: Promise<unknown>) =>
    call.then(
      () => undefined,
      (error: unknown) => ConnectError.from(error),
    );

  beforeAll(async () => {
    world = await startConsoleWorld();
    harness = world.harness;
    routing = createClient(
      RoutingService,
      createConnectTransport({
        baseUrl: harness.baseUrl,
        httpVersion: "1.1",
        interceptors: [bearer(await harness.token())],
      }),
    );
    // Version 1 sends /v2/ to api-v2; the draft moves it to api-v1.
    await harness.api().apply({ content: config("api-v2"), message: "the edge" });
    await harness.api().import({
      content: config("api-v1"),
      filename: "edge.yaml",
      onClash: ImportClashAction.REPLACE,
    });
  });

  afterAll(async () => {
    await world?.chromium.close();
    await harness?.stop();
  });

  it("answers as Envoy routes, on the draft or a published version: the exact domain before the * wildcard, a Host's port part of the match, the first route that matches, its prefix rewrite and headers", async () => {
    const ask = (version: bigint, authority = "API.example.com") =>
      routing.testRoute({
        listener: "edge",
        authority,
        path: "/v2/orders?id=7",
        version,
      });
    const published = await ask(1n);
    expect(published.virtualHost).toMatchObject({
      name: "api",
      domain: "api.example.com",
      how: DomainMatch.EXACT,
    });
    expect(published.verdict.case).toBe("routed");
    if (published.verdict.case !== "routed") return;
    expect(published.verdict.value.route).toMatchObject({
      index: 0,
      name: "v2",
      matchKind: "prefix",
      matchValue: "/v2/",
    });
    expect(published.verdict.value.outcome?.kind).toEqual({ case: "cluster", value: "api-v2" });
    expect(published.verdict.value.forwarding).toMatchObject({
      pathRewrite: "prefix_rewrite",
      path: "/orders?id=7",
      // Envoy's default route timeout.
      timeoutMs: 15_000,
      timeoutSource: "default",
    });
    expect(published.requestHeaders?.operations).toMatchObject([
      { level: "virtual-host", op: "add", name: "x-edge", value: "api" },
    ]);
    const draft = await ask(0n);
    expect(draft.verdict.value).toMatchObject({ outcome: { kind: { value: "api-v1" } } });
    // The Host's port is matched too (the connection manager strips none here): no domain of
    // "api" lists port 10000, so the * wildcard's virtual host serves it.
    const withPort = await ask(1n, "api.example.com:10000");
    expect(withPort.virtualHost).toMatchObject({ name: "www", how: DomainMatch.ANY });
    // Another host: the * wildcard's virtual host.
    const www = await routing.testRoute({ listener: "edge", authority: "shop.test", path: "/" });
    expect(www.virtualHost).toMatchObject({ name: "www", how: DomainMatch.ANY });
  });

  it("answers for a node group's nodes: a cluster they do not receive is named, a listener they do not receive refused", async () => {
    const api = harness.api();
    await api.createNodeGroup({
      name: "edge-lite",
      nodeIds: ["lite-1"],
      listeners: ["edge"],
      clusters: ["api-v1", "web"],
    });
    await api.createNodeGroup({ name: "no-edge", nodeIds: ["other-1"], clusters: ["web"] });
    const canary = await routing.testRoute({
      listener: "edge",
      authority: "api.example.com",
      path: "/checkout",
      headers: [{ name: "x-canary", value: "1" }],
      nodeGroup: "edge-lite",
    });
    expect(canary.verdict.value).toMatchObject({ outcome: { kind: { value: "canary" } } });
    expect(canary.clustersNotInGroup).toEqual(["canary"]);
    const plain = await routing.testRoute({
      listener: "edge",
      authority: "api.example.com",
      path: "/checkout",
      nodeGroup: "edge-lite",
    });
    expect(plain.clustersNotInGroup).toEqual([]);
    const elsewhere = await refusal(
      routing.testRoute({ listener: "edge", authority: "a", path: "/", nodeGroup: "no-edge" }),
    );
    expect(elsewhere?.code).toBe(Code.FailedPrecondition);
    expect(elsewhere?.rawMessage).toBe(
      'node_group: the nodes of group "no-edge" do not receive listener "edge"',
    );
    const unknown = await refusal(
      routing.testRoute({ listener: "edge", authority: "a", path: "/", nodeGroup: "nope" }),
    );
    expect(unknown?.code).toBe(Code.NotFound);
  });

  it("refuses a question it cannot answer, naming the field or object, and a malformed test file with each problem at its path", async () => {
    const neither = await refusal(routing.testRoute({ authority: "a", path: "/" }));
    expect(neither?.code).toBe(Code.InvalidArgument);
    expect(neither?.rawMessage).toMatch(/^listener: name a listener or a route configuration/);
    const unknown = await refusal(
      routing.testRoute({ listener: "nope", authority: "a", path: "/" }),
    );
    expect(unknown?.code).toBe(Code.NotFound);
    expect(unknown?.rawMessage).toMatch(/nope/);
    const noVersion = await refusal(
      routing.testRoute({ listener: "edge", authority: "a", path: "/", version: 99n }),
    );
    expect(noVersion?.code).toBe(Code.NotFound);
    const tooLong = await refusal(
      routing.testRoute({ listener: "edge", authority: "a", path: `/${"x".repeat(9_000)}` }),
    );
    expect(tooLong?.rawMessage).toMatch(/^path: longer than 8192 bytes/);
    const badFile = await refusal(
      routing.checkRouteTests({
        filename: "cases.yaml",
        content:
          "tests:\n- test_name: t\n  input: { authority: a }\n  validate: { cluster_name: 3 }\n",
      }),
    );
    expect(badFile?.code).toBe(Code.InvalidArgument);
    expect(badFile?.rawMessage).toMatch(/^cases\.yaml: \d+ problem/);
  });

  it("`switchyard route test` prints the steps; -H adds a header that picks another route; --version asks a published version", async () => {
    /** `switchyard route test` through the edge listener, for api.example.com. */
    const routeTest = (path: string, ...more: string[]) =>
      cli(
        "route",
        "test",
        "--listener",
        "edge",
        "--host",
        "api.example.com",
        "--path",
        path,
        ...more,
      );
    const canary = await routeTest("/checkout", "-H", "x-canary: 1");
    expect(canary.stderr).toBe("");
    expect(canary.stdout).toMatch(
      /^virtual host\s+api \(host "api\.example\.com" matched exact domain "api\.example\.com"\)$/m,
    );
    expect(canary.stdout).toMatch(/^route\s+#2 canary: prefix "\/", header x-canary/m);
    expect(canary.stdout).toMatch(/^outcome\s+cluster canary$/m);
    const plain = await routeTest("/checkout");
    expect(plain.stdout).toMatch(/^outcome\s+cluster api-v1$/m);
    expect(plain.stdout).toMatch(/^timeout\s+5000 ms$/m);
    expect(plain.stdout).toMatch(/^retry policy\s+.*"numRetries":2.* \(from the route\)$/m);
    const v1 = await routeTest("/v2/x", "--version", "1");
    expect(v1.stdout).toMatch(/^outcome\s+cluster api-v2$/m);
    expect(v1.stdout).toMatch(/in version 1$/m);
  });

  it("`switchyard route test -f` runs router_check_tool cases: exit 0 when all pass, 1 naming each failure and what differs", async () => {
    const file = join(tmpdir(), `route-cases-${process.pid}.yaml`);
    const cases = (v2: string) => `
tests:
- test_name: orders go to v2
  input: { authority: api.example.com, path: /v2/orders, method: GET }
  validate: { cluster_name: ${v2}, path_rewrite: /orders, virtual_host_name: api }
- test_name: the rest of the world goes to web
  input: { authority: www.test, path: /, method: GET }
  validate: { cluster_name: web }
`;
    writeFileSync(file, cases("api-v2"));
    const passing = await cli("route", "test", "-f", file, "--listener", "edge", "--version", "1");
    expect(passing.code).toBe(0);
    expect(passing.stdout).toBe(
      "PASS  orders go to v2\nPASS  the rest of the world goes to web\n2 passed, 0 failed (version 1)\n",
    );
    // The draft moved /v2/ to api-v1: the case pinning api-v2 fails there.
    const failing = await cli("route", "test", "-f", file, "--listener", "edge");
    expect(failing.code).toBe(1);
    expect(failing.stdout).toBe(
      'FAIL  orders go to v2\n      cluster_name: expected "api-v2", got "api-v1"\nPASS  the rest of the world goes to web\n1 passed, 1 failed (the draft)\n',
    );
  });

  it("the Route tester page answers a typed request step by step and marks the route taken; on a published version too; a malformed request is refused at its field", async () => {
    const { page, problems } = world;
    await page.goto(`${harness.baseUrl}/route-tester`);
    await page.getByLabel("Through").selectOption("listener:edge");
    await page.getByLabel("Host").fill("api.example.com");
    await page.getByLabel("Path").fill("checkout");
    await page.getByRole("button", { name: "Where does it go?" }).click();
    await page.getByText("A path starts with /.").waitFor();

    await page.getByLabel("Path").fill("/checkout");
    await page.getByLabel("Headers").fill("x-canary: 1");
    await page.getByRole("button", { name: "Where does it go?" }).click();
    const answer = page.getByRole("region", { name: "Where it goes" });
    await answer.getByText("Cluster canary").waitFor({ timeout: 15_000 });
    expect(await answer.innerText()).toMatch(/Route\s+#2 canary: prefix \/, header x-canary/);
    const taken = page.locator('tr[aria-current="true"]');
    await taken.waitFor();
    expect(await taken.innerText()).toMatch(/2\s+\/\s+canary/);
    await page.screenshot({ path: artifactPath("console-route-tester.png"), fullPage: true });

    // The same path on the Topology: the listener, route configuration, virtual host and cluster.
    await answer.getByRole("link", { name: "Show on topology" }).click();
    const onPath = page.locator('[data-on-path="true"]');
    await expect.poll(() => onPath.count(), { timeout: 15_000 }).toBe(4);
    expect((await onPath.allInnerTexts()).map((t) => t.split("\n")[1])).toEqual(
      expect.arrayContaining(["edge", "edge-routes", "api", "canary"]),
    );
    await page.goBack();
    await page.getByLabel("Through").selectOption("listener:edge");
    await page.getByLabel("Host").fill("api.example.com");

    await page.getByLabel("Version", { exact: true }).selectOption("1");
    await page.getByLabel("Headers").fill("");
    await page.getByLabel("Path").fill("/v2/orders");
    await page.getByRole("button", { name: "Where does it go?" }).click();
    await answer.getByText("Cluster api-v2").waitFor({ timeout: 15_000 });
    expect(await answer.innerText()).toMatch(/Path rewrite\s+\/orders \(prefix_rewrite\)/);
    expect(problems.splice(0)).toEqual([]);
  });
});
