/**
 * ListNodes and WatchNodes answers are bounded however many nodes are stored and however large
 * each one's status (src/api/node-answers.ts): ListNodes pages (page_size, page_token) and stops
 * a page before 4 MiB; WatchNodes without paging sends its nodes in messages of at most 500 nodes
 * and about 4 MiB. A fleet larger than one answer, each node with the largest NACK text stored,
 * is read through, and the API keeps answering meanwhile.
 */
import { toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { createSqlPool, type SqlPool } from "@switchyard/db";
import {
  ListNodesResponseSchema,
  WatchNodesResponseSchema,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { NodeStatusTracker } from "@switchyard/status";
import { CDS, nodeLike, streamOf } from "@switchyard/status/fixtures";
import { CLIENT_TEXT_LIMITS } from "@switchyard/xds";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  LIST_NODES_DEFAULT_PAGE_SIZE,
  LIST_NODES_MAX_PAGE_SIZE,
  NODE_ANSWER_MAX_BYTES,
  WATCH_MESSAGE_MAX_NODES,
} from "../src/api/node-answers.js";
import { writeStatusBatch } from "../src/fleet/status-store.js";
import { StatusWriter } from "../src/fleet/status-writer.js";
import { accessClient, bearer, type StatusClient, statusClient } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/** More nodes than one answer holds, by count and (each with the largest NACK text) by bytes. */
const NODES = 600;
/** The other calls answer within this while a large answer is built (a loaded machine). */
const RESPONSIVE_MS = 2_000;
const nodeId = (i: number) => `fleet-${String(i).padStart(4, "0")}`;

async function expectInvalidArgument(call: Promise<unknown>, field: string) {
  const error = await call.then(
    () => undefined,
    (e: unknown) => ConnectError.from(e),
  );
  expect(error?.code).toBe(Code.InvalidArgument);
  expect(error?.rawMessage).toContain(field);
}

describe("node list and watch answers are bounded", () => {
  let harness: Harness;
  let status: StatusClient;
  let pool: SqlPool;

  beforeAll(async () => {
    harness = await startHarness();
    status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    // The fleet, as another replica writes it: each node NACKed with the largest text kept.
    pool = createSqlPool(harness.database.url);
    const tracker = new NodeStatusTracker({ replicaId: "replica-far" });
    const writer = new StatusWriter({
      tracker,
      intervalMs: 60_000,
      write: (batch) => writeStatusBatch(pool, batch),
    });
    const nack = "n".repeat(CLIENT_TEXT_LIMITS.errorDetailBytes);
    for (let i = 0; i < NODES; i += 1) {
      const stream = streamOf(tracker, i + 1, nodeLike(nodeId(i)));
      stream.request(CDS);
      stream.respond(CDS, "v1", `n-${i}`, { blue: "v1" });
      stream.nack(CDS, "v1", nack);
    }
    for (const [i, id] of ["odd_one", "oddXone"].entries())
      streamOf(tracker, NODES + i + 1, nodeLike(id)).request(CDS);
    await writer.close();
  }, 120_000);

  afterAll(async () => {
    await pool?.close();
    await harness?.stop();
  });

  it("ListNodes answers a default page, then follows next_page_token to every node, each answer under 4 MiB", async () => {
    const first = await status.listNodes({ idContains: "fleet-" });
    expect(first.nodes).toHaveLength(LIST_NODES_DEFAULT_PAGE_SIZE);
    expect(first.nextPageToken).not.toBe("");

    const seen: string[] = [];
    const sizes: number[] = [];
    let pageToken = "";
    do {
      const page = await status.listNodes({
        idContains: "fleet-",
        pageSize: LIST_NODES_MAX_PAGE_SIZE,
        pageToken,
      });
      sizes.push(toBinary(ListNodesResponseSchema, page).length);
      seen.push(...page.nodes.map((n) => n.id));
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    expect(seen).toEqual(Array.from({ length: NODES }, (_, i) => nodeId(i)));
    // The byte bound, not page_size, ended the pages: more than one for fewer nodes than 1000.
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(NODE_ANSWER_MAX_BYTES);
  });

  it("WhoAmI answers while the largest ListNodes page is built", async () => {
    const watcher = accessClient(harness.baseUrl, [bearer(await harness.token())]);
    const listing = status.listNodes({ pageSize: LIST_NODES_MAX_PAGE_SIZE });
    const started = performance.now();
    const me = await watcher.whoAmI({});
    expect(performance.now() - started).toBeLessThan(RESPONSIVE_MS);
    expect(me.user?.username).toBe("admin");
    expect((await listing).nodes.length).toBeGreaterThan(0);
  });

  it("a page_size over the maximum and a page_token ListNodes did not give are InvalidArgument naming the field", async () => {
    await expectInvalidArgument(
      status.listNodes({ pageSize: LIST_NODES_MAX_PAGE_SIZE + 1 }),
      "page_size",
    );
    await expectInvalidArgument(status.listNodes({ pageToken: "not-a-token" }), "page_token");
  });

  it("id_contains matches its text literally, LIKE wildcards included", async () => {
    const listed = await status.listNodes({ idContains: "d_o" });
    expect(listed.nodes.map((n) => n.id)).toEqual(["odd_one"]);
  });

  it("WatchNodes without paging sends every node in messages of at most 500 nodes and 4 MiB, the first a reset", async () => {
    const abort = new AbortController();
    const messages: { reset: boolean; count: number; bytes: number }[] = [];
    const seen = new Set<string>();
    for await (const message of status.watchNodes(
      { idContains: "fleet-" },
      { signal: abort.signal },
    )) {
      messages.push({
        reset: message.reset,
        count: message.nodes.length,
        bytes: toBinary(WatchNodesResponseSchema, message).length,
      });
      for (const node of message.nodes) seen.add(node.id);
      if (seen.size === NODES) break;
    }
    abort.abort();
    expect(seen.size).toBe(NODES);
    expect(messages.map((m) => m.reset)).toEqual(messages.map((_, i) => i === 0));
    expect(messages.length).toBeGreaterThan(1);
    for (const m of messages) {
      expect(m.count).toBeLessThanOrEqual(WATCH_MESSAGE_MAX_NODES);
      expect(m.bytes).toBeLessThanOrEqual(NODE_ANSWER_MAX_BYTES);
    }
  });
});
