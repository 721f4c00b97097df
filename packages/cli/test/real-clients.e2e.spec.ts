/**
 * What the two real proxyless gRPC clients (@grpc/grpc-js-xds and gRPC C-core) do with what
 * Switchyard sends, RPCs to real backends: endpoints moving, fault injection (gRFC A33), retries
 * (gRFC A44), and a control-plane restart under load.
 */
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import type { Switchyard } from "@switchyard/server";
import {
  adminToken,
  bearer,
  configClient,
  type Harness,
  REAL_CLIENTS,
  shopCluster,
  shopListener,
  shopRoutes,
  startAppOn,
  startHarness,
  until,
  untilAnswerIs,
} from "@switchyard/server/testing";
import {
  callUntilReady,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./processes.js";
import { runCli } from "./run-cli.js";

/** The shop's listener with an HTTP fault filter aborting every RPC with gRPC status `status`. */
const listenerAborting = (status: number) =>
  shopListener({
    httpFilters: [
      {
        name: "envoy.filters.http.fault",
        typedConfig: {
          "@type": "type.googleapis.com/envoy.extensions.filters.http.fault.v3.HTTPFault",
          abort: { grpcStatus: status, percentage: { numerator: 100, denominator: "HUNDRED" } },
        },
      },
    ],
  });

/** The gRPC status an RPC failed with (both clients' errors carry it as `code`). */
const statusOf = (call: Promise<string>) =>
  call.then(
    () => 0,
    (error: unknown) => (error as { code?: number }).code ?? -1,
  );

describe.each(REAL_CLIENTS)("a real client (%s) follows what is published", (_name, real) => {
  let harness: Harness;
  let blue: EchoBackend;
  let green: EchoBackend;
  let flaky: EchoBackend;
  let client: XdsEchoClient;
  const publish = (message: string) => harness.api().publish({ message });

  beforeAll(async () => {
    [blue, green, flaky] = await Promise.all([
      startEchoBackend("blue"),
      startEchoBackend("green"),
      startEchoBackend("flaky", 0, { unavailableEvery: 2 }),
    ]);
    harness = await startHarness();
    const api = harness.api();
    await api.createCluster(shopCluster("blue", blue));
    await api.createCluster(shopCluster("flaky", flaky));
    await api.createRouteConfiguration(shopRoutes("blue"));
    await api.createListener(shopListener());
    await publish("shop on blue");
    client = await real.connect("shop", {
      server: `127.0.0.1:${harness.app.xdsPort}`,
      nodeId: "real-client",
    });
    expect(await callUntilReady(client)).toBe("blue");
  });

  afterAll(async () => {
    client?.close();
    await harness?.stop();
    await Promise.all([blue?.stop(), green?.stop(), flaky?.stop()]);
  });

  it("sends RPCs to the backends a deploy script registers with `switchyard endpoints`, with no route change", async () => {
    const token = await harness.token();
    const endpoints = (...args: string[]) => runCli(harness.baseUrl, token, "endpoints", ...args);
    const moved = await endpoints("set", "blue", `127.0.0.1:${green.port}`);
    expect(moved.stderr).toBe("");
    expect(moved.stdout).toMatch(/0 added, 1 modified, 0 removed\n {2}modified cluster blue\n/);
    await untilAnswerIs(client, "green");

    // Blue's backend registered beside green, then green deregistered: RPCs end on blue alone
    // (round robin over both would alternate).
    expect((await endpoints("add", "blue", `127.0.0.1:${blue.port}`)).stderr).toBe("");
    expect((await endpoints("remove", "blue", `127.0.0.1:${green.port}`)).stderr).toBe("");
    await until(
      async () => Promise.all(Array.from({ length: 6 }, () => client.call())),
      (answers) => answers.every((answer) => answer === "blue"),
      "every RPC answered by blue",
    );
  });

  it("a cluster deleted after its route moved away is no longer held: `switchyard wait` succeeds for the versions after", async () => {
    const api = harness.api();
    await api.createCluster(shopCluster("temporary", green));
    await api.updateRouteConfiguration(shopRoutes("temporary"));
    await publish("the shop on a temporary cluster");
    await untilAnswerIs(client, "green");
    await api.updateRouteConfiguration(shopRoutes("blue"));
    await api.deleteCluster({ name: "temporary" });
    const dropped = Number((await publish("no more temporary cluster")).snapshot?.version);
    await untilAnswerIs(client, "blue");

    const wait = async (version: number) =>
      runCli(
        harness.baseUrl,
        await harness.token(),
        "wait",
        "--version",
        String(version),
        "--timeout",
        "15s",
      );
    const first = await wait(dropped);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    await api.updateCluster(shopCluster("blue", blue, { connectTimeoutMs: 1500 }));
    const later = Number((await publish("a later change")).snapshot?.version);
    const second = await wait(later);
    expect(second.stdout).toMatch(new RegExp(`^version ${later}: 1/1 nodes in sync`));
    expect(second.code).toBe(0);
  });

  it("fails every RPC with the status a fault filter aborts with, and serves again once it is lifted", async () => {
    const ABORTED = 10;
    await harness.api().updateListener(listenerAborting(ABORTED));
    await publish("abort every RPC");
    // A client connecting now runs the filter.
    const fresh = await real.connect("shop", {
      server: `127.0.0.1:${harness.app.xdsPort}`,
      nodeId: "real-client-after-the-fault",
    });
    try {
      await until(
        () => statusOf(fresh.call()),
        (status) => status === ABORTED,
        "an RPC aborted by the fault filter",
      );
      for (let i = 0; i < 10; i++) expect(await statusOf(fresh.call())).toBe(ABORTED);
      // So does the client that was connected when it was published, if it applies HTTP filter
      // changes to an open channel (see RealClient.appliesFilterChanges).
      if (real.appliesFilterChanges)
        await until(
          () => statusOf(client.call()),
          (status) => status === ABORTED,
          "the connected client's RPCs aborted",
        );

      await harness.api().updateListener(shopListener());
      await publish("no fault");
      await untilAnswerIs(real.appliesFilterChanges ? fresh : client, "blue");
      await untilAnswerIs(client, "blue");
    } finally {
      fresh.close();
    }
  });

  it("retries on UNAVAILABLE as the route says: a backend refusing every other call then fails none", async () => {
    await harness.api().updateRouteConfiguration(shopRoutes("flaky"));
    await publish("the shop on a flaky backend, no retries");
    await untilAnswerIs(client, "flaky");
    const failures = async (calls: number) => {
      let failed = 0;
      for (let i = 0; i < calls; i++) if ((await statusOf(client.call())) !== 0) failed += 1;
      return failed;
    };
    expect(await failures(20)).toBeGreaterThanOrEqual(5);

    await harness
      .api()
      .updateRouteConfiguration(
        shopRoutes("flaky", { retryPolicy: { retryOn: "unavailable", numRetries: 3 } }),
      );
    await publish("retry on unavailable");
    await until(
      () => failures(10),
      (failed) => failed === 0,
      "a batch of RPCs with no failure",
    );
    expect(await failures(40)).toBe(0);

    await harness.api().updateRouteConfiguration(shopRoutes("blue"));
    await publish("the shop back on blue");
    await untilAnswerIs(client, "blue");
  });
});

describe.each(REAL_CLIENTS)("a control-plane restart under load (%s)", (_name, real) => {
  let database: TestDatabase;
  let blue: EchoBackend;
  let green: EchoBackend;
  let app: Switchyard | undefined;
  let client: XdsEchoClient | undefined;

  beforeAll(async () => {
    [blue, green] = await Promise.all([startEchoBackend("blue"), startEchoBackend("green")]);
    database = await createTestDatabase();
  });
  afterAll(async () => {
    client?.close();
    await app?.stop();
    await database?.drop();
    await Promise.all([blue?.stop(), green?.stop()]);
  });

  it("loses no RPC while Switchyard restarts, and the client follows what is published after", async () => {
    const xdsPort = await freePort();
    const start = async () => {
      const started = await startAppOn(database.url, { app: { xdsPort } });
      const api = configClient(`http://127.0.0.1:${started.httpPort}`, [
        bearer(await adminToken(`http://127.0.0.1:${started.httpPort}`)),
      ]);
      return { started, api };
    };
    const first = await start();
    app = first.started;
    await first.api.createCluster(shopCluster("blue", blue));
    await first.api.createCluster(shopCluster("green", green));
    await first.api.createRouteConfiguration(shopRoutes("blue"));
    await first.api.createListener(shopListener());
    await first.api.publish({ message: "shop on blue" });
    const connected = await real.connect("shop", {
      server: `127.0.0.1:${xdsPort}`,
      nodeId: "restart-client",
    });
    client = connected;
    expect(await callUntilReady(connected)).toBe("blue");

    let flowing = true;
    let sent = 0;
    const failures: unknown[] = [];
    const traffic = (async () => {
      while (flowing) {
        sent += 1;
        await connected.call(5000).catch((error: unknown) => failures.push(error));
      }
    })();
    await app.stop();
    app = undefined;
    // The client runs on what it holds while no control plane answers.
    const during = sent;
    await until(
      async () => sent,
      (n) => n > during + 20,
      "RPCs while Switchyard is down",
    );
    const second = await start();
    app = second.started;
    await second.api.updateRouteConfiguration(shopRoutes("green"));
    await second.api.publish({ message: "shop on green, after the restart" });
    await untilAnswerIs(connected, "green");
    flowing = false;
    await traffic;

    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(50);
  });
});
