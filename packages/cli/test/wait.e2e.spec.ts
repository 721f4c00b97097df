import { Code, ConnectError } from "@connectrpc/connect";
import { LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  NodeConvergenceState,
  TypeConvergenceState,
} from "@switchyard/proto/switchyard/v1/status_pb";
import {
  bearer,
  type Harness,
  GRPC_LB_NACK as NACK_TEXT,
  type StatusClient,
  shopCluster,
  shopListener,
  shopRoutes,
  startHarness,
  statusClient,
  TYPE,
  until,
} from "@switchyard/server/testing";
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const { CDS } = TYPE;
const NODE_ID = "convergence-client";

/** The shop's cluster with the given load-balancing policy and connect timeout. */
const cluster = (backend: EchoBackend, lbPolicy = LbPolicy.ROUND_ROBIN, connectTimeoutMs = 1000) =>
  shopCluster("blue", backend, { lbPolicy, connectTimeoutMs });

describe("convergence of a version and `switchyard wait`, with a real gRPC xDS client", () => {
  let harness: Harness;
  let status: StatusClient;
  let backend: EchoBackend;
  let client: XdsEchoClient;

  const cli = async (...args: string[]) => runCli(harness.baseUrl, await harness.token(), ...args);

  // Some versions are ones clients NACK (what `wait` must report): validation predicts it.
  const publish = async (message: string) =>
    Number((await harness.api().publish({ message, acceptWarnings: true })).snapshot?.version ?? 0);

  beforeAll(async () => {
    backend = await startEchoBackend("blue");
    harness = await startHarness();
    status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    const api = harness.api();
    await api.createCluster(cluster(backend));
    await api.createRouteConfiguration(shopRoutes("blue"));
    await api.createListener(shopListener());
  });

  afterAll(async () => {
    client?.close();
    await harness?.stop();
    await backend?.stop();
  });

  it("waits for a published version to be ACKed by the connected node (exit 0)", async () => {
    const version = await publish("shop on blue");
    expect(version).toBe(1);
    client = createXdsEchoClient("shop", {
      server: `127.0.0.1:${harness.app.xdsPort}`,
      nodeId: NODE_ID,
    });
    expect(await callUntilReady(client)).toBe("blue");
    // The node must be persisted (and so targeted) before `wait` is meaningful.
    await until(
      () => status.getConvergence({ version: 1n }),
      (c) => (c.summary?.targeted ?? 0) >= 1,
      "the node was never targeted",
    );
    const result = await cli("wait", "--version", "1", "--timeout", "20s");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    // The node connected after the publish: its ACK says when it came, not how fast version 1
    // spread, so it is named apart rather than counted in the p99 (issue 46).
    expect(result.stdout).toBe(
      "version 1: 1/1 nodes in sync, p99 - (and 1 node that connected later, not in the p99)\n",
    );

    const convergence = await status.getConvergence({ version: 1n });
    expect(convergence.summary).toMatchObject({ targeted: 1, acked: 1, nacked: 0, pending: 0 });
    expect(convergence.summary?.p99Ms).toBeUndefined();
    expect(convergence.summary?.connectedLater).toBe(1);
    const node = convergence.nodes.find((n) => n.nodeId === NODE_ID);
    expect(node?.state).toBe(NodeConvergenceState.ACKED);
    expect(node?.group).not.toBe("");
    expect(node?.types.length).toBe(4);
    expect(node?.types.every((t) => t.state === TypeConvergenceState.IN_SYNC)).toBe(true);
  });

  it("answers NotFound for a version that was never published", async () => {
    const error = await status.getConvergence({ version: 99n }).catch((e: unknown) => e);
    expect(ConnectError.from(error).code).toBe(Code.NotFound);
    const result = await cli("wait", "--version", "99");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/version 99 does not exist/);
  });

  it("fails with the NACK text when the node rejects the version", async () => {
    await harness.api().updateCluster(cluster(backend, LbPolicy.LEAST_REQUEST));
    const version = await publish("blue on LEAST_REQUEST");
    const result = await cli("wait", "--version", String(version), "--timeout", "20s");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(NACK_TEXT);
    expect(result.stderr).toMatch(new RegExp(`${NODE_ID}: CDS NACK`));

    const convergence = await status.getConvergence({ version: BigInt(version) });
    expect(convergence.summary).toMatchObject({ targeted: 1, acked: 0, nacked: 1 });
    const node = convergence.nodes.find((n) => n.nodeId === NODE_ID);
    expect(node?.nackTypeUrl).toBe(CDS);
    expect(node?.nackMessage).toMatch(NACK_TEXT);
  });

  it("times out listing the laggard once a later version superseded the one waited for", async () => {
    // Not version 1's cluster again: the node must be sent (and ACK) a new one.
    await harness.api().updateCluster(cluster(backend, LbPolicy.ROUND_ROBIN, 2000));
    const fixed = await publish("blue back on ROUND_ROBIN");
    const ok = await cli("wait", "--version", String(fixed), "--timeout", "20s");
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    // The node ACKed the fix after its NACK of the previous version: no longer NACKED, never
    // in sync with it.
    const late = await cli("wait", "--version", String(fixed - 1), "--timeout", "600ms");
    expect(late.code).not.toBe(0);
    expect(late.stderr).toMatch(/0\/1 nodes in sync after 600ms/);
    expect(late.stderr).toMatch(new RegExp(`${NODE_ID} \\(group \\S+\\): CDS behind`));
  });
});
