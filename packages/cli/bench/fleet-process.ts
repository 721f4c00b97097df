/**
 * The simulated fleet in a process of its own (`forkFleet`), so that the load generator has its
 * own event loop and does not slow the server it measures. Commands and answers travel over the
 * fork's IPC channel.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type Fleet, type FleetNode, type FleetVariant, startFleet } from "./fleet.js";

export interface FleetOptions {
  readonly xdsUrl: string;
  readonly count: number;
  readonly variant: FleetVariant;
  /** Node ids are `${prefix}-0000`...; the variant by default. */
  readonly prefix?: string;
  readonly perConnection?: number;
  readonly countBytes?: boolean;
}

export interface FleetStats {
  readonly nodes: number;
  readonly acks: number;
  readonly bytes: number;
}

/** Each node's first ACK of a type since the mark, and the bytes it received since. */
export interface AckedSinceMark {
  /** When each node ACKed (ms since the epoch, `epochNow()`), in node order. */
  readonly times: readonly number[];
  /** Bytes each node received since the mark (with `countBytes`), in node order. */
  readonly bytes: readonly number[];
  /** How many nodes outside the ones waited for (`Among`) ACKed the type since the mark too. */
  readonly others: number;
}

/** The nodes an `acked` waits for: those of `ids`, or (`except`) all the others. */
export interface Among {
  readonly ids: readonly string[];
  readonly except?: boolean;
}

type Command =
  | { readonly t: "holding"; readonly counts: Record<string, number>; readonly timeoutMs: number }
  | { readonly t: "stats" }
  | { readonly t: "mark" }
  | {
      readonly t: "acked";
      readonly typeUrl: string;
      readonly timeoutMs: number;
      readonly among?: Among;
    }
  | { readonly t: "closeSome"; readonly count: number }
  | { readonly t: "reconnect" };

type Request = { readonly id: number } & Command;
type Reply = {
  readonly id: number;
  readonly error?: string;
  readonly stats?: FleetStats;
  readonly acked?: AckedSinceMark;
};

/** The fleet as the benchmark sees it, running in a child process. */
export interface RemoteFleet {
  /** The fleet's process (its CPU is the load generator's). */
  readonly pid: number;
  /** Resolves once every node holds exactly `counts[typeUrl]` resources of each type. */
  holding(counts: Record<string, number>, timeoutMs?: number): Promise<void>;
  stats(): Promise<FleetStats>;
  /** Starts a measured change: forgets which nodes ACKed what, and counts bytes from now. */
  mark(): Promise<void>;
  /**
   * Resolves once every node (of `among`, when given) has ACKed a response of `typeUrl` since
   * the mark.
   */
  acked(typeUrl: string, timeoutMs?: number, among?: Among): Promise<AckedSinceMark>;
  closeSome(count: number): Promise<void>;
  reconnect(): Promise<void>;
  close(): Promise<void>;
}

export function forkFleet(options: FleetOptions): RemoteFleet {
  const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(options)], {
    // --expose-gc: the fleet collects its garbage at each mark (serveCommands, "mark").
    execArgv: ["--import", "tsx", "--expose-gc"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let next = 0;
  const pending = new Map<number, (reply: Reply) => void>();
  child.on("message", (reply: Reply) => pending.get(reply.id)?.(reply));
  const call = (command: Command) =>
    new Promise<Reply>((resolve, reject) => {
      const id = ++next;
      pending.set(id, (reply) => {
        pending.delete(id);
        if (reply.error !== undefined) reject(new Error(reply.error));
        else resolve(reply);
      });
      child.send({ id, ...command } satisfies Request);
    });
  return {
    pid: child.pid ?? 0,
    holding: async (counts, timeoutMs = 300_000) => {
      await call({ t: "holding", counts, timeoutMs });
    },
    stats: async () => (await call({ t: "stats" })).stats as FleetStats,
    mark: async () => {
      await call({ t: "mark" });
    },
    acked: async (typeUrl, timeoutMs = 120_000, among) =>
      (await call({ t: "acked", typeUrl, timeoutMs, ...(among ? { among } : {}) }))
        .acked as AckedSinceMark,
    closeSome: async (count) => {
      await call({ t: "closeSome", count });
    },
    reconnect: async () => {
      await call({ t: "reconnect" });
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** In the child: run the fleet and answer commands. */
async function serveCommands(options: FleetOptions): Promise<void> {
  const fleet: Fleet = startFleet(options);
  let bytesAtMark = fleet.nodes.map(() => 0);
  process.on("SIGTERM", () => {
    fleet.close();
    process.exit(0);
  });
  process.on("message", async (request: Request): Promise<void> => {
    const reply = (extra: Omit<Reply, "id"> = {}): void => {
      process.send?.({ id: request.id, ...extra });
    };
    try {
      switch (request.t) {
        case "holding":
          await fleet.until(
            (node) =>
              Object.entries(request.counts).every(
                ([typeUrl, count]) => (node.held.get(typeUrl)?.size ?? 0) === count,
              ),
            "the fleet never held the whole config",
            request.timeoutMs,
          );
          return reply();
        case "stats":
          return reply({
            stats: {
              nodes: fleet.nodes.length,
              acks: fleet.nodes.reduce((n, node) => n + node.acks, 0),
              bytes: fleet.nodes.reduce((n, node) => n + node.bytes, 0),
            },
          });
        case "mark":
          // A fleet of thousands of simulated proxies holds a heap of hundreds of MB, whose full
          // collection (marking it takes a core for a while) fell inside a timed change about
          // every other round: every node of that round answered late, whichever server it was
          // measuring (at 5,000 nodes, p50 1,161 against 518-609 ms; --trace-gc). Collected here,
          // before each timed change, the load generator starts every round alike.
          globalThis.gc?.();
          fleet.mark();
          bytesAtMark = fleet.nodes.map((node) => node.bytes);
          return reply();
        case "acked": {
          const { among, typeUrl } = request;
          const ids = among === undefined ? undefined : new Set(among.ids);
          const waitedFor = (node: FleetNode) =>
            ids === undefined || ids.has(node.id) !== (among?.except ?? false);
          await fleet.until(
            (node) => !waitedFor(node) || node.ackedSinceMark.has(typeUrl),
            `not every node ACKed ${typeUrl}`,
            request.timeoutMs,
          );
          const selected = fleet.nodes.filter(waitedFor);
          return reply({
            acked: {
              times: selected.map((node) => node.ackedSinceMark.get(typeUrl) ?? 0),
              bytes: fleet.nodes
                .map((node, i) => node.bytes - (bytesAtMark[i] ?? 0))
                .filter((_, i) => waitedFor(fleet.nodes[i] as FleetNode)),
              others: fleet.nodes.filter(
                (node) => !waitedFor(node) && node.ackedSinceMark.has(typeUrl),
              ).length,
            },
          });
        }
        case "closeSome":
          fleet.closeSome(request.count);
          return reply();
        case "reconnect":
          fleet.reconnect();
          return reply();
      }
    } catch (error) {
      reply({ error: error instanceof Error ? error.message : String(error) });
    }
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send !== undefined) {
  await serveCommands(JSON.parse(process.argv[2] ?? "{}") as FleetOptions);
}
