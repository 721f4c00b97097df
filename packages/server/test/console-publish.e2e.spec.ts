import { fromBinary } from "@bufbuild/protobuf";
import { ConfigService, LbPolicy, ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  artifactPath,
  launchBrowser,
  openWatchedPage,
  type TestBrowser,
  type WatchedPage,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { seedGrpcService } from "./seed.js";

/**
 * Whether each `method` call the page makes from now on asks for its changes by name only
 * (ChangeBodies.omit), in the order sent (the console's requests are binary protobuf).
 */
function bodiesOmitted(page: WatchedPage["page"], method: "Publish" | "Rollback"): boolean[] {
  const omitted: boolean[] = [];
  const input =
    method === "Publish" ? ConfigService.method.publish.input : ConfigService.method.rollback.input;
  page.on("request", (request) => {
    if (!request.url().endsWith(`/${method}`)) return;
    omitted.push(
      fromBinary(input, request.postDataBuffer() ?? new Uint8Array()).bodies?.omit ?? false,
    );
  });
  return omitted;
}

/**
 * The review-and-release half of the console in real Chromium: Changes (diff, publish), History
 * (versions, rollback), Import / export and Topology. The cases run in order and share one
 * server: each starts from what the previous one left.
 */
describe("the console's release workflow in a real browser", () => {
  let harness: Harness;
  let chromium: TestBrowser;

  beforeAll(async () => {
    harness = await startHarness({
      webConsole: true,
      seed: (database) => seedGrpcService(database.prisma, "payments", [50051, 50052]),
    });
    chromium = await launchBrowser();
    await harness.api("seed-script").publish({ message: "Initial payments service" });
  });

  afterAll(async () => {
    await chromium?.close();
    await harness?.stop();
  });

  /** A page at 1280 px that records every error and warning the browser console shows. */
  async function openPage(path: string): Promise<WatchedPage> {
    const watched = await openWatchedPage(chromium, {
      session: { url: harness.baseUrl, cookie: await harness.sessionCookie() },
    });
    await watched.page.goto(`${harness.baseUrl}${path}`);
    return watched;
  }

  it("shows a draft change as a diff on Changes, and publishing it there with a message makes a version History lists with its message and author", async () => {
    const api = harness.api("alice");
    const cluster = await api.getCluster({ name: "payments-backend" });
    const endpoint = cluster.localities[0]?.endpoints[1];
    if (!endpoint) throw new Error("the seed has two endpoints");
    endpoint.port = 50053;
    await api.updateCluster(cluster);

    const { page, problems } = await openPage("/changes");
    const card = page.getByRole("article", { name: "cluster payments-backend" });
    await card.waitFor({ timeout: 15_000 });
    const diff = card.getByRole("table", { name: "Changes to cluster payments-backend" });
    expect(await diff.innerText()).toMatch(/50052[\s\S]*50053/);
    await page.getByText("Valid: no errors, no warnings.").waitFor();
    await page.screenshot({ path: artifactPath("console-changes.png"), fullPage: true });

    const omitted = bodiesOmitted(page, "Publish");
    await page.getByLabel("Message").fill("Move the second payments backend to port 50053");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Version 2 published").waitFor({ timeout: 15_000 });
    // The diff was reviewed above: the publish asks for its changes by name, rendering nothing.
    expect(omitted).toEqual([true]);
    await page.getByRole("region", { name: "Rollout of version 2" }).waitFor();
    await page.screenshot({ path: artifactPath("console-changes-published.png"), fullPage: true });

    const [latest] = (await api.listSnapshots({})).snapshots;
    expect(latest).toMatchObject({
      version: 2n,
      // The signed-in user, not a name typed in the form.
      author: "admin",
      message: "Move the second payments backend to port 50053",
    });

    await page.getByRole("link", { name: "History", exact: true }).click();
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "v2" }) });
    await row.waitFor({ timeout: 15_000 });
    expect(await row.innerText()).toContain("Move the second payments backend to port 50053");
    expect(await row.innerText()).toContain("admin");
    await page.getByRole("heading", { name: /^Version 2/ }).waitFor();
    await page.getByRole("article", { name: "cluster payments-backend" }).waitFor();
    await page.screenshot({ path: artifactPath("console-history.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it("rolls back to an older version only after confirming, publishing its content as a new version", async () => {
    const api = harness.api();
    const { page, problems } = await openPage("/history");
    await page.getByRole("link", { name: "v1" }).click();
    await page.getByRole("heading", { name: /^Version 1/ }).waitFor({ timeout: 15_000 });

    await page.getByRole("button", { name: "Roll back to this version" }).click();
    const dialog = page.getByRole("dialog", { name: "Roll back to version 1?" });
    await dialog.waitFor();
    // Cancelling publishes nothing.
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect((await api.listSnapshots({})).snapshots).toHaveLength(2);

    const omitted = bodiesOmitted(page, "Rollback");
    await page.getByRole("button", { name: "Roll back to this version" }).click();
    await page.screenshot({ path: artifactPath("console-rollback-dialog.png") });
    await dialog.getByRole("button", { name: "Roll back to version 1" }).click();
    await page.getByRole("region", { name: "Rollout of version 3" }).waitFor({ timeout: 15_000 });
    await page.getByRole("heading", { name: /^Version 3/ }).waitFor();

    expect(omitted).toEqual([true]);
    const [latest] = (await api.listSnapshots({})).snapshots;
    expect(latest).toMatchObject({ version: 3n, rolledBackFrom: 1n, author: "admin" });
    const [v1, v3] = await Promise.all([api.export({ version: 1n }), api.export({ version: 3n })]);
    expect(v3.content).toBe(v1.content);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it("discards the draft's changes on Changes only after confirming, back to the published version", async () => {
    const api = harness.api();
    const cluster = await api.getCluster({ name: "payments-backend" });
    await api.updateCluster({ ...cluster, connectTimeoutMs: 4321 });
    const { page, problems } = await openPage("/changes");
    await page
      .getByRole("article", { name: "cluster payments-backend" })
      .waitFor({ timeout: 15_000 });

    await page.getByRole("button", { name: "Discard changes…" }).click();
    const dialog = page.getByRole("dialog", { name: "Discard the unpublished change?" });
    await dialog.waitFor();
    // Cancelling keeps the draft.
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect((await api.diff({})).changes).toHaveLength(1);

    await page.getByRole("button", { name: "Discard changes…" }).click();
    await page.screenshot({ path: artifactPath("console-discard-dialog.png") });
    await dialog.getByRole("button", { name: "Discard changes" }).click();
    await page.getByText("Discarded 1 change").waitFor({ timeout: 15_000 });
    await page
      .getByRole("article", { name: "cluster payments-backend" })
      .waitFor({ state: "detached", timeout: 15_000 });

    expect((await api.diff({})).changes).toEqual([]);
    expect((await api.getCluster({ name: "payments-backend" })).connectTimeoutMs).toBe(
      cluster.connectTimeoutMs,
    );
    // Nothing was published.
    expect((await api.listSnapshots({})).snapshots).toHaveLength(3);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it("previews what pasted Envoy YAML changes before applying it to the draft", async () => {
    const api = harness.api();
    const yaml = [
      "resources:",
      '- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster',
      "  name: inventory",
      "  type: EDS",
      "  lb_policy: ROUND_ROBIN",
      "  connect_timeout: 1s",
      "  eds_cluster_config: { eds_config: { ads: {} } }",
      '- "@type": type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
      "  cluster_name: inventory",
      "  endpoints:",
      "  - lb_endpoints:",
      "    - endpoint: { address: { socket_address: { address: 127.0.0.1, port_value: 50070 } } }",
      "",
    ].join("\n");

    const { page, problems } = await openPage("/import");
    await page.getByLabel("Envoy YAML or JSON").fill(yaml);
    await page.getByRole("button", { name: "Preview changes" }).click();
    const card = page.getByRole("article", { name: "cluster inventory" });
    await card.waitFor({ timeout: 15_000 });
    expect(await card.innerText()).toMatch(/added/i);
    expect(await card.innerText()).toContain("50070");
    // A preview changes nothing.
    await expect(api.getCluster({ name: "inventory" })).rejects.toThrow(/does not exist/);
    await page.screenshot({ path: artifactPath("console-import.png"), fullPage: true });

    await page.getByRole("button", { name: "Apply to draft" }).click();
    await page.getByRole("link", { name: "Review and publish on Changes" }).waitFor();
    const imported = await api.getCluster({ name: "inventory" });
    expect(imported.localities[0]?.endpoints[0]?.port).toBe(50070);

    await page.getByRole("link", { name: "Review and publish on Changes" }).click();
    await page.getByRole("article", { name: "cluster inventory" }).waitFor({ timeout: 15_000 });
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it("imports resources without @type as the Resource type chosen, and says to choose one when none is", async () => {
    const yaml = [
      "- name: gw-inventory",
      "  type: STATIC",
      "  connectTimeout: 5s",
      "  loadAssignment:",
      "    clusterName: gw-inventory",
      "    endpoints:",
      "    - lbEndpoints:",
      "      - endpoint: { address: { socketAddress: { address: 127.0.0.1, portValue: 50071 } } }",
      "",
    ].join("\n");

    const { page, problems } = await openPage("/import");
    await page.getByLabel("Envoy YAML or JSON").fill(yaml);
    await page.getByRole("button", { name: "Preview changes" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "This cannot be imported" });
    await alert.getByText('these resources have no "@type"').first().waitFor();
    expect(await alert.innerText()).toContain('the console\'s "Resource type"');

    await page.getByLabel("Resource type").selectOption("clusters");
    await page.getByRole("button", { name: "Preview changes" }).click();
    const card = page.getByRole("article", { name: "cluster gw-inventory" });
    await card.waitFor({ timeout: 15_000 });
    expect(await card.innerText()).toContain("50071");
    // The first preview's refusal is the browser's one expected failed request.
    const refused = (p: string) =>
      p.includes("status of 400") && p.includes("ConfigService/Import");
    expect(problems.filter((p) => !refused(p))).toEqual([]);
    await page.close();
  }, 90_000);

  it("draws listeners through routes to clusters on Topology, each node opening its object", async () => {
    const { page, problems } = await openPage("/topology");
    const listener = page.getByRole("link", { name: /Listener\s*payments\s*gRPC API listener/ });
    await listener.waitFor({ timeout: 15_000 });
    await page.getByRole("link", { name: /Route configuration\s*payments-routes/ }).waitFor();
    await page.getByRole("link", { name: /Endpoint\s*127\.0\.0\.1:50052/ }).waitFor();
    await page.screenshot({ path: artifactPath("console-topology.png"), fullPage: true });

    await page.getByRole("link", { name: /Cluster\s*payments-backend/ }).click();
    await page.waitForURL(`${harness.baseUrl}/clusters/payments-backend`, { timeout: 15_000 });

    // Focus: only the traffic through one object, chosen by keyboard, kept in the URL.
    await page.goto(`${harness.baseUrl}/topology`);
    const search = page.getByRole("combobox", { name: "Focus on" });
    await search.fill("invent");
    await page.getByRole("option", { name: /inventory\s*Cluster/ }).waitFor();
    await search.press("Enter");
    await page.waitForURL(`${harness.baseUrl}/topology?focus=cluster:inventory`);
    await page.getByRole("link", { name: /Endpoint\s*127\.0\.0\.1:50070/ }).waitFor();
    await page.getByRole("link", { name: /Listener\s*payments/ }).waitFor({ state: "detached" });
    await page.screenshot({ path: artifactPath("console-topology-focus.png"), fullPage: true });
    await page.getByRole("button", { name: "Show everything" }).click();
    await page.getByRole("link", { name: /Listener\s*payments/ }).waitFor();

    // A link to a focus opens it.
    await page.goto(`${harness.baseUrl}/topology?focus=listener:payments`);
    await page.getByRole("link", { name: /Endpoint\s*127\.0\.0\.1:50052/ }).waitFor();
    expect(await page.getByRole("link", { name: /Cluster\s*inventory/ }).count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it("refuses to publish a draft that changed after it was reviewed, and says to review it again", async () => {
    const api = harness.api();
    const { page, problems } = await openPage("/changes");
    await page.getByRole("article", { name: "cluster inventory" }).waitFor({ timeout: 15_000 });

    // Someone else edits the draft while this page shows the reviewed diff.
    const late = await api.getCluster({ name: "inventory" });
    late.name = "late-arrival";
    await api.createCluster(late);

    await page.getByLabel("Message").fill("Add inventory");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    const alert = page
      .getByRole("alert")
      .filter({ hasText: "The draft changed after you reviewed it" });
    await alert.waitFor({ timeout: 15_000 });
    expect((await api.listSnapshots({})).snapshots).toHaveLength(3);
    await page.screenshot({ path: artifactPath("console-changes-refused.png"), fullPage: true });

    await alert.getByRole("button", { name: "Review the changes again" }).click();
    await page.getByRole("article", { name: "cluster late-arrival" }).waitFor({ timeout: 15_000 });
    // The refused publish is an HTTP error response, which Chromium always logs; nothing else.
    expect(problems.filter((p) => !/: Failed to load resource: .* 400 /.test(p))).toEqual([]);
    await page.close();
  }, 90_000);

  it("a version of many changes lists them by name at once, and a card's YAML is fetched when it is opened", async () => {
    const api = harness.api();
    const template = await api.getCluster({ name: "inventory" });
    for (let i = 0; i < 12; i++) {
      template.name = `bulk-${i}`;
      await api.createCluster(template);
    }
    const { snapshot } = await api.publish({ message: "Twelve clusters" });
    const version = snapshot?.version.toString() ?? "";
    // What the console asked Diff for (its requests are binary protobuf).
    const bodies: { omit: boolean; only: { kind: ResourceKind; name: string }[] }[] = [];
    const { page, problems } = await openWatchedPage(chromium, {
      session: { url: harness.baseUrl, cookie: await harness.sessionCookie() },
    });
    page.on("request", (request) => {
      if (!request.url().endsWith("/Diff")) return;
      const { bodies: wanted } = fromBinary(
        ConfigService.method.diff.input,
        request.postDataBuffer() ?? new Uint8Array(),
      );
      bodies.push({
        omit: wanted?.omit ?? false,
        only: (wanted?.only ?? []).map((r) => ({ kind: r.kind, name: r.name })),
      });
    });
    await page.goto(`${harness.baseUrl}/history?version=${version}`);
    const card = page.getByRole("article", { name: "Cluster bulk-3" });
    await card.waitFor({ timeout: 15_000 });
    // Listed by name only: no object's YAML has been asked for yet.
    expect(bodies).toEqual([{ omit: true, only: [] }]);
    expect(await card.getByRole("region").count()).toBe(0);

    await card.getByRole("button", { name: "Show the diff of Cluster bulk-3" }).click();
    await card.getByText("name: bulk-3").first().waitFor({ timeout: 15_000 });
    expect(bodies[1]).toEqual({
      omit: false,
      only: [{ kind: ResourceKind.CLUSTER, name: "bulk-3" }],
    });
    await page.screenshot({ path: artifactPath("console-history-large.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it("asks before publishing a change validation predicts a node group's clients will reject, listing each, and publishes it with accept_warnings only once confirmed", async () => {
    const api = harness.api();
    const cluster = await api.getCluster({ name: "payments-backend" });
    await api.updateCluster({ ...cluster, lbPolicy: LbPolicy.LEAST_REQUEST });
    const before = (await api.listSnapshots({})).snapshots.length;

    const { page, problems } = await openPage("/changes");
    await page.getByText("Publishable, with warnings").waitFor({ timeout: 15_000 });
    // What each Publish the page sends says of accept_warnings (binary protobuf).
    const accepted: boolean[] = [];
    page.on("request", (request) => {
      if (!request.url().endsWith("/Publish")) return;
      const sent = fromBinary(
        ConfigService.method.publish.input,
        request.postDataBuffer() ?? new Uint8Array(),
      );
      accepted.push(sent.acceptWarnings);
    });
    await page.getByLabel("Message").fill("Least request for payments");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Clients will reject this version" });
    await dialog.waitFor();
    const listed = dialog.getByRole("list", { name: "Predicted rejections" }).getByRole("listitem");
    expect(await listed.allInnerTexts()).toEqual([
      expect.stringMatching(
        /^proxyless gRPC clients of node group "default"\s+a proxyless gRPC client would reject cluster "payments-backend" .*lb policy LEAST_REQUEST is not supported$/,
      ),
    ]);
    await page.screenshot({ path: artifactPath("console-publish-rejections.png") });
    // Cancelling sends nothing and publishes nothing.
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(accepted).toEqual([]);
    expect((await api.listSnapshots({})).snapshots).toHaveLength(before);

    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await dialog.getByRole("button", { name: "Publish anyway" }).click();
    await page.getByText(`Version ${before + 1} published`).waitFor({ timeout: 15_000 });
    expect(accepted).toEqual([true]);
    expect((await api.getCluster({ name: "payments-backend" })).lbPolicy).toBe(
      LbPolicy.LEAST_REQUEST,
    );
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
});
