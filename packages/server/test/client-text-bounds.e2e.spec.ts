/**
 * What an xDS client says of itself (its NACKs' error_detail, its node's metadata, cluster and
 * user agent) is cut to size where it enters (packages/xds client-bounds.ts), so no client, even
 * an anonymous one, can make node status answers large or slow for the rest: the largest request
 * the xDS port takes is sent, and the API keeps answering meanwhile.
 */
import { toBinary } from "@bufbuild/protobuf";
import {
  ListNodesResponseSchema,
  NodeDetailSchema,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { CLIENT_TEXT_LIMITS, MAX_REQUEST_BYTES } from "@switchyard/xds";
import { createTestClient, type TestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster } from "../src/testing/api-objects.js";
import { accessClient, bearer, type StatusClient, statusClient } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { TYPE, until } from "../src/testing/shop.js";

const NODE_ID = "oversharing-node";
/** The other calls answer within this while the large request is handled (a loaded machine). */
const RESPONSIVE_MS = 2_000;

describe("client-supplied xDS text is bounded before it is stored or fanned out", () => {
  let harness: Harness;
  let status: StatusClient;
  let xds: TestClient;

  beforeAll(async () => {
    harness = await startHarness();
    const api = harness.api();
    await api.createCluster(edsCluster("blue", "127.0.0.1:9001"));
    await api.publish({ message: "blue" });
    status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);
  });

  afterAll(async () => {
    xds?.close();
    await harness?.stop();
  });

  it("a node with megabytes of metadata and a NACK of the largest error_detail the port takes are stored cut to size, and WhoAmI answers meanwhile", async () => {
    // Just under the largest request the xDS port reads, with room for the rest of the request.
    const huge = "é".repeat(Math.floor((MAX_REQUEST_BYTES - 64 * 1024) / 2));
    const stream = xds.open("ads", {
      node: {
        id: NODE_ID,
        cluster: "x".repeat(1024 * 1024),
        userAgentName: "y".repeat(1024 * 1024),
        metadata: { team: "shop", blob: "z".repeat(4 * 1024 * 1024) },
      },
    });
    stream.request(TYPE.CDS, []);
    const response = await stream.next();
    const watcher = accessClient(harness.baseUrl, [bearer(await harness.token())]);

    stream.nack(response, [], huge);
    const started = performance.now();
    const me = await watcher.whoAmI({});
    const whoAmIMs = performance.now() - started;
    expect(me.user?.username).toBe("admin");
    expect(whoAmIMs).toBeLessThan(RESPONSIVE_MS);

    const detail = await until(
      () => status.getNode({ id: NODE_ID }),
      (d) => d.summary?.types.some((t) => t.nackMessage !== "") === true,
      "the NACK never reached node status",
    );
    const nack = detail.summary?.types.find((t) => t.nackMessage !== "")?.nackMessage ?? "";
    expect(new TextEncoder().encode(nack).length).toBeLessThanOrEqual(
      CLIENT_TEXT_LIMITS.errorDetailBytes,
    );
    expect(nack).toMatch(/^é+… \[truncated \d+ bytes\]$/);
    expect(detail.summary?.cluster).toMatch(/… \[truncated \d+ bytes\]$/);
    expect(detail.summary?.userAgentName).toMatch(/… \[truncated \d+ bytes\]$/);
    expect(detail.metadata?.team).toBe("shop");
    expect(detail.metadata?.blob).toBeUndefined();

    // The whole node, as GetNode and ListNodes serve it, stays within tens of KiB.
    expect(toBinary(NodeDetailSchema, detail).length).toBeLessThan(128 * 1024);
    const listed = await status.listNodes({ idContains: NODE_ID });
    expect(listed.nodes).toHaveLength(1);
    expect(toBinary(ListNodesResponseSchema, listed).length).toBeLessThan(64 * 1024);
    stream.close();
  });
});
