/**
 * Issue 45's figures: a rollout at fleet scale. 10,000 simulated proxies (half SotW, half Delta
 * ADS, bench/fleet.ts) on a real `switchyard serve` and PostgreSQL; each round publishes a
 * one-route change as a rollout of two waves (1% of the connected nodes, then everyone), and
 * measures publish → wave 1's ACKs, what the nodes outside wave 1 were sent meanwhile (nothing),
 * the server's memory while two versions are in flight, and promote → the other 99%'s ACKs.
 * The floor is the replay server (bench/replay-server.ts) pushing the same change to the same
 * nodes, in the same run: wave 1's ids first, then the others.
 */
import { type Client, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import {
  type Rollout,
  RolloutPhase,
  RolloutService,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import { adminToken, bearer } from "@switchyard/server/testing";
import { TypeUrl } from "@switchyard/snapshot";
import { largeConfigSpec } from "@switchyard/snapshot/fixtures";
import type { Figure } from "./config.bench.js";
import {
  CONVERGENCE_CONFIG,
  type Percentiles,
  percentiles,
  routeChange,
  startServer,
} from "./fleet.bench.js";
import { epochNow } from "./fleet.js";
import { type AckedSinceMark, type Among, forkFleet, type RemoteFleet } from "./fleet-process.js";
import { cpuSeconds, residentBytes, settled } from "./process-usage.js";
import { forkReplayServer } from "./replay-server.js";

/** 10,000, the figure; SWITCHYARD_BENCH_ROLLOUT_NODES makes a quicker run to try it. */
const NODES = Number(process.env.SWITCHYARD_BENCH_ROLLOUT_NODES ?? 10_000);
const ROUNDS = 3;
/** Wave 1 is 1% of the connected nodes; its bake outlasts the measurement, which promotes. */
const PLAN = "onFailure: rollback\nbake: 30m\nackTimeout: 2m\nwaves: [1%, 100%]\n";
const WAVE_1 = Math.ceil(NODES / 100);
const MB = 1024 ** 2;

/** One rollout round, on the server or on the floor. */
interface RolloutRound {
  /** Wave 1's nodes. */
  readonly ids: readonly string[];
  /** Publish → each wave-1 node's ACK (ms). */
  readonly wave1: readonly number[];
  /** Nodes outside wave 1 that ACKed a new route configuration before the promotion. */
  readonly outsideWave1: number;
  /** Promote → each other node's ACK (ms). */
  readonly rest: readonly number[];
  /** Server resident set with wave 1 on the new version and the others on the previous one. */
  readonly residentTwoVersions: number;
  /** Server CPU from the publish until wave 1 ACKed and the server was idle (s). */
  readonly wave1Cpu: number;
  /** The Publish call (ms); the floor has none. */
  readonly publishMs?: number;
}

interface RolloutPoint {
  readonly rounds: readonly RolloutRound[];
  /** Resident set with every node connected and one version served. */
  readonly residentOneVersion: number;
}

/** What a round drives: the real server's rollout, or the floor's pushes. */
interface Target {
  readonly pid: number;
  readonly xdsUrl: string;
  prepare(round: number): Promise<void>;
  /** Publishes round `round` as a rollout; resolves with wave 1's node ids once it was sent. */
  publish(round: number): Promise<{ readonly ids: readonly string[]; readonly publishMs?: number }>;
  /** Sends the version to every other node (promote), and then ends the round. */
  promote(round: number, wave1: readonly string[]): Promise<void>;
  finish(round: number): Promise<void>;
}

const routeConfigurations = Math.ceil(CONVERGENCE_CONFIG.routes / 100);

const ackedBy = (fleets: readonly RemoteFleet[], among: Among) =>
  Promise.all(fleets.map((f) => f.acked(TypeUrl.RouteConfiguration, 300_000, among)));

const latencies = (acked: readonly AckedSinceMark[], from: number) =>
  acked.flatMap((a) => a.times.map((t) => t - from));

async function rollouts(target: Target): Promise<RolloutPoint> {
  const fleets = (["sotw", "delta"] as const).map((variant) =>
    forkFleet({ xdsUrl: target.xdsUrl, count: NODES / 2, variant, prefix: `${variant}-r` }),
  );
  try {
    await Promise.all(
      fleets.map((f) =>
        f.holding(
          {
            [TypeUrl.Cluster]: CONVERGENCE_CONFIG.clusters,
            [TypeUrl.RouteConfiguration]: routeConfigurations,
          },
          600_000,
        ),
      ),
    );
    await settled(target.pid);
    const residentOneVersion = residentBytes(target.pid);
    const rounds: RolloutRound[] = [];
    // Round 0 warms the code paths up (see docs/benchmarks.md on the first change); not counted.
    for (let round = 0; round <= ROUNDS; round++) {
      await target.prepare(round + 1);
      await settled(target.pid);
      await Promise.all(fleets.map((f) => f.mark()));
      await Promise.all(fleets.map((f) => settled(f.pid)));
      const cpuBefore = cpuSeconds(target.pid);
      const publishedAt = epochNow();
      const { ids, publishMs } = await target.publish(round + 1);
      const wave1 = await ackedBy(fleets, { ids });
      await settled(target.pid);
      const wave1Cpu = cpuSeconds(target.pid) - cpuBefore;
      const residentTwoVersions = residentBytes(target.pid);
      const outsideWave1 = wave1.reduce((n, a) => n + a.others, 0);
      await Promise.all(fleets.map((f) => f.mark()));
      const promotedAt = epochNow();
      await target.promote(round + 1, ids);
      const rest = await ackedBy(fleets, { ids, except: true });
      await target.finish(round + 1);
      if (round > 0)
        rounds.push({
          ids,
          wave1: latencies(wave1, publishedAt),
          outsideWave1,
          rest: latencies(rest, promotedAt),
          residentTwoVersions,
          wave1Cpu,
          ...(publishMs === undefined ? {} : { publishMs }),
        });
    }
    return { rounds, residentOneVersion };
  } finally {
    await Promise.all(fleets.map((f) => f.close()));
  }
}

/** Polls `read` until `done` holds of it (the rollout's state lives on the server). */
async function until(
  read: () => Promise<Rollout>,
  done: (rollout: Rollout) => boolean,
  what: string,
): Promise<Rollout> {
  const deadline = performance.now() + 300_000;
  for (;;) {
    const rollout = await read();
    if (done(rollout)) return rollout;
    if (rollout.phase === RolloutPhase.FAILED || rollout.phase === RolloutPhase.ABORTED)
      throw new Error(`rollout ${rollout.id} ended before ${what}: ${rollout.summary}`);
    if (performance.now() > deadline) throw new Error(`${what}: ${rollout.summary}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function switchyardRollouts(): Promise<RolloutPoint> {
  const spec = largeConfigSpec(CONVERGENCE_CONFIG.clusters, CONVERGENCE_CONFIG.routes);
  const server = await startServer(spec);
  const rolloutApi: Client<typeof RolloutService> = createClient(
    RolloutService,
    createConnectTransport({
      baseUrl: server.serve.baseUrl,
      httpVersion: "1.1",
      interceptors: [bearer(await adminToken(server.serve.baseUrl))],
    }),
  );
  let id = 0n;
  const read = () => rolloutApi.getRollout({ id, nodeLimit: WAVE_1 * 2 });
  try {
    return await rollouts({
      pid: server.serve.child.pid ?? 0,
      xdsUrl: `http://127.0.0.1:${server.serve.xdsPort}`,
      prepare: (round) => routeChange(server.api, round),
      async publish(round) {
        const started = epochNow();
        const published = await server.api.publish({
          message: `one-route change ${round} as a rollout`,
          bodies: { omit: true },
          rollout: { plan: { case: "planDocument", value: PLAN } },
        });
        const publishMs = epochNow() - started;
        const [rolloutId] = published.rolloutIds;
        if (rolloutId === undefined) throw new Error("the publish started no rollout");
        id = rolloutId;
        // Wave 1's nodes, once the driver sent it to all of them: those it went to first.
        const sent = await until(
          read,
          (r) => (r.waves[0]?.sent ?? 0) >= WAVE_1,
          "wave 1 was sent to its nodes",
        );
        const ids = sent.nodes.filter((n) => n.wave === 1).map((n) => n.nodeId);
        if (ids.length !== WAVE_1)
          throw new Error(`wave 1 lists ${ids.length} nodes, not ${WAVE_1}: ${sent.summary}`);
        return { ids, publishMs };
      },
      async promote() {
        await rolloutApi.promoteRollout({ id });
      },
      async finish() {
        // The last wave bakes too: promoting it ends the rollout, so the next round may publish.
        await until(read, (r) => r.wave === 2 && r.phase === RolloutPhase.BAKING, "wave 2 baked");
        await rolloutApi.promoteRollout({ id });
        await until(read, (r) => r.phase === RolloutPhase.COMPLETED, "the rollout completed");
      },
    });
  } finally {
    await server.stop();
  }
}

async function floorRollouts(wave1Of: (round: number) => readonly string[]): Promise<RolloutPoint> {
  const floor = await forkReplayServer({ ...CONVERGENCE_CONFIG, rounds: ROUNDS + 1 });
  try {
    return await rollouts({
      pid: floor.pid,
      xdsUrl: `http://127.0.0.1:${floor.port}`,
      prepare: async () => undefined,
      async publish(round) {
        const ids = wave1Of(round);
        await floor.push(round, { ids });
        return { ids };
      },
      async promote(round, ids) {
        await floor.push(round, { ids, except: true });
      },
      finish: async () => undefined,
    });
  } finally {
    await floor.close();
  }
}

const p = (values: readonly number[]): Percentiles => percentiles(values);

export async function rolloutBench(): Promise<Figure[]> {
  const ours = await switchyardRollouts();
  // The floor sends to the nodes Switchyard chose (by a hash of the node id: the same each round).
  const chosen = ours.rounds.map((r) => [...r.ids].sort().join());
  const floor = await floorRollouts(() => ours.rounds[0]?.ids ?? []);
  const pooled = (point: RolloutPoint, key: "wave1" | "rest") =>
    p(point.rounds.flatMap((r) => r[key]));
  const figures: Figure[] = [];
  const n = NODES.toLocaleString("en");
  for (const [key, label] of [
    ["wave1", `publish → wave 1's ACKs (${WAVE_1} of ${n} nodes)`],
    ["rest", `promote → wave 2's ACKs (the other ${(NODES - WAVE_1).toLocaleString("en")})`],
  ] as const) {
    const s = pooled(ours, key);
    const f = pooled(floor, key);
    for (const q of ["p50", "p99", "max"] as const)
      figures.push({
        name: `rollout at ${n} nodes: ${label} ${q}`,
        value: s[q],
        unit: "ms",
        note: `floor ${f[q].toFixed(0)} ms, ×${(s[q] / f[q]).toFixed(1)}`,
      });
  }
  const publish = p(ours.rounds.map((r) => r.publishMs ?? Number.NaN));
  figures.push({
    name: `rollout at ${n} nodes: the Publish call starting it, p50 / max`,
    value: publish.p50,
    unit: "ms",
    target: "< 200 ms",
    note: `max ${publish.max.toFixed(0)} ms`,
  });
  figures.push({
    name: `rollout at ${n} nodes: rounds whose wave 1 was other nodes than the first round's`,
    value: chosen.filter((ids) => ids !== chosen[0]).length,
    unit: "",
    target: "0",
  });
  figures.push({
    name: `rollout at ${n} nodes: nodes outside wave 1 sent the version before the promotion`,
    value: ours.rounds.reduce((sum, r) => sum + r.outsideWave1, 0),
    unit: "",
    target: "0",
    note: `over ${ours.rounds.length} rounds`,
  });
  const cpu = p(ours.rounds.map((r) => r.wave1Cpu));
  const floorCpu = p(floor.rounds.map((r) => r.wave1Cpu));
  figures.push({
    name: `rollout at ${n} nodes: server CPU from the publish to wave 1 ACKed`,
    value: cpu.p50 * 1000,
    unit: "ms",
    note: `floor ${(floorCpu.p50 * 1000).toFixed(0)} ms`,
  });
  const two = p(ours.rounds.map((r) => r.residentTwoVersions));
  const floorTwo = p(floor.rounds.map((r) => r.residentTwoVersions));
  figures.push({
    name: `rollout at ${n} nodes: server RSS with two versions in flight`,
    value: two.max / MB,
    unit: "MB",
    note: `one version ${(ours.residentOneVersion / MB).toFixed(0)} MB (+${((two.max - ours.residentOneVersion) / MB).toFixed(0)} MB); floor ${(floorTwo.max / MB).toFixed(0)} MB`,
  });
  return figures;
}
