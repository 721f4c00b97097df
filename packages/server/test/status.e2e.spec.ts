import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  type Cluster,
  ClusterSchema,
  DiscoveryType,
  LbPolicy,
  ListenerSchema,
  RouteActionKind,
  RouteConfigurationSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type NodeSummary,
  NodeTypeStatus,
  StatusService,
} from "@switchyard/proto/switchyard/v1/status_pb";
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStatusService } from "../src/api/status-service.js";
import { connectStatus, node, nodes, type StatusClient } from "../src/cli/status-commands.js";
import { type HttpServer, startHttpServer } from "../src/http-server.js";
import { type Harness, startHarness } from "./harness.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "..", "bin", "switchyard.js");
const source = (file: string) => readFileSync(path.join(here, "..", "src", file), "utf8");
// Until app.ts registers StatusService, the test serves it itself, on the harness's database (the
// service only reads the database, which the app's StatusWriter fills). The spawned CLI needs both
// registrations (app.ts and cli.ts) and runs once they are in.
const servedByApp = source("app.ts").includes("createStatusService");
const cliWired = servedByApp && source("cli.ts").includes("status-commands");

const CDS = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
const EDS = "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment";
const LDS = "type.googleapis.com/envoy.config.listener.v3.Listener";
const RDS = "type.googleapis.com/envoy.config.route.v3.RouteConfiguration";
const NODE_ID = "status-client";
const NACK_TEXT = /unsupported lb_policy: LEAST_REQUEST/;

function cluster(backend: EchoBackend, lbPolicy = LbPolicy.ROUND_ROBIN): Cluster {
  return create(ClusterSchema, {
    name: "blue",
    discoveryType: DiscoveryType.EDS,
    lbPolicy,
    http2: true,
    connectTimeoutMs: 1000,
    localities: [{ weight: 1, endpoints: [{ address: "127.0.0.1", port: backend.port }] }],
  });
}

/** Polls `read` until `done` holds; the status reaches the database in batches (every 250 ms). */
async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(
        `${what} within ${timeoutMs} ms; last read: ${JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? String(v) : v))}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const statusOf = (summary: NodeSummary | undefined, typeUrl: string) =>
  summary?.types.find((t) => t.typeUrl === typeUrl)?.status;

describe("node status through the StatusService and the CLI, with a real gRPC xDS client", () => {
  let harness: Harness;
  let statusServer: HttpServer | undefined;
  let statusUrl: string;
  let status: StatusClient;
  let backend: EchoBackend;
  let client: XdsEchoClient;

  const findNode = async () => (await status.listNodes({})).nodes.find((n) => n.id === NODE_ID);

  beforeAll(async () => {
    backend = await startEchoBackend("blue");
    harness = await startHarness();
    if (servedByApp) {
      statusUrl = harness.baseUrl;
    } else {
      statusServer = await startHttpServer({
        port: 0,
        host: "127.0.0.1",
        routes: (router) => {
          router.service(StatusService, createStatusService(harness.app.prisma));
        },
        fallback: (_request, response) => void response.writeHead(404).end(),
      });
      statusUrl = `http://127.0.0.1:${statusServer.port}`;
    }
    status = connectStatus(statusUrl);

    const api = harness.api();
    await api.createCluster(cluster(backend));
    await api.createRouteConfiguration(
      create(RouteConfigurationSchema, {
        name: "shop-routes",
        virtualHosts: [
          {
            name: "shop",
            domains: ["*"],
            routes: [{ matchValue: "", actionKind: RouteActionKind.CLUSTER, cluster: "blue" }],
          },
        ],
      }),
    );
    await api.createListener(
      create(ListenerSchema, {
        name: "shop",
        apiListener: true,
        filterChains: [{ rdsRouteConfigName: "shop-routes" }],
      }),
    );
    await api.publish({ message: "shop on blue" });
    client = createXdsEchoClient("shop", {
      server: `127.0.0.1:${harness.app.xdsPort}`,
      nodeId: NODE_ID,
    });
    expect(await callUntilReady(client)).toBe("blue");
  });

  afterAll(async () => {
    client?.close();
    await statusServer?.close();
    await harness?.stop();
    await backend?.stop();
  });

  it("lists the connected node with every type SYNCED", async () => {
    const summary = await until(
      findNode,
      (n) => [CDS, EDS, LDS, RDS].every((t) => statusOf(n, t) === NodeTypeStatus.SYNCED),
      "the node never showed SYNCED for CDS, EDS, LDS and RDS",
    );
    expect(summary?.connected).toBe(true);
    expect(summary?.connectedSince).toBeDefined();
    expect(summary?.disconnectedAt).toBeUndefined();
    expect(summary?.replica).not.toBe("");
    expect(summary?.userAgentName).not.toBe("");
    const cds = summary?.types.find((t) => t.typeUrl === CDS);
    expect(cds?.ackedVersion).toBe(cds?.sentVersion);
    expect(cds?.ackedTime).toBeDefined();

    // Filters.
    const ids = async (request: Parameters<StatusClient["listNodes"]>[0]) =>
      (await status.listNodes(request)).nodes.map((n) => n.id);
    expect(await ids({ idContains: "status-cli" })).toEqual([NODE_ID]);
    expect(await ids({ idContains: "no-such-node" })).toEqual([]);
    expect(await ids({ connectedOnly: true })).toContain(NODE_ID);
    expect(await ids({ status: NodeTypeStatus.SYNCED })).toContain(NODE_ID);
    expect(await ids({ status: NodeTypeStatus.NACKED })).toEqual([]);
  });

  it("shows what the node holds per type, and its connect event", async () => {
    const detail = await status.getNode({ id: NODE_ID });
    expect(detail.summary?.id).toBe(NODE_ID);
    const held = (typeUrl: string) =>
      Object.keys(detail.held.find((h) => h.typeUrl === typeUrl)?.resources ?? {});
    expect(held(CDS)).toEqual(["blue"]);
    expect(held(LDS)).toEqual(["shop"]);
    expect(held(RDS)).toEqual(["shop-routes"]);
    expect(held(EDS)).toEqual(["blue"]);
    expect(detail.events.map((e) => e.kind)).toContain("connect");
  });

  it("answers NotFound, with the id, for an unknown node", async () => {
    const error = await status.getNode({ id: "nobody" }).catch((e: unknown) => e);
    expect(ConnectError.from(error).code).toBe(Code.NotFound);
    expect(ConnectError.from(error).rawMessage).toMatch(/node "nobody" is unknown/);
  });

  it("shows CDS NACKED with the client's error text after a LEAST_REQUEST publish", async () => {
    await harness.api().updateCluster(cluster(backend, LbPolicy.LEAST_REQUEST));
    await harness.api().publish({ message: "blue on LEAST_REQUEST" });
    const summary = await until(
      findNode,
      (n) => statusOf(n, CDS) === NodeTypeStatus.NACKED,
      "the node never showed CDS NACKED",
    );
    const cds = summary?.types.find((t) => t.typeUrl === CDS);
    expect(cds?.nackMessage).toMatch(NACK_TEXT);
    expect(cds?.nackVersion).toBe(cds?.sentVersion);
    expect(cds?.ackedVersion).not.toBe(cds?.nackVersion);
    expect(statusOf(summary, LDS)).toBe(NodeTypeStatus.SYNCED);
    expect(
      (await status.listNodes({ status: NodeTypeStatus.NACKED })).nodes.map((n) => n.id),
    ).toEqual([NODE_ID]);
    const detail = await until(
      () => status.getNode({ id: NODE_ID }),
      (d) => d.events.some((e) => e.kind === "nack"),
      "no nack event",
    );
    const nack = detail.events.find((e) => e.kind === "nack");
    expect(nack?.typeUrl).toBe(CDS);
    expect(nack?.detail).toMatch(NACK_TEXT);
  });

  it("prints the node and the NACK through the nodes / node commands", async () => {
    let text = "";
    const output = {
      out: (chunk: string) => {
        text += chunk;
      },
    };
    await nodes(status, output, {});
    const header = text.split("\n")[0] ?? "";
    expect(header).toMatch(/ID\s+CONNECTED\s+CDS\s+EDS\s+LDS\s+RDS/);
    const line = text.split("\n").find((l) => l.startsWith(NODE_ID)) ?? "";
    expect(line).toMatch(
      /yes, since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+NACKED\s+SYNCED\s+SYNCED\s+SYNCED/,
    );

    text = "";
    await nodes(status, output, { output: "json" });
    const json = JSON.parse(text) as {
      nodes: Array<{ id: string; types: Array<{ status: string }> }>;
    };
    expect(json.nodes.find((n) => n.id === NODE_ID)?.types.map((t) => t.status)).toContain(
      "NODE_TYPE_STATUS_NACKED",
    );

    text = "";
    await node(status, output, NODE_ID);
    expect(text).toMatch(new RegExp(`^node ${NODE_ID}\\n`));
    expect(text).toMatch(/^CDS\s+NACKED/m);
    expect(text).toMatch(/CDS NACK of version \S+ at /);
    expect(text).toMatch(NACK_TEXT);
    expect(text).toMatch(/held resources:\n[\s\S]*CDS \(1\)\n\s+blue/);
    expect(text).toMatch(/recent events:[\s\S]*nack\s+CDS/);
  });

  it.skipIf(!cliWired)("prints the node and the NACK through the spawned CLI", async () => {
    const cli = (...args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [bin, "--server", harness.baseUrl, ...args], {
          env: { ...process.env, SWITCHYARD_SERVER: "" },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk) => {
          stdout += chunk;
        });
        child.stderr.on("data", (chunk) => {
          stderr += chunk;
        });
        child.on("exit", (code) => resolve({ code, stdout, stderr }));
      });
    const list = await cli("nodes");
    expect(list.stderr).toBe("");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${NODE_ID}\\s+yes.*NACKED`));
    const one = await cli("node", NODE_ID);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(NACK_TEXT);
    const missing = await cli("node", "nobody");
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/node "nobody" is unknown/);
  });
});
