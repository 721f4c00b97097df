/**
 * Traffic in the rollout: a route moved to a cluster whose backend fails half its RPCs (its load
 * reporting turned on by `switchyard report-load`) is ACKed by the real @grpc/grpc-js-xds client,
 * and shows as errors after the publish, from the load the client reports (LRS): in
 * StatusService.GetRolloutTraffic, in `switchyard wait --watch --max-error-ratio` (which fails
 * naming the cluster) and on the Changes page's rollout, in real Chromium. `switchyard load`
 * prints the load before.
 */
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { LoadBreakdown, TouchReason } from "@switchyard/proto/switchyard/v1/status_pb";
import {
  bearer,
  type ConsoleWorld,
  loadReportingCluster,
  type StatusClient,
  shopListener,
  shopRoutes,
  startConsoleWorld,
  statusClient,
  until,
} from "@switchyard/server/testing";
import {
  artifactPath,
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

describe("traffic of the clusters a version touched, before and after its publish", () => {
  let world: ConsoleWorld;
  let status: StatusClient;
  let blue: EchoBackend;
  let red: EchoBackend;
  let client: XdsEchoClient;

  beforeAll(async () => {
    [blue, red] = await Promise.all([
      startEchoBackend("blue"),
      // Every other RPC fails with UNAVAILABLE.
      startEchoBackend("red", 0, { unavailableEvery: 2 }),
    ]);
    world = await startConsoleWorld({ app: { loadReportIntervalMs: 1_000 } });
    const { harness } = world;
    status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    const api = harness.api();
    await api.createCluster(loadReportingCluster("blue", [blue]));
    // red reports load once the CLI turns it on, with the route's move.
    await api.createCluster({ ...loadReportingCluster("red", [red]), reportLoad: false });
    await api.createRouteConfiguration(shopRoutes("blue"));
    await api.createListener(shopListener());
    await api.publish({ message: "the shop on blue" });
    client = createXdsEchoClient("shop", {
      server: `127.0.0.1:${harness.app.xdsPort}`,
      nodeId: "rollout-traffic-client",
    });
    await callUntilReady(client);
  });

  afterAll(async () => {
    client?.close();
    await world?.chromium.close();
    await world?.harness.stop();
    await Promise.all([blue?.stop(), red?.stop()]);
  });

  it("a route moved to a failing cluster shows as errors after the publish: in the API, in `wait --watch --max-error-ratio` (which fails naming it) and on the Changes page", async () => {
    const { harness, page, problems } = world;
    // Load is kept per 10 s bucket of report arrival; a bucket the publish falls in counts on
    // neither side: blue's traffic goes on until one of its buckets has ended. The calls get a
    // generous deadline: one the client gives up on counts as an error in its load report.
    await until(
      async () => {
        for (let i = 0; i < 10; i++) await client.call(15_000);
        const load = await status.getLoad({ cluster: "blue", by: LoadBreakdown.CLUSTER });
        return load.series[0]?.points ?? [];
      },
      (points) =>
        points.some((p) => p.start && timestampMs(p.start) + p.widthSeconds * 1000 <= Date.now()),
      "blue's load never filled a bucket",
      30_000,
    );
    const cli = async (...args: string[]) =>
      runCli(harness.baseUrl, await harness.token(), ...args);
    const blueLoad = await cli("load", "--cluster", "blue", "--window", "1m");
    // blue's backend fails nothing, but a call of the client's first moments may still have (a
    // slow host, a subchannel still connecting): blue's ratio is asserted below the allowed one.
    const blueRow = blueLoad.stdout.match(
      /^CLUSTER\s+REQUESTS\s+RATE\s+ERRORS\s+ERROR RATIO\s+DROPPED\s*\nblue\s+([1-9]\d*)\s+\d+\.\d\d\/s\s+(\d+)\s+(\d+\.\d)%\s+0\s*\n$/,
    );
    expect(blueRow, blueLoad.stdout).not.toBeNull();
    const [, blueRequests, blueErrors, blueRatio] = blueRow ?? [];
    expect(blueRatio).toBe(((100 * Number(blueErrors)) / Number(blueRequests)).toFixed(1));
    expect(Number(blueRatio)).toBeLessThan(5);
    expect((await cli("report-load", "red", "on")).stdout).toBe(
      "cluster red reports load in the draft; publish to apply it (switchyard publish -m MESSAGE)\n",
    );
    await harness.api().updateRouteConfiguration(shopRoutes("red"));

    await page.goto(`${harness.baseUrl}/changes`);
    await page.getByText("Valid: no errors, no warnings.").waitFor({ timeout: 15_000 });
    await page.getByLabel("Message").fill("Move the shop to red");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Version 2 published").waitFor({ timeout: 15_000 });

    // Watched from the CLI while the client's RPCs go on, until the CLI gives its verdict.
    let watching = true;
    const watch = cli("wait", "--watch", "--max-error-ratio", "20%", "--timeout", "60s").finally(
      () => {
        watching = false;
      },
    );
    while (watching) await client.call().catch(() => undefined);
    const watched = await watch;
    expect(watched.code).toBe(1);
    expect(watched.stdout).toMatch(/version 2: 1\/1 nodes in sync/);
    expect(watched.stdout).toMatch(/errors of the clusters version 2 touched/);
    expect(watched.stdout).toMatch(
      /blue\s+routes changed \(route_configuration\/shop-routes\)\s+\d\.\d% of \d+/,
    );
    expect(watched.stderr).toMatch(
      /version 2: 1 touched cluster\(s\) above the 20\.0% error ratio allowed:\n\s+red: \d+\.\d% of \d+ after the publish, no requests before/,
    );
    expect(red.served).toBeGreaterThan(0);

    const traffic = await status.getRolloutTraffic({ version: 2n });
    expect(traffic.clusters.map((c) => [c.cluster, c.reasons, c.touchedBy])).toEqual([
      ["blue", [TouchReason.ROUTE_CHANGED], ["route_configuration/shop-routes"]],
      [
        "red",
        [TouchReason.CLUSTER_CHANGED, TouchReason.ROUTE_CHANGED],
        ["route_configuration/shop-routes"],
      ],
    ]);
    const [blueTraffic, redTraffic] = traffic.clusters;
    expect(Number(blueTraffic?.before?.successful)).toBeGreaterThan(0);
    expect(blueTraffic?.before?.errorRatio).toBeLessThan(0.05);
    expect(redTraffic?.before?.errorRatio).toBeUndefined();
    // The backend fails every other RPC it gets.
    expect(redTraffic?.after?.errorRatio).toBeGreaterThan(0.3);
    expect(redTraffic?.after?.errorRatio).toBeLessThan(0.7);

    const panel = page.getByRole("region", { name: "Rollout of version 2" });
    await panel
      .getByRole("alert")
      .filter({ hasText: "More errors since the publish: red" })
      .waitFor({ timeout: 15_000 });
    const redRow = panel
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name: "red", exact: true }) });
    expect(await redRow.getByRole("cell").allInnerTexts()).toEqual([
      "Cluster changed, Routes changed (route_configuration/shop-routes)",
      "No requests",
      expect.stringMatching(/^\d+% of \d+$/),
    ]);
    await panel.screenshot({ path: artifactPath("console-rollout-traffic.png") });
    expect(problems.splice(0)).toEqual([]);
  });

  it("refuses a window beyond an hour, and a version that was never published, saying which", async () => {
    const refused = (call: Promise<unknown>) =>
      call.then(
        () => undefined,
        (error: unknown) => ConnectError.from(error),
      );
    const wide = await refused(status.getRolloutTraffic({ version: 1n, windowSeconds: 3_601 }));
    expect(wide?.code).toBe(Code.InvalidArgument);
    expect(wide?.rawMessage).toBe("window_seconds: 3601 is more than the 3600 s a side may span");
    const never = await refused(status.getRolloutTraffic({ version: 99n }));
    expect(never?.code).toBe(Code.NotFound);
    expect(never?.rawMessage).toMatch(/version 99 does not exist/);
  });
});
