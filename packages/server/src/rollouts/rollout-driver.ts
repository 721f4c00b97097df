import {
  type LoadSample,
  type RolloutEvent,
  type RolloutState,
  splitLoad,
  stepAll,
  wakeAt,
} from "@switchyard/rollout";
import { readVersionManifests } from "../fleet/convergence-reader.js";
import type { Inbox, StatusFeed } from "../fleet/status-feed.js";
import { listNodes, type NodeRecord } from "../fleet/status-reader.js";
import { FINE_WIDTH_S, readLoadByNode } from "../load/load-store.js";
import { type CommitDeps, commitStep } from "./rollout-commit.js";
import { nodeEvents } from "./rollout-events.js";
import {
  claimRollouts,
  type RolloutRow,
  releaseRollouts,
  type TrafficWindow,
} from "./rollout-rows.js";

export const DEFAULT_ROLLOUT_LEASE_MS = 15_000;

/** Load buckets are read this long after they end: the writers flush every 2 s. */
const LOAD_SETTLE_MS = 3_000;
const BUCKET_MS = FINE_WIDTH_S * 1_000;

/** More nodes than any group holds: a full read. */
const ALL_NODES = 1_000_000;

export interface RolloutDriverOptions extends CommitDeps {
  readonly replicaId: string;
  readonly feed: StatusFeed;
  readonly leaseMs?: number;
  /** The longest time between two rounds. Default 1 s. */
  readonly intervalMs?: number;
  readonly now?: () => number;
}

/** What the driver remembers of a rollout between rounds; dropped when it loses the lease. */
interface Context {
  /** The revision it last wrote or read: another means someone else wrote (read all again). */
  revision: number;
  readonly seen: Map<string, number>;
}

export class RolloutDriver {
  readonly #options: RolloutDriverOptions;
  readonly #now: () => number;
  readonly #contexts = new Map<number, Context>();
  #changed: Set<string> | "all" = "all";
  #inbox: Inbox | undefined;
  readonly #stop = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #closed = false;

  constructor(options: RolloutDriverOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  start(): void {
    this.#schedule(0);
  }

  /** Something changed (a rollout was written, a publish started one): a round soon. */
  nudge(): void {
    this.#schedule(0);
  }

  /** Stops driving and gives up the leases, so that another replica takes over at once. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#stop.abort();
    this.#inbox?.close();
    await this.#running?.catch(() => undefined);
    await releaseRollouts(this.#options.prisma, this.#options.replicaId).catch(() => undefined);
  }

  #schedule(delayMs: number): void {
    if (this.#closed) return;
    if (this.#running) {
      if (delayMs === 0) this.#again = true;
      return;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#running = this.#round()
          .catch((error: unknown) =>
            this.#options.logger.warn({ err: error }, "driving the rollouts failed; will retry"),
          )
          .then((next) => {
            this.#running = undefined;
            const again = this.#again;
            this.#again = false;
            this.#schedule(again ? 0 : (next ?? this.#interval()));
          });
      },
      Math.max(0, delayMs),
    );
    this.#timer.unref();
  }

  #interval(): number {
    return this.#options.intervalMs ?? 1_000;
  }

  /** Listens to the status feed while there is something to drive. */
  #follow(on: boolean): void {
    if (on && this.#inbox === undefined) {
      const inbox = this.#options.feed.open();
      this.#inbox = inbox;
      this.#changed = "all";
      void (async () => {
        for (;;) {
          const changes = await inbox.take(this.#stop.signal);
          if (changes === undefined) return;
          if (this.#changed !== "all") for (const id of changes.nodes.keys()) this.#changed.add(id);
          this.#schedule(50);
        }
      })();
    } else if (!on && this.#inbox !== undefined) {
      this.#inbox.close();
      this.#inbox = undefined;
    }
  }

  /** One round over the rollouts this replica holds; the delay until the next one. */
  async #round(): Promise<number | undefined> {
    const { prisma, replicaId } = this.#options;
    const rows = await claimRollouts(
      prisma,
      replicaId,
      this.#options.leaseMs ?? DEFAULT_ROLLOUT_LEASE_MS,
    );
    for (const id of this.#contexts.keys())
      if (!rows.some((row) => row.id === id)) this.#contexts.delete(id);
    this.#follow(rows.length > 0);
    if (rows.length === 0) return undefined;
    const changed = this.#changed;
    this.#changed = new Set();
    let next = this.#interval();
    for (const row of rows) {
      try {
        const state = await this.#drive(row, changed);
        const at = state === undefined ? undefined : wakeAt(state);
        if (at !== undefined) next = Math.min(next, Math.max(0, at - this.#now()));
      } catch (error) {
        this.#contexts.delete(row.id);
        this.#options.logger.warn({ err: error, rollout: row.id }, "driving a rollout failed");
      }
    }
    return next;
  }

  /** One step of one rollout; its state after, or undefined when someone else wrote first. */
  async #drive(row: RolloutRow, changed: Set<string> | "all"): Promise<RolloutState | undefined> {
    const { prisma } = this.#options;
    const now = this.#now();
    let context = this.#contexts.get(row.id);
    const fresh = context === undefined || context.revision !== row.revision;
    if (context === undefined || fresh) {
      context = { revision: row.revision, seen: context?.seen ?? new Map() };
      this.#contexts.set(row.id, context);
    }
    const complete = fresh || changed === "all";
    let records: NodeRecord[] = [];
    if (complete) records = await listNodes(prisma, { limit: ALL_NODES, held: true, at: now });
    else if (changed.size > 0)
      records = await listNodes(prisma, {
        ids: [...changed],
        limit: ALL_NODES,
        held: true,
        at: now,
      });
    const [to, from] = await Promise.all([
      readVersionManifests(prisma, row.toVersion),
      readVersionManifests(prisma, row.fromVersion),
    ]);
    const events: RolloutEvent[] = nodeEvents({
      state: row.state,
      records,
      complete,
      to,
      from,
      seen: context.seen,
      now,
    });
    const load = await this.#load(row, now);
    if (load !== undefined) events.push(load.event);
    events.push({ t: "tick", now });
    const result = stepAll(row.state, events);
    // A tick alone changes nothing but the time unless it brings a transition (which acts):
    // only node events are compared, so an idle round costs no copy of a large state.
    const moved =
      result.actions.length > 0 ||
      load !== undefined ||
      (events.length > 1 &&
        JSON.stringify({ ...result.state, now: 0 }) !== JSON.stringify({ ...row.state, now: 0 }));
    if (!moved) return row.state;
    const stored = await commitStep(this.#options, row, result, {
      driver: this.#options.replicaId,
      ...(load === undefined ? {} : { loadedUntil: load.until, windows: [load.window] }),
    });
    if (!stored) {
      this.#contexts.delete(row.id);
      return undefined;
    }
    context.revision = row.revision + 1;
    return result.state;
  }

  /**
   * The load of the touched clusters in the whole buckets since the last window counted, while
   * the wave bakes (the core counts a window only from its bake's start).
   */
  async #load(
    row: RolloutRow,
    now: number,
  ): Promise<
    | { readonly event: RolloutEvent; readonly window: TrafficWindow; readonly until: number }
    | undefined
  > {
    const { state } = row;
    const { phase } = state;
    if (phase.t !== "baking" || state.clusters.length === 0) return undefined;
    const start = Math.ceil(phase.since / BUCKET_MS) * BUCKET_MS;
    const from = Math.max(start, row.loadedUntil ?? start);
    const until = Math.floor((now - LOAD_SETTLE_MS) / BUCKET_MS) * BUCKET_MS;
    if (until <= from) return undefined;
    const rows = await readLoadByNode(this.#options.prisma, {
      clusters: state.clusters,
      from,
      to: until,
    });
    const samples: LoadSample[] = rows;
    const sides = splitLoad(samples, state.clusters, (nodeId) => {
      const entry = state.nodes[nodeId];
      if (!entry) return undefined;
      return entry.sent ? "canary" : "control";
    });
    const window: TrafficWindow = {
      from,
      to: until,
      wave: phase.wave,
      clusters: Object.entries(sides).map(([cluster, side]) => ({
        cluster,
        canary: side.canary,
        control: side.control,
      })),
    };
    return { event: { t: "load", now, from, to: until, samples }, window, until };
  }
}
