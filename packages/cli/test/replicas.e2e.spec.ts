import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { NodeTypeStatus, type WatchNodesResponse } from "@switchyard/proto/switchyard/v1/status_pb";
import {
  adminToken,
  bearer,
  type StatusClient,
  shopCluster,
  shopListener,
  shopRoutes,
  statusClient,
  TYPE,
  typeStatusOf,
  until,
} from "@switchyard/server/testing";
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { createTestClient, type TestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServeProcess, startServe } from "./processes.js";
import { runCli } from "./run-cli.js";

const { CDS, EDS, LDS, RDS } = TYPE;

describe("two server processes on one database", () => {
  let database: TestDatabase;
  let backend: EchoBackend;
  let a: ServeProcess;
  let b: ServeProcess;
  let statusA: StatusClient;
  let statusB: StatusClient;
  let token: string;
  let grpcOnA: XdsEchoClient | undefined;
  let deltaOnB: TestClient | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    backend = await startEchoBackend("blue");
    const env = { DATABASE_URL: database.url, SWITCHYARD_STALE_AFTER: "2s" };
    a = await startServe(["--no-console"], env);
    token = await adminToken(a.baseUrl);
    // Published before B starts, so both serve it (B loads the latest version at startup).
    const api = createClient(
      ConfigService,
      createConnectTransport({
        baseUrl: a.baseUrl,
        httpVersion: "1.1",
        interceptors: [bearer(token)],
      }),
    );
    await api.createCluster(shopCluster("blue", backend));
    await api.createRouteConfiguration(shopRoutes("blue"));
    await api.createListener(shopListener());
    await api.publish({ message: "shop on blue" });
    b = await startServe(["--no-console"], env);
    // B shares A's database: the same accounts and tokens work on both replicas.
    statusA = statusClient(a.baseUrl, [bearer(token)]);
    statusB = statusClient(b.baseUrl, [bearer(token)]);
  }, 120_000);

  afterAll(async () => {
    grpcOnA?.close();
    deltaOnB?.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await backend?.stop();
    await database?.drop();
  });

  it("each replica lists the nodes connected to the other, SYNCED, with the replica that serves them", async () => {
    grpcOnA = createXdsEchoClient("shop", {
      server: `127.0.0.1:${a.xdsPort}`,
      nodeId: "grpc-on-a",
    });
    expect(await callUntilReady(grpcOnA)).toBe("blue");

    deltaOnB = createTestClient(`http://127.0.0.1:${b.xdsPort}`);
    const delta = deltaOnB.openDelta("ads", { node: { id: "delta-on-b", cluster: "edge" } });
    delta.request(CDS, ["*"]);
    delta.ack(await delta.next());

    const onB = await until(
      () => statusB.listNodes({}),
      (r) =>
        [CDS, EDS, LDS, RDS].every(
          (t) =>
            typeStatusOf(
              r.nodes.find((n) => n.id === "grpc-on-a"),
              t,
            ) === NodeTypeStatus.SYNCED,
        ),
      "replica B never listed A's gRPC client SYNCED",
    );
    const onA = await until(
      () => statusA.listNodes({}),
      (r) =>
        typeStatusOf(
          r.nodes.find((n) => n.id === "delta-on-b"),
          CDS,
        ) === NodeTypeStatus.SYNCED,
      "replica A never listed B's Delta client SYNCED",
    );
    const grpcNode = onB.nodes.find((n) => n.id === "grpc-on-a");
    const deltaNode = onA.nodes.find((n) => n.id === "delta-on-b");
    expect(grpcNode?.variant).toBe("ads-sotw");
    expect(deltaNode?.variant).toBe("ads-delta");
    // Each is served by a different replica, and each replica says so.
    expect(grpcNode?.replica).not.toBe("");
    expect(deltaNode?.replica).not.toBe("");
    expect(grpcNode?.replica).not.toBe(deltaNode?.replica);

    const table = await runCli(b.baseUrl, token, "nodes");
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^grpc-on-a\s+yes.*SYNCED\s+SYNCED\s+SYNCED\s+SYNCED/m);
    expect(table.stdout).toMatch(/^delta-on-b\s+yes.*SYNCED/m);
  });

  it("a watch on one replica is pushed a node's changes made through the other", async () => {
    const abort = new AbortController();
    const messages: WatchNodesResponse[] = [];
    const reading = (async () => {
      try {
        for await (const m of statusB.watchNodes({ idContains: "-on-a" }, { signal: abort.signal }))
          messages.push(m);
      } catch {
        // Cancelled below.
      }
    })();
    await until(
      async () => messages,
      (m) => m.length > 0,
      "the watch never started",
    );
    grpcOnA?.close();
    grpcOnA = undefined;
    await until(
      async () => messages,
      (m) => m.some((r) => r.nodes.some((n) => n.id === "grpc-on-a" && !n.connected)),
      "replica B's watch never showed A's client disconnected",
    );
    abort.abort();
    await reading;
  });

  it("a publish through one replica reaches the proxies of the other at once (NOTIFY)", async () => {
    const delta = deltaOnB?.openDelta("ads", { node: { id: "delta-2-on-b", cluster: "edge" } });
    if (delta === undefined) throw new Error("no Delta client");
    delta.request(CDS, ["*"]);
    const first = await delta.next();
    expect(first.resources.map((r) => r.name)).toEqual(["blue"]);
    delta.ack(first);

    const api = createClient(
      ConfigService,
      createConnectTransport({
        baseUrl: a.baseUrl,
        httpVersion: "1.1",
        interceptors: [bearer(token)],
      }),
    );
    await api.createCluster(shopCluster("green", backend));
    const publishedAt = Date.now();
    await api.publish({ message: "green, published on A" });
    const pushed = await delta.next(5_000);
    const elapsed = Date.now() - publishedAt;
    expect(pushed.resources.map((r) => r.name)).toEqual(["green"]);
    // Not a speed assertion (that is for the benchmark): well under the 5 s safety-net poll,
    // so the push came from the notification.
    expect(elapsed).toBeLessThan(3_000);
    delta.ack(pushed);
  });

  it("a replica that stops shows its nodes disconnected to the other", async () => {
    expect(await b.stop()).toBe(0);
    const onA = await until(
      () => statusA.listNodes({ idContains: "delta-on-b" }),
      (r) => r.nodes[0]?.connected === false,
      "the Delta client of the stopped replica never showed disconnected",
    );
    expect(onA.nodes[0]?.disconnectedAt).toBeDefined();
  });
});
