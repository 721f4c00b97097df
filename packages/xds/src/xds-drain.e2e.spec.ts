import * as net from "node:net";
import { Code } from "@connectrpc/connect";
import { TypeUrl } from "@switchyard/snapshot";
import { describe, expect, it } from "vitest";
import { startTestServer } from "./test-client.js";
import { world } from "./test-world.js";

/** Whether a TCP connection to `port` is accepted. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("draining the xDS server (SIGTERM)", () => {
  it("ends every open SotW and Delta stream with UNAVAILABLE saying to reconnect, and refuses new connections", async () => {
    const server = await startTestServer(world());
    const port = Number(new URL(server.baseUrl).port);
    const sotw = server.client.open("ads", { node: { id: "sotw" } });
    sotw.request(TypeUrl.Cluster, []);
    sotw.ack(await sotw.next(), []);
    const delta = server.client.openDelta("ads", { node: { id: "delta" } });
    delta.request(TypeUrl.Cluster, ["*"]);
    delta.ack(await delta.next());

    const closed = server.server.close();
    const [sotwEnd, deltaEnd] = await Promise.all([sotw.ended(3_000), delta.ended(3_000)]);
    for (const end of [sotwEnd, deltaEnd]) {
      expect(end?.code).toBe(Code.Unavailable);
      expect(end?.rawMessage).toContain("shutting down: reconnect");
    }
    expect(await accepts(port)).toBe(false);
    await closed;
    server.client.close();
  });

  it("drains 30 open streams, each listening for the drain, without Node warning of a listener leak", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const server = await startTestServer(world());
      const streams = Array.from({ length: 30 }, (_, i) => {
        const stream = server.client.openDelta("ads", { node: { id: `node-${i}` } });
        stream.request(TypeUrl.Cluster, ["*"]);
        return stream;
      });
      for (const stream of streams) stream.ack(await stream.next());
      const closed = server.server.close();
      const ends = await Promise.all(streams.map((stream) => stream.ended(3_000)));
      expect(ends.map((end) => end?.code)).toEqual(streams.map(() => Code.Unavailable));
      await closed;
      server.client.close();
      // Node emits its warnings on a later turn.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("a stream opened while the server drains is never served", async () => {
    const server = await startTestServer(world());
    const first = server.client.open("ads", { node: { id: "first" } });
    first.request(TypeUrl.Cluster, []);
    await first.next();
    const closed = server.server.close();
    // The existing connection got GOAWAY: a new stream on it is refused, not served.
    const late = server.client.open("ads", { node: { id: "late" } });
    late.request(TypeUrl.Cluster, []);
    const outcome = await Promise.race([
      late.next(2_000).then(() => "served" as const),
      late.ended(2_000).then(() => "ended" as const),
    ]).catch(() => "ended" as const);
    expect(outcome).toBe("ended");
    expect(server.opened.map((o) => o.node.id)).toEqual(["first"]);
    await closed;
    server.client.close();
  });
});
