import * as http2 from "node:http2";
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import {
  type DiscoveryRequestSchema as DiscoveryRequestDesc,
  DiscoveryRequestSchema,
  type DiscoveryResponse,
  DiscoveryResponseSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";

const ADS_PATH = "/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources";

/**
 * A SotW ADS client on a bare node:http2 stream, so a test controls its reading: `pause()` stops
 * consuming DATA frames, and HTTP/2 flow control then stops the server after the client's window
 * (64 KiB, the HTTP/2 default, for the stream and the connection) — what a proxy that stopped
 * reading looks like to the server. A connection of its own: a paused stream also holds up its
 * connection's window, and with it every other stream on the connection.
 */
export interface RawAdsStream {
  send(request: MessageInitShape<typeof DiscoveryRequestDesc>): void;
  /** The next response, decoded; rejects after `timeoutMs`, or if the stream ends first. */
  next(timeoutMs?: number): Promise<DiscoveryResponse>;
  /** Stop reading: nothing more is consumed, so no window update goes to the server. */
  pause(): void;
  resume(): void;
  /** Bytes of DATA that reached this process so far, read or held unread while paused. */
  readonly receivedBytes: number;
  close(): void;
}

export function openRawAds(baseUrl: string): RawAdsStream {
  const session = http2.connect(baseUrl);
  session.on("error", () => undefined);
  const stream = session.request({
    ":method": "POST",
    ":path": ADS_PATH,
    "content-type": "application/grpc+proto",
    te: "trailers",
  });
  let buffered = Buffer.alloc(0);
  let receivedBytes = 0;
  const responses: DiscoveryResponse[] = [];
  let ended: Error | undefined;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  stream.on("data", (chunk: Buffer) => {
    receivedBytes += chunk.length;
    buffered = Buffer.concat([buffered, chunk]);
    // gRPC framing: a flag byte, a 4-byte big-endian length, the message.
    while (buffered.length >= 5) {
      const length = buffered.readUInt32BE(1);
      if (buffered.length < 5 + length) break;
      responses.push(fromBinary(DiscoveryResponseSchema, buffered.subarray(5, 5 + length)));
      buffered = buffered.subarray(5 + length);
    }
    wakeUp();
  });
  const end = (why: string) => {
    ended ??= new Error(why);
    wakeUp();
  };
  stream.on("end", () => end("the server ended the stream"));
  stream.on("error", (error) => end(`the stream failed: ${error.message}`));
  return {
    send(request) {
      const body = toBinary(DiscoveryRequestSchema, create(DiscoveryRequestSchema, request));
      const frame = Buffer.alloc(5 + body.length);
      frame.writeUInt32BE(body.length, 1);
      frame.set(body, 5);
      stream.write(frame);
    },
    async next(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const response = responses.shift();
        if (response) return response;
        if (ended) throw ended;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no response within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
    pause() {
      stream.pause();
    },
    resume() {
      stream.resume();
    },
    get receivedBytes() {
      return receivedBytes + stream.readableLength;
    },
    close() {
      stream.close();
      session.destroy();
    },
  };
}
