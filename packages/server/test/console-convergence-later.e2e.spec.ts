/**
 * Issue 46: the Overview's "p50/p99 to ACK" count only the nodes that were connected when the
 * version was published. A real gRPC xDS client connected at the publish ACKs in milliseconds; a
 * second one that connects afterwards ACKs when it comes, and is said apart under the p99 ("and 1
 * node that connected later") instead of stretching it to the time it took to arrive.
 */
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
  type TestBrowser,
  type XdsEchoClient,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, statusClient } from "../src/testing/auth.js";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";
import { openShop, shopCluster, until } from "../src/testing/shop.js";

type Page = Awaited<ReturnType<TestBrowser["browser"]["newPage"]>>;

describe("the Overview's p50/p99 to ACK, with a node that connected after the publish", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let page: Page;
  let problems: string[] = [];
  let backend: EchoBackend;
  const clients: XdsEchoClient[] = [];

  beforeAll(async () => {
    backend = await startEchoBackend("blue");
    ({ harness, chromium, page, problems } = await startConsoleWorld());
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await chromium?.close();
    await harness?.stop();
    await backend?.stop();
  });

  it("counts only the nodes connected at the publish, and names the ones that came later under the p99", async () => {
    clients.push(await openShop(harness, backend, "early"));
    // Version 2 is published while "early" is connected: its ACK is the rollout's to time.
    await harness.api().updateCluster(shopCluster("blue", backend, { connectTimeoutMs: 2000 }));
    const version = (await harness.api().publish({ message: "a longer connect timeout" })).snapshot
      ?.version;
    const status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    await until(
      () => status.getConvergence({ version: version ?? 0n }),
      (c) => (c.summary?.acked ?? 0) === 1,
      "the early node never ACKed version 2",
    );
    // A second node connects after the publish.
    const late = createXdsEchoClient("shop", {
      server: `127.0.0.1:${harness.app.xdsPort}`,
      nodeId: "late",
    });
    clients.push(late);
    expect(await callUntilReady(late)).toBe("blue");
    const convergence = await until(
      () => status.getConvergence({ version: version ?? 0n }),
      (c) => (c.summary?.acked ?? 0) === 2,
      "the late node never ACKed version 2",
    );
    expect(convergence.summary?.connectedLater).toBe(1);
    const lateNode = convergence.nodes.find((n) => n.nodeId === "late");
    expect(lateNode?.connectedAfterPublish).toBe(true);
    // The p99 is the early node's time, not the late one's (from the publish to its arrival).
    const earlyMs = convergence.nodes.find((n) => n.nodeId === "early")?.ackMs;
    expect(convergence.summary?.p99Ms).toBe(earlyMs);

    await page.goto(`${harness.baseUrl}/`);
    const p99 = page.getByText("p99 to ACK", { exact: true }).locator("..");
    await p99.getByText("and 1 node that connected later", { exact: true }).waitFor({
      timeout: 20_000,
    });
    expect(problems).toEqual([]);
  });
});
