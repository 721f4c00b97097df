import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loggedNodeAdapter, peerWentAway } from "./node-adapter.js";

describe("the logged Connect adapter", () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    server?.close();
    server?.closeAllConnections();
  });

  it("tells a client that went away from a failure of ours", () => {
    expect(peerWentAway(new ConnectError("gone", Code.Canceled))).toBe(true);
    expect(peerWentAway(Object.assign(new Error("reset"), { code: "ECONNRESET" }))).toBe(true);
    expect(
      peerWentAway(
        new Error("write", { cause: Object.assign(new Error("pipe"), { code: "EPIPE" }) }),
      ),
    ).toBe(true);
    expect(peerWentAway(new ConnectError("bug", Code.Internal))).toBe(false);
    expect(peerWentAway(new TypeError("x is undefined"))).toBe(false);
  });

  it("counts an HTTP/2 stream the client cancelled, or a write to a stream already destroyed, as the client going away; another reset code as a failure", () => {
    const nodeError = (code: string, message: string) =>
      Object.assign(new Error(message), { code });
    // What Node's http2 gives a stream the peer reset with RST_STREAM CANCEL (0x8).
    expect(
      peerWentAway(
        nodeError("ERR_HTTP2_STREAM_ERROR", "Stream closed with error code NGHTTP2_CANCEL"),
      ),
    ).toBe(true);
    expect(
      peerWentAway(
        nodeError("ERR_HTTP2_STREAM_ERROR", "Stream closed with error code NGHTTP2_PROTOCOL_ERROR"),
      ),
    ).toBe(false);
    expect(
      peerWentAway(
        nodeError("ERR_STREAM_DESTROYED", "Cannot call write after a stream was destroyed"),
      ),
    ).toBe(true);
    expect(peerWentAway(nodeError("ERR_STREAM_WRITE_AFTER_END", "write after end"))).toBe(true);
    expect(peerWentAway(nodeError("ECONNABORTED", "aborted"))).toBe(true);
  });

  it("gives a stream the client closed mid-answer to onFailure as the peer's doing, printing nothing itself", async () => {
    const printed = vi.spyOn(console, "error");
    const failures: { method: string; peerGone: boolean }[] = [];
    const failed = new Promise<void>((resolve) => {
      server = http.createServer(
        loggedNodeAdapter(
          {
            routes: (router) =>
              router.service(StatusService, {
                async *watchNodes(_request, context) {
                  // Answers until the client goes, as a node watch does.
                  for (;;) {
                    yield { reset: true };
                    await new Promise((r) => setTimeout(r, 5));
                    if (context.signal.aborted) throw context.signal.reason;
                  }
                },
              }),
          },
          (method, reason) => {
            failures.push({ method, peerGone: peerWentAway(reason) });
            resolve();
          },
        ),
      );
    });
    server?.listen(0, "127.0.0.1");
    await once(server as http.Server, "listening");
    const { port } = (server as http.Server).address() as AddressInfo;
    const request = http.request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/switchyard.v1.StatusService/WatchNodes",
      headers: { "content-type": "application/connect+json" },
    });
    // One enveloped message: flags 0, length, then {}.
    request.end(Buffer.from([0, 0, 0, 0, 2, 0x7b, 0x7d]));
    const [response] = (await once(request, "response")) as [http.IncomingMessage];
    await once(response, "data");
    // The tab closes: the connection goes mid-stream.
    request.destroy();

    await failed;
    expect(failures).toEqual([
      { method: "switchyard.v1.StatusService/WatchNodes", peerGone: true },
    ]);
    expect(printed).not.toHaveBeenCalled();
  });
});
