/**
 * The transport floor of the fleet benchmark: a minimal ADS server (SotW and Delta) on bare
 * `node:http2` that replays responses encoded before the first node connects. It answers a
 * stream's first request for a type with every resource of the type, ignores ACKs, and on
 * `push(round)` writes round `round`'s one-route change to every stream. No config store, no
 * per-stream subscription state, no status, no Connect: what is left is HTTP/2 and gRPC framing
 * on this machine, the least any server in Node.js can cost. Runs in a process of its own
 * (`forkReplayServer`), as the real server does.
 */
import { fork } from "node:child_process";
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  DeltaDiscoveryRequestSchema,
  DeltaDiscoveryResponseSchema,
  DiscoveryRequestSchema,
  DiscoveryResponseSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { compile, type ResourceSnapshot, TYPE_ORDER, TypeUrl } from "@switchyard/snapshot";
import { largeConfigSpec } from "@switchyard/snapshot/fixtures";
import { CHANGED_ROUTE_CONFIGURATION, withRouteChange } from "./fleet-config.js";

export interface ReplayOptions {
  readonly clusters: number;
  readonly routes: number;
  /** How many rounds of the one-route change to encode ahead. */
  readonly rounds: number;
}

const SOTW_PATH =
  "/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources";
const DELTA_PATH =
  "/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources";

/** A gRPC length-prefixed message (uncompressed). */
function frame(message: Uint8Array): Buffer {
  const framed = Buffer.alloc(5 + message.length);
  framed.writeUInt32BE(message.length, 1);
  framed.set(message, 5);
  return framed;
}

interface Encoded {
  /** Type URL → the framed response carrying every resource of the type. */
  readonly sotw: ReadonlyMap<string, Buffer>;
  readonly delta: ReadonlyMap<string, Buffer>;
  /** Round → the framed RDS response carrying the changed route configuration. */
  readonly sotwRounds: readonly Buffer[];
  readonly deltaRounds: readonly Buffer[];
}

function sotwResponse(snapshot: ResourceSnapshot, typeUrl: string, names: string[], n: number) {
  return frame(
    toBinary(
      DiscoveryResponseSchema,
      create(DiscoveryResponseSchema, {
        versionInfo: String(n),
        typeUrl,
        nonce: String(n),
        resources: names.flatMap((name) => {
          const r = snapshot.get(typeUrl, name);
          return r ? [{ typeUrl, value: r.body }] : [];
        }),
      }),
    ),
  );
}

function deltaResponse(snapshot: ResourceSnapshot, typeUrl: string, names: string[], n: number) {
  return frame(
    toBinary(
      DeltaDiscoveryResponseSchema,
      create(DeltaDiscoveryResponseSchema, {
        systemVersionInfo: String(n),
        typeUrl,
        nonce: String(n),
        resources: names.flatMap((name) => {
          const r = snapshot.get(typeUrl, name);
          return r ? [{ name, version: r.version, resource: { typeUrl, value: r.body } }] : [];
        }),
      }),
    ),
  );
}

/** Every response the floor will send, encoded and framed once. */
export function encodeReplay(options: ReplayOptions): Encoded {
  const spec = largeConfigSpec(options.clusters, options.routes);
  const snapshotOf = (round: number) => {
    const group = compile(round === 0 ? spec : withRouteChange(spec, round)).groups.find(
      (g) => g.isDefault,
    );
    if (group === undefined) throw new Error("the benchmark config compiled to no default group");
    return group.snapshot;
  };
  const first = snapshotOf(0);
  const sotw = new Map<string, Buffer>();
  const delta = new Map<string, Buffer>();
  for (const typeUrl of TYPE_ORDER) {
    const names = [...first.resources(typeUrl).keys()];
    sotw.set(typeUrl, sotwResponse(first, typeUrl, names, 1));
    delta.set(typeUrl, deltaResponse(first, typeUrl, names, 1));
  }
  const sotwRounds: Buffer[] = [];
  const deltaRounds: Buffer[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    const snapshot = snapshotOf(round);
    const changed = [CHANGED_ROUTE_CONFIGURATION];
    sotwRounds.push(sotwResponse(snapshot, TypeUrl.RouteConfiguration, changed, round + 1));
    deltaRounds.push(deltaResponse(snapshot, TypeUrl.RouteConfiguration, changed, round + 1));
  }
  return { sotw, delta, sotwRounds, deltaRounds };
}

/** Splits a stream's bytes into gRPC messages, whatever the chunking. */
function messages(onMessage: (message: Uint8Array) => void): (chunk: Buffer) => void {
  let buffered: Buffer = Buffer.alloc(0);
  return (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    while (buffered.length >= 5) {
      const length = buffered.readUInt32BE(1);
      if (buffered.length < 5 + length) break;
      onMessage(buffered.subarray(5, 5 + length));
      buffered = buffered.subarray(5 + length);
    }
  };
}

interface ReplayStream {
  readonly delta: boolean;
  readonly stream: http2.ServerHttp2Stream;
  /** Whether the node asked for route configurations (a push goes only to those). */
  routes: boolean;
  /** The node's id, from the stream's first request. */
  nodeId: string;
}

/** The nodes a push goes to: those of `ids`, or (`except`) all the others. */
export interface PushTo {
  readonly ids: readonly string[];
  readonly except?: boolean;
}

/** Starts the floor on a free port of 127.0.0.1. */
export async function startReplayServer(options: ReplayOptions): Promise<{
  readonly port: number;
  push(round: number, to?: PushTo): number;
  close(): Promise<void>;
}> {
  const encoded = encodeReplay(options);
  const streams = new Set<ReplayStream>();
  const server = http2.createServer({ settings: { maxConcurrentStreams: 10_000 } });
  server.on("stream", (stream, headers) => {
    const path = headers[":path"];
    if (path !== SOTW_PATH && path !== DELTA_PATH) {
      stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": "12" });
      stream.end();
      return;
    }
    const entry: ReplayStream = {
      delta: path === DELTA_PATH,
      stream,
      routes: false,
      nodeId: "",
    };
    streams.add(entry);
    stream.respond({ ":status": 200, "content-type": "application/grpc" });
    const answer = (typeUrl: string, initial: boolean) => {
      if (!initial) return; // an ACK: nothing to send
      if (typeUrl === TypeUrl.RouteConfiguration) entry.routes = true;
      const response = (entry.delta ? encoded.delta : encoded.sotw).get(typeUrl);
      if (response !== undefined) stream.write(response);
    };
    stream.on(
      "data",
      messages((message) => {
        if (entry.delta) {
          const request = fromBinary(DeltaDiscoveryRequestSchema, message);
          entry.nodeId ||= request.node?.id ?? "";
          answer(request.typeUrl, request.responseNonce === "");
        } else {
          const request = fromBinary(DiscoveryRequestSchema, message);
          entry.nodeId ||= request.node?.id ?? "";
          answer(request.typeUrl, request.responseNonce === "");
        }
      }),
    );
    const forget = () => streams.delete(entry);
    stream.on("close", forget);
    stream.on("error", forget);
    stream.on("end", () => {
      forget();
      if (!stream.closed) stream.end();
    });
  });
  server.on("session", (session) => session.on("error", () => undefined));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    push(round, to) {
      const sotw = encoded.sotwRounds[round - 1];
      const delta = encoded.deltaRounds[round - 1];
      if (sotw === undefined || delta === undefined) throw new Error(`round ${round} not encoded`);
      const ids = to === undefined ? undefined : new Set(to.ids);
      let sent = 0;
      for (const entry of streams) {
        if (!entry.routes) continue;
        if (ids !== undefined && ids.has(entry.nodeId) === (to?.except ?? false)) continue;
        entry.stream.write(entry.delta ? delta : sotw);
        sent += 1;
      }
      return sent;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { stream } of streams) stream.close();
        server.close(() => resolve());
      }),
  };
}

/** The floor as the benchmark sees it, running in a child process. */
export interface RemoteReplayServer {
  readonly pid: number;
  readonly port: number;
  /** Writes round `round`'s change to every stream (of `to`); resolves with how many got it. */
  push(round: number, to?: PushTo): Promise<number>;
  close(): Promise<void>;
}

type ReplayReply =
  | { readonly t: "ready"; readonly port: number }
  | { readonly t: "pushed"; readonly sent: number }
  | { readonly t: "error"; readonly message: string };

export async function forkReplayServer(options: ReplayOptions): Promise<RemoteReplayServer> {
  const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(options)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  // Replies come in the order of the commands, one each.
  const waiting: Array<{ resolve(reply: ReplayReply): void; reject(error: Error): void }> = [];
  child.on("message", (reply: ReplayReply) => waiting.shift()?.resolve(reply));
  child.on("exit", (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`the replay server exited (${code})`));
  });
  const next = () =>
    new Promise<ReplayReply>((resolve, reject) => {
      waiting.push({ resolve, reject });
    });
  const ready = await next();
  if (ready.t !== "ready")
    throw new Error(`the replay server did not start: ${JSON.stringify(ready)}`);
  return {
    pid: child.pid ?? 0,
    port: ready.port,
    async push(round, to) {
      const reply = next();
      child.send({ round, to });
      const answer = await reply;
      if (answer.t !== "pushed") throw new Error(`push failed: ${JSON.stringify(answer)}`);
      return answer.sent;
    },
    async close() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send !== undefined) {
  const replay = await startReplayServer(JSON.parse(process.argv[2] ?? "{}") as ReplayOptions);
  const send = (reply: ReplayReply) => process.send?.(reply);
  process.on("message", ({ round, to }: { round: number; to?: PushTo }) => {
    try {
      send({ t: "pushed", sent: replay.push(round, to) });
    } catch (error) {
      send({ t: "error", message: error instanceof Error ? error.message : String(error) });
    }
  });
  process.on("SIGTERM", () => {
    void replay.close().then(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  });
  send({ t: "ready", port: replay.port });
}
