/**
 * Issue 46: a browser tab that closes while the console watches the fleet ends its server-streaming
 * call mid-answer. `switchyard serve` says so in its JSON log at debug, never as a line of its own
 * making (connect-node's `handler for rpc … failed` on console.error) and never as an error: every
 * line it writes after its banner is a JSON log record.
 */
import * as http from "node:http";
import * as http2 from "node:http2";
import type { Socket } from "node:net";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { adminToken } from "@switchyard/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServeProcess, startServe, waitFor } from "./processes.js";

/** pino's level numbers: debug 20, error 50. */
const ERROR = 50;

/** The lines `serve` wrote after its banner, each as JSON or as the text that is not JSON. */
function linesAfterBanner(output: string): { records: Record<string, unknown>[]; text: string[] } {
  const after = output.slice(
    output.indexOf("Press Ctrl-C to stop.") + "Press Ctrl-C to stop.".length,
  );
  const records: Record<string, unknown>[] = [];
  const text: string[] = [];
  for (const line of after.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const record: unknown = JSON.parse(line);
      if (typeof record === "object" && record !== null && !Array.isArray(record))
        records.push(record as Record<string, unknown>);
      else text.push(line);
    } catch {
      text.push(line);
    }
  }
  return { records, text };
}

/**
 * Opens the server-streaming `method` as the console does (Connect protocol, JSON), waits for its
 * first message, then ends the connection abruptly with `end`.
 */
async function watchThenDrop(
  serve: ServeProcess,
  token: string,
  method: string,
  end: (request: http.ClientRequest) => void,
): Promise<void> {
  const request = http.request(`${serve.baseUrl}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/connect+json", authorization: `Bearer ${token}` },
  });
  request.on("error", () => {}); // ours to cause
  // One enveloped message: flags 0, length 2, then {}.
  request.end(Buffer.from([0, 0, 0, 0, 2, 0x7b, 0x7d]));
  const [response] = await new Promise<[http.IncomingMessage]>((resolve) =>
    request.once("response", (r: http.IncomingMessage) => resolve([r])),
  );
  expect(response.statusCode).toBe(200);
  await new Promise((resolve) => response.once("data", resolve));
  end(request);
}

/** A gRPC message: flags 0, its length, then its bytes. */
function grpcMessage(bytes: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([header, bytes]);
}

/** A length-delimited protobuf field (lengths under 128 bytes). */
const field = (number: number, bytes: Buffer) =>
  Buffer.concat([Buffer.from([(number << 3) | 2, bytes.length]), bytes]);

/** An ADS DiscoveryRequest for listeners from the node `id` (fields node, 2, and type_url, 4). */
const discoveryRequest = (id: string) =>
  Buffer.concat([
    field(2, field(1, Buffer.from(id))),
    field(4, Buffer.from("type.googleapis.com/envoy.config.listener.v3.Listener")),
  ]);

/**
 * Opens an ADS stream on the xDS port as the node `id` (HTTP/2, gRPC), waits until `opened` says
 * the server took it, then ends it with `end`.
 */
async function adsThenDrop(
  serve: ServeProcess,
  id: string,
  opened: () => boolean,
  end: (session: http2.ClientHttp2Session, stream: http2.ClientHttp2Stream) => void,
): Promise<void> {
  const session = http2.connect(`http://127.0.0.1:${serve.xdsPort}`);
  session.on("error", () => {}); // ours to cause
  const stream = session.request({
    ":method": "POST",
    ":path": "/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources",
    "content-type": "application/grpc",
    te: "trailers",
  });
  stream.on("error", () => {});

  stream.write(grpcMessage(discoveryRequest(id)));
  await waitFor(opened, `the xDS stream of ${id} to open`, 20_000);
  end(session, stream);
}

describe("switchyard serve: a client that closes its stream", () => {
  let database: TestDatabase;
  let serve: ServeProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    serve = await startServe(["--no-console"], {
      DATABASE_URL: database.url,
      SWITCHYARD_LOG_LEVEL: "debug",
    });
  });
  afterAll(async () => {
    if (serve !== undefined) expect(await serve.stop()).toBe(0);
    await database?.drop();
  });

  it("is logged as JSON at debug, with no line that is not JSON and no error", async () => {
    if (serve === undefined) throw new Error("serve did not start");
    const token = await adminToken(serve.baseUrl);
    // How many closed calls were logged; on any line that is not JSON, at once (all of them).
    const ended = () => {
      const { records, text } = linesAfterBanner(serve?.output() ?? "");
      return text.length > 0
        ? Number.POSITIVE_INFINITY
        : records.filter((r) => r.msg === "API call ended by the client").length;
    };

    // A tab closed (the socket destroyed: FIN), and a connection reset (RST: ECONNRESET).
    await watchThenDrop(serve, token, "switchyard.v1.StatusService/WatchFleet", (request) =>
      request.destroy(),
    );
    await waitFor(() => ended() >= 1, "the closed watch to be logged", 20_000);
    await watchThenDrop(serve, token, "switchyard.v1.StatusService/WatchNodes", (request) =>
      request.socket?.resetAndDestroy(),
    );
    await waitFor(() => ended() >= 2, "the reset watch to be logged", 20_000);

    const { records, text } = linesAfterBanner(serve.output());
    expect(text).toEqual([]);
    expect(records.filter((r) => Number(r.level) >= ERROR)).toEqual([]);
    const closed = records.filter((r) => r.msg === "API call ended by the client");
    expect(closed.map((r) => r.level)).toEqual([20, 20]);
    expect(closed.map((r) => r.method).sort()).toEqual([
      "switchyard.v1.StatusService/WatchFleet",
      "switchyard.v1.StatusService/WatchNodes",
    ]);
  });

  it("is logged as JSON on the xDS port too, never as an error, when a proxy cancels its stream or drops the connection", async () => {
    if (serve === undefined) throw new Error("serve did not start");
    const running = serve;
    const logged = (msg: string, id: string) => () => {
      const { records, text } = linesAfterBanner(running.output());
      return text.length > 0 || records.some((r) => r.msg === msg && r.node === id);
    };

    // RST_STREAM with CANCEL (a gRPC client's cancel: ERR_HTTP2_STREAM_ERROR, NGHTTP2_CANCEL).
    await adsThenDrop(
      running,
      "cancelled",
      logged("xDS stream opened", "cancelled"),
      (session, stream) => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        stream.once("close", () => session.close());
      },
    );
    await waitFor(
      logged("xDS stream closed", "cancelled"),
      "the cancelled stream to be logged",
      20_000,
    );
    // The connection dropped under the stream (a proxy killed: ECONNRESET).
    await adsThenDrop(running, "dropped", logged("xDS stream opened", "dropped"), (session) =>
      (session.socket as Socket).resetAndDestroy(),
    );
    await waitFor(
      logged("xDS stream closed", "dropped"),
      "the dropped stream to be logged",
      20_000,
    );

    const { records, text } = linesAfterBanner(running.output());
    expect(text).toEqual([]);
    expect(records.filter((r) => Number(r.level) >= ERROR)).toEqual([]);
    // A failure the adapter saw, if any, is the client's doing: debug.
    for (const r of records.filter((r) => r.msg === "xDS call ended by the client"))
      expect(r.level).toBe(20);
  });

  it("with the web console too: pages served and a console watch dropped leave only JSON lines, none an error", async () => {
    const withConsole = await startServe([], {
      DATABASE_URL: database.url,
      SWITCHYARD_LOG_LEVEL: "debug",
    });
    try {
      const token = await adminToken(withConsole.baseUrl);
      for (const page of ["/", "/login", "/nodes"]) {
        const response = await fetch(`${withConsole.baseUrl}${page}`);
        await response.arrayBuffer();
        expect(response.status).toBeLessThan(500);
      }
      await watchThenDrop(withConsole, token, "switchyard.v1.StatusService/WatchFleet", (request) =>
        request.socket?.resetAndDestroy(),
      );
      await waitFor(
        () => {
          const { records, text } = linesAfterBanner(withConsole.output());
          return text.length > 0 || records.some((r) => r.msg === "API call ended by the client");
        },
        "the dropped watch to be logged",
        20_000,
      );
      const { records, text } = linesAfterBanner(withConsole.output());
      expect(text).toEqual([]);
      expect(records.filter((r) => Number(r.level) >= ERROR)).toEqual([]);
    } finally {
      expect(await withConsole.stop()).toBe(0);
    }
  });
});
