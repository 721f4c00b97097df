import { readFileSync } from "node:fs";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { type Client, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { ClientResourceStatus } from "@switchyard/proto/envoy/admin/v3/config_dump_shared_pb";
import { ClientStatusDiscoveryService } from "@switchyard/proto/envoy/service/status/v3/csds_pb";
import type { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { NodeTypeStatus } from "@switchyard/proto/switchyard/v1/status_pb";
import { WORKER_SEMI_SPACE_MB } from "@switchyard/server";
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
  untilAnswerIs,
} from "@switchyard/server/testing";
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  envoySchemaBytes,
  envoySchemaFile,
  newerFieldsResources,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { createTestClient, type DeltaTestStream, type TestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configApi, pgrep, type ServeProcess, startServe, waitFor } from "./processes.js";

const { CDS } = TYPE;
const METRICS_TOKEN = "scrape-token-0123456789abcdef";

/** RouteConfiguration as the newer API defines it (with RouteMatch.cookies). */
function newerRouteConfiguration() {
  const set = createFileRegistry(fromBinary(FileDescriptorSetSchema, envoySchemaBytes()));
  const desc = set.getMessage("envoy.config.route.v3.RouteConfiguration");
  if (!desc) throw new Error(`${envoySchemaFile()} defines no RouteConfiguration`);
  return desc;
}

/** The pids of the xDS worker processes of `serve`, from the process table. */
function workerPids(serve: ServeProcess): number[] {
  return pgrep(["-P", String(serve.child.pid), "-f", "xds-worker-main"]).map(Number);
}

/** The value of `name` (with its labels as written) in a Prometheus text exposition. */
function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** A process's nice value: field 19 of /proc/<pid>/stat (proc(5)), after the command name. */
function niceness(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

describe("serve --xds-workers 2: xDS served by two worker processes sharing the xDS port", () => {
  let database: TestDatabase;
  let blue: EchoBackend;
  let green: EchoBackend;
  let serve: ServeProcess;
  let api: Client<typeof ConfigService>;
  let status: StatusClient;
  let token: string;
  let grpc: XdsEchoClient | undefined;
  const xds: TestClient[] = [];
  const deltas: DeltaTestStream[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    [blue, green] = await Promise.all([startEchoBackend("blue"), startEchoBackend("green")]);
    serve = await startServe(["--no-console", "--xds-workers", "2"], {
      DATABASE_URL: database.url,
      SWITCHYARD_METRICS_TOKEN: METRICS_TOKEN,
      // A newer Envoy API, loaded at start: the workers must use it too (the last case).
      SWITCHYARD_ENVOY_SCHEMA: envoySchemaFile(),
    });
    token = await adminToken(serve.baseUrl);
    api = configApi(serve, token);
    status = statusClient(serve.baseUrl, [bearer(token)]);
    await api.createCluster(shopCluster("blue", blue));
    await api.createCluster(shopCluster("green", green));
    await api.createRouteConfiguration(shopRoutes("blue"));
    await api.createListener(shopListener());
    await api.publish({ message: "shop on blue" });
  }, 120_000);

  afterAll(async () => {
    grpc?.close();
    for (const client of xds) client.close();
    await serve?.stop();
    await Promise.all([blue?.stop(), green?.stop()]);
    await database?.drop();
  });

  it("starts two workers and says so; nodes on either are listed SYNCED with the worker serving them, and /metrics (behind its token) counts every worker's streams", async () => {
    expect(serve.output()).toContain("2 worker processes");
    expect(workerPids(serve)).toHaveLength(2);

    // A connection each: workers are handed connections, not streams.
    for (let i = 0; i < 4; i++) {
      const client = createTestClient(`http://127.0.0.1:${serve.xdsPort}`);
      xds.push(client);
      const delta = client.openDelta("ads", { node: { id: `delta-${i}`, cluster: "edge" } });
      delta.request(CDS, ["*"]);
      // A worker loads a publish when its NOTIFY arrives: one that has not yet loaded version 1
      // answers with what it has (nothing), then sends the version as a change.
      let first = await delta.next();
      while (first.resources.length === 0) {
        delta.ack(first);
        first = await delta.next();
      }
      expect(first.resources.map((r) => r.name).sort()).toEqual(["blue", "green"]);
      delta.ack(first);
      deltas.push(delta);
    }
    grpc = createXdsEchoClient("shop", { server: `127.0.0.1:${serve.xdsPort}`, nodeId: "grpc" });
    expect(await callUntilReady(grpc)).toBe("blue");

    const listed = await until(
      () => status.listNodes({}),
      (r) =>
        ["delta-0", "delta-1", "delta-2", "delta-3", "grpc"].every(
          (id) =>
            typeStatusOf(
              r.nodes.find((n) => n.id === id),
              CDS,
            ) === NodeTypeStatus.SYNCED,
        ),
      "the nodes were never all listed SYNCED",
    );
    // Connections are handed to the workers in turn: both serve some of them, each under its
    // own replica id.
    const replicas = new Set(listed.nodes.map((n) => n.replica));
    expect(replicas.size).toBe(2);

    // SWITCHYARD_METRICS_TOKEN is set: a scrape without it is refused.
    expect((await fetch(`${serve.baseUrl}/metrics`)).status).toBe(401);
    const metrics = await (
      await fetch(`${serve.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      })
    ).text();
    expect(sample(metrics, 'switchyard_xds_streams{variant="ads-delta"}')).toBe(4);
    expect(sample(metrics, 'switchyard_xds_streams{variant="ads-sotw"}')).toBe(1);
    expect(sample(metrics, "switchyard_snapshot_version")).toBe(1);
  });

  it("Client Status Discovery answers for the nodes of both workers, whichever worker takes the call", async () => {
    // A transport each: a connection each, handed to the workers in turn.
    for (let call = 0; call < 2; call++) {
      const csds = createClient(
        ClientStatusDiscoveryService,
        createGrpcTransport({
          baseUrl: `http://127.0.0.1:${serve.xdsPort}`,
          interceptors: [bearer(token)],
        }),
      );
      const { config } = await csds.fetchClientStatus({});
      expect(config.map((c) => c.node?.id)).toEqual([
        "delta-0",
        "delta-1",
        "delta-2",
        "delta-3",
        "grpc",
      ]);
      for (const node of config) {
        const clusters = node.genericXdsConfigs.filter((r) => r.typeUrl === CDS);
        // The Delta clients hold every cluster; the gRPC client asks for the one its route uses.
        expect(clusters.map((r) => [r.name, r.clientStatus])).toEqual(
          node.node?.id === "grpc"
            ? [["blue", ClientResourceStatus.ACKED]]
            : [
                ["blue", ClientResourceStatus.ACKED],
                ["green", ClientResourceStatus.ACKED],
              ],
        );
      }
    }
  });

  it("runs the workers at a lower CPU priority than the main process, so the API goes first when the cores are busy", () => {
    const main = niceness(serve.child.pid ?? 0);
    const workers = workerPids(serve).map(niceness);
    expect(workers).toHaveLength(2);
    for (const nice of workers) expect(nice).toBe(Math.min(main + 5, 19));
  });

  it("gives the workers a young generation sized for a fan-out (a response lives until its ACK), the main process Node's default", () => {
    const flags = (pid: number) =>
      readFileSync(`/proc/${pid}/cmdline`, "utf8")
        .split("\0")
        .filter((arg) => arg.startsWith("--max-semi-space-size"));
    const workers = workerPids(serve);
    expect(workers).toHaveLength(2);
    for (const pid of workers)
      expect(flags(pid)).toEqual([`--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`]);
    expect(flags(serve.child.pid ?? 0)).toEqual([]);
  });

  it("a publish through the API reaches the nodes of both workers: the real client's RPCs move to green and every Delta stream is sent the change", async () => {
    await api.updateRouteConfiguration(shopRoutes("green"));
    await api.deleteCluster({ name: "blue" });
    await api.publish({ message: "green only" });
    if (grpc === undefined) throw new Error("no gRPC client");
    await untilAnswerIs(grpc, "green");
    for (const delta of deltas) {
      const pushed = await delta.next(10_000);
      expect(pushed.removedResources).toEqual(["blue"]);
      delta.ack(pushed);
    }
  });

  it("a worker killed outright is replaced, and the real client, moved to the other, keeps being answered", async () => {
    const [victim, survivor] = workerPids(serve);
    if (victim === undefined || survivor === undefined) throw new Error("no workers");
    process.kill(victim, "SIGKILL");
    await waitFor(
      () => serve.output().includes("an xDS worker stopped unexpectedly"),
      "the main process to notice the worker's death",
    );
    await waitFor(() => {
      const now = workerPids(serve);
      return now.length === 2 && !now.includes(victim) && now.includes(survivor);
    }, "a replacement worker");
    if (grpc === undefined) throw new Error("no gRPC client");
    await untilAnswerIs(grpc, "green");
  });

  it("workers use the newer Envoy API loaded at start (SWITCHYARD_ENVOY_SCHEMA): a route configuration with its fields reaches a proxy under its xdstp:// name with them", async () => {
    const { schemas } = await api.listEnvoySchemas({});
    expect(schemas.map((s) => [s.name, s.addedBy])).toEqual([
      ["envoy-api", "SWITCHYARD_ENVOY_SCHEMA"],
    ]);
    await api.apply({
      filename: "newer.json",
      content: newerFieldsResources(),
      message: "newer fields",
    });
    const client = createTestClient(`http://127.0.0.1:${serve.xdsPort}`);
    xds.push(client);
    const stream = client.open("ads", { node: { id: "newer", cluster: "edge" } });
    const name = "xdstp://switchyard/envoy.config.route.v3.RouteConfiguration/local_route";
    // A worker loads a publish when its NOTIFY arrives: asked before, it answers with nothing,
    // then sends the route configuration as a change.
    stream.request(TYPE.RDS, [name]);
    let cookies: string[] = [];
    while (cookies.length === 0) {
      const response = await stream.next(15_000);
      stream.ack(response, [name]);
      const [packed] = response.resources;
      if (packed === undefined) continue;
      // Read with the newer definition: this process has not installed it (the server's have).
      const route = fromBinary(newerRouteConfiguration(), packed.value) as unknown as {
        virtualHosts: { routes: { match?: unknown }[] }[];
      };
      const match = route.virtualHosts[0]?.routes[0]?.match as
        | { cookies?: { name: string }[] }
        | undefined;
      cookies = (match?.cookies ?? []).map((c) => c.name);
      expect(cookies).not.toEqual([]);
    }
    expect(cookies).toEqual(["tier"]);
  });

  it("stops on SIGTERM with exit code 0, its workers with it", async () => {
    const pids = workerPids(serve);
    expect(await serve.stop()).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });
});
