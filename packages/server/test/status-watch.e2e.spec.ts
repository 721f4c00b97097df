import { Code, ConnectError } from "@connectrpc/connect";
import { LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type NodeDetail,
  type NodeSummary,
  NodeTypeStatus,
  type WatchNodesResponse,
} from "@switchyard/proto/switchyard/v1/status_pb";
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { createTestClient, type TestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, type StatusClient, statusClient } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { GRPC_LB_NACK, openShop, shopCluster, TYPE, typeStatusOf } from "../src/testing/shop.js";

const { CDS, EDS, LDS, RDS } = TYPE;
const NODE_ID = "watched-client";
const STALE_AFTER_MS = 1_000;

/**
 * Reads a server stream in the background; `next(predicate)` waits for the first message (from
 * the start of the stream) matching it, failing after `timeoutMs` with what did arrive.
 */
function watch<T>(stream: (signal: AbortSignal) => AsyncIterable<T>) {
  const abort = new AbortController();
  const messages: T[] = [];
  let ended: unknown;
  let finished = false;
  const done = (async () => {
    try {
      for await (const message of stream(abort.signal)) messages.push(message);
    } catch (error) {
      ended = error;
    } finally {
      finished = true;
    }
  })();
  return {
    messages,
    async next(predicate: (message: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find(predicate);
        if (found !== undefined) return found;
        if (finished) throw new Error(`${what}: the stream ended (${String(ended)})`);
        if (Date.now() > deadline)
          throw new Error(`${what} within ${timeoutMs} ms; ${messages.length} messages arrived`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    get ended() {
      return finished ? { error: ended } : undefined;
    },
    async cancel() {
      abort.abort();
      await done;
    },
  };
}

/** The node's latest summary as the WatchNodes messages so far describe it. */
function latest(messages: readonly WatchNodesResponse[], id: string): NodeSummary | undefined {
  let summary: NodeSummary | undefined;
  for (const message of messages) {
    if (message.reset) summary = undefined;
    summary = message.nodes.find((n) => n.id === id) ?? summary;
    if (message.removedIds.includes(id)) summary = undefined;
  }
  return summary;
}

describe("live node status over server-streaming Watch calls (Connect protocol, as a browser uses it)", () => {
  let harness: Harness;
  let status: StatusClient;
  let backend: EchoBackend;
  let client: XdsEchoClient | undefined;
  let raw: TestClient | undefined;

  beforeAll(async () => {
    backend = await startEchoBackend("blue");
    harness = await startHarness({ app: { staleAfterMs: STALE_AFTER_MS } });
    status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
  });

  afterAll(async () => {
    client?.close();
    raw?.close();
    await harness?.stop();
    await backend?.stop();
  });

  it("WatchNodes starts with the current list, then pushes a proxy connecting and reaching SYNCED", async () => {
    const nodes = watch((signal) => status.watchNodes({}, { signal }));
    const first = await nodes.next(() => true, "the first message");
    expect(first.reset).toBe(true);
    expect(first.nodes).toEqual([]);

    client = await openShop(harness, backend, NODE_ID);
    // The predicate looks at the state all messages so far describe.
    await nodes.next(
      () =>
        [CDS, EDS, LDS, RDS].every(
          (t) => typeStatusOf(latest(nodes.messages, NODE_ID), t) === NodeTypeStatus.SYNCED,
        ),
      "the node never reached SYNCED on all four types",
    );
    // Only the first message is a reset; later ones carry changes only.
    expect(nodes.messages.slice(1).every((m) => !m.reset)).toBe(true);
    expect(latest(nodes.messages, NODE_ID)?.connected).toBe(true);
    await nodes.cancel();
  });

  it("WatchNode pushes the NACK text when the proxy rejects a publish, then its recovery", async () => {
    const node = watch((signal) => status.watchNode({ id: NODE_ID }, { signal }));
    await node.next((d) => typeStatusOf(d.summary, CDS) === NodeTypeStatus.SYNCED, "SYNCED first");

    const api = harness.api();
    await api.updateCluster(shopCluster("blue", backend, { lbPolicy: LbPolicy.LEAST_REQUEST }));
    await api.publish({ message: "blue on LEAST_REQUEST", acceptWarnings: true });
    const nacked = await node.next(
      (d) => typeStatusOf(d.summary, CDS) === NodeTypeStatus.NACKED,
      "CDS never NACKED",
    );
    expect(nacked.summary?.types.find((t) => t.typeUrl === CDS)?.nackMessage).toMatch(GRPC_LB_NACK);
    expect(nacked.events.find((e) => e.kind === "nack")?.detail).toMatch(GRPC_LB_NACK);

    await api.updateCluster(shopCluster("blue", backend));
    await api.publish({ message: "blue back on ROUND_ROBIN" });
    const recovered: NodeDetail = await node.next(
      (d) => d.events.some((e) => e.kind === "recovered"),
      "no recovered event",
    );
    expect(typeStatusOf(recovered.summary, CDS)).toBe(NodeTypeStatus.SYNCED);
    await node.cancel();
  });

  it("WatchConvergence on version 0 follows each new publish: ACKED with a time, or NACKED with the text", async () => {
    const convergence = watch((signal) => status.watchConvergence({ version: 0n }, { signal }));
    const settled = await convergence.next(
      (c) => c.summary?.acked === 1,
      "the latest version never showed the node ACKED",
    );
    const api = harness.api();
    await api.updateCluster(shopCluster("blue", backend, { lbPolicy: LbPolicy.LEAST_REQUEST }));
    const version = (await api.publish({ message: "rejected again", acceptWarnings: true }))
      .snapshot?.version;
    const rejected = await convergence.next(
      (c) => c.version === version && c.summary?.nacked === 1,
      "the new version never showed the NACK",
    );
    expect(rejected.version).toBeGreaterThan(settled.version);
    expect(rejected.nodes[0]?.nackMessage).toMatch(GRPC_LB_NACK);
    // An overview asks for the summary only: the NACKed nodes still come with their text.
    const summary = await status.getConvergence({ version: rejected.version, summaryOnly: true });
    expect(summary.summary?.nacked).toBe(1);
    expect(summary.nodes.map((n) => n.nackMessage)).toEqual([rejected.nodes[0]?.nackMessage]);

    // A real change for the node (not a return to what it holds), so it converges after a delay.
    await api.updateCluster(shopCluster("blue", backend, { connectTimeoutMs: 2_000 }));
    const fixed = await api.publish({ message: "fixed, with a longer connect timeout" });
    const acked = await convergence.next(
      (c) => c.version === fixed.snapshot?.version && c.summary?.acked === 1,
      "the fix never converged",
    );
    expect(acked.summary?.p99Ms).toBeDefined();
    expect(acked.summary?.targeted).toBe(1);
    expect(
      (await status.getConvergence({ version: acked.version, summaryOnly: true })).nodes,
    ).toEqual([]);
    await convergence.cancel();

    // The same convergences, as Prometheus sees them.
    const metrics = await (await fetch(`${harness.baseUrl}/metrics`)).text();
    const count = Number(/^switchyard_convergence_seconds_count (\d+)/m.exec(metrics)?.[1]);
    expect(count).toBeGreaterThanOrEqual(1);
  });

  it("WatchFleet counts nodes by health and pushes a NACK, then its recovery, as they happen", async () => {
    const fleet = watch((signal) => status.watchFleet({}, { signal }));
    const first = await fleet.next((f) => f.counts?.synced === 1, "the node never counted SYNCED");
    expect(first.counts?.connected).toBe(1);

    const api = harness.api();
    await api.updateCluster(shopCluster("blue", backend, { lbPolicy: LbPolicy.LEAST_REQUEST }));
    await api.publish({ message: "rejected for the fleet view", acceptWarnings: true });
    const nacked = await fleet.next((f) => f.counts?.nacked === 1, "the NACK was never counted");
    expect(nacked.recentNacks[0]?.current).toBe(true);
    expect(nacked.recentNacks[0]?.message).toMatch(GRPC_LB_NACK);

    await api.updateCluster(shopCluster("blue", backend, { connectTimeoutMs: 3_000 }));
    await api.publish({ message: "fixed for the fleet view" });
    const recovered = await fleet.next(
      // After the NACK: the first message could match too (a NACK recovered in an earlier case).
      (f) =>
        fleet.messages.indexOf(f) > fleet.messages.indexOf(nacked) &&
        f.counts?.synced === 1 &&
        f.recentNacks[0]?.current === false,
      "the recovery was never pushed",
    );
    expect(recovered.counts?.nacked).toBe(0);
    await fleet.cancel();
  });

  it("a paged WatchNodes sends one page whole with the total and the counts by health, and again when a node changes health", async () => {
    const page = watch((signal) =>
      status.watchNodes({ pageSize: 1, health: ["synced"], sort: "status" }, { signal }),
    );
    const first = await page.next(() => true, "the first page");
    expect(first).toMatchObject({ reset: true, total: 1, page: 0 });
    expect(first.nodes.map((n) => n.id)).toEqual([NODE_ID]);
    expect(first.counts?.synced).toBe(1);

    const api = harness.api();
    await api.updateCluster(shopCluster("blue", backend, { lbPolicy: LbPolicy.LEAST_REQUEST }));
    await api.publish({ message: "rejected for the paged view", acceptWarnings: true });
    const nacked = await page.next((m) => m.counts?.nacked === 1, "the NACK never reached it");
    // Filtered on SYNCED: the page is now empty, and the counts say why.
    expect(nacked).toMatchObject({ reset: true, total: 0 });
    expect(nacked.nodes).toEqual([]);

    await api.updateCluster(shopCluster("blue", backend, { connectTimeoutMs: 4_000 }));
    await api.publish({ message: "fixed for the paged view" });
    await page.next(
      (m) => m.total === 1 && m.counts?.synced === 1 && m.nodes[0]?.id === NODE_ID,
      "the recovery never reached it",
    );
    expect(page.messages.every((m) => m.reset)).toBe(true);
    await page.cancel();

    const refused = watch((signal) => status.watchNodes({ pageSize: 501 }, { signal }));
    await expect(refused.next(() => true, "a message")).rejects.toThrow(
      /page_size 501 is over the maximum of 500/,
    );
  });

  it("WatchNode answers NotFound for a node no replica has seen", async () => {
    const node = watch((signal) => status.watchNode({ id: "nobody" }, { signal }));
    await expect(node.next(() => true, "a message", 5_000)).rejects.toThrow(/stream ended/);
    expect(ConnectError.from(node.ended?.error).code).toBe(Code.NotFound);
  });

  it("a proxy that leaves a response unanswered turns PENDING, then STALE after the threshold, pushed with no new write", async () => {
    const nodes = watch((signal) => status.watchNodes({ idContains: "silent" }, { signal }));
    raw = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);
    const stream = raw.open("ads", { node: { id: "silent-envoy", cluster: "edge" } });
    stream.request(CDS, []);
    await stream.next();
    // Never ACKed.
    const pending = await nodes.next(
      (m) =>
        typeStatusOf(
          m.nodes.find((n) => n.id === "silent-envoy"),
          CDS,
        ) === NodeTypeStatus.PENDING,
      "CDS never PENDING",
    );
    const staleTime = pending.nodes[0]?.types[0]?.staleTime;
    expect(staleTime).toBeDefined();
    await nodes.next(
      (m) =>
        typeStatusOf(
          m.nodes.find((n) => n.id === "silent-envoy"),
          CDS,
        ) === NodeTypeStatus.STALE,
      "CDS never STALE",
      STALE_AFTER_MS + 5_000,
    );
    await nodes.cancel();
  });

  it("a proxy that disconnects is shown disconnected with when, and connected again when it comes back", async () => {
    const nodes = watch((signal) => status.watchNodes({ idContains: NODE_ID }, { signal }));
    await nodes.next((m) => m.nodes.some((n) => n.id === NODE_ID && n.connected), "connected");
    client?.close();
    client = undefined;
    const gone = await nodes.next(
      (m) => m.nodes.some((n) => n.id === NODE_ID && !n.connected),
      "never shown disconnected",
    );
    expect(gone.nodes[0]?.disconnectedAt).toBeDefined();

    client = createXdsEchoClient("shop", {
      server: `127.0.0.1:${harness.app.xdsPort}`,
      nodeId: NODE_ID,
    });
    await callUntilReady(client);
    const back = await nodes.next(
      (m) =>
        nodes.messages.indexOf(m) > nodes.messages.indexOf(gone) &&
        m.nodes.some((n) => n.id === NODE_ID && n.connected),
      "never shown connected again",
    );
    expect(back.nodes[0]?.disconnectedAt).toBeUndefined();
    const detail = await status.getNode({ id: NODE_ID });
    expect(detail.events.filter((e) => e.kind === "connect").length).toBeGreaterThanOrEqual(2);
    expect(detail.events.some((e) => e.kind === "disconnect")).toBe(true);
    await nodes.cancel();
  });

  it("a connected-only watch removes a node when it disconnects", async () => {
    const nodes = watch((signal) =>
      status.watchNodes({ connectedOnly: true, idContains: NODE_ID }, { signal }),
    );
    const first = await nodes.next(() => true, "the first message");
    expect(first.nodes.map((n) => n.id)).toEqual([NODE_ID]);
    client?.close();
    client = undefined;
    await nodes.next((m) => m.removedIds.includes(NODE_ID), "never removed");
    await nodes.cancel();
  });
});
