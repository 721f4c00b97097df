/**
 * Issue 9's figures: how fast a change reaches a fleet, and what it costs, against a real
 * `switchyard serve` process on a real PostgreSQL, with simulated proxies (bench/fleet.ts: real
 * gRPC streams, Envoy's subscription pattern, half SotW and half Delta ADS) in processes of their
 * own, all on this machine. Each convergence figure is also measured against the replay floor
 * (bench/replay-server.ts) with the same fleet, and printed as a ratio to it.
 */
import * as os from "node:os";
import type { Client } from "@connectrpc/connect";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import type { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { adminToken, writeObjects } from "@switchyard/server/testing";
import { type ConfigSpec, TypeUrl } from "@switchyard/snapshot";
import { largeConfigSpec } from "@switchyard/snapshot/fixtures";
import { configApi, type ServeProcess, startServe } from "../test/processes.js";
import type { Figure } from "./config.bench.js";
import { epochNow, type FleetVariant } from "./fleet.js";
import { CHANGED_ROUTE, CHANGED_ROUTE_CONFIGURATION, changedMatch } from "./fleet-config.js";
import { forkFleet, type RemoteFleet } from "./fleet-process.js";
import { cpuSeconds, peakResidentBytes, residentBytes, settled } from "./process-usage.js";
import { forkReplayServer } from "./replay-server.js";
import { requestParseFigures } from "./request-parse.js";
import { streamSetupFigures } from "./stream-setup.js";

/**
 * Node counts of the convergence scenario, each reached by adding nodes to the last:
 * SWITCHYARD_BENCH_FLEET_NODES (comma-separated, ascending) for a quicker run, e.g. "1000,5000".
 */
export const NODE_COUNTS: readonly [number, ...number[]] = fleetNodeCounts(
  process.env.SWITCHYARD_BENCH_FLEET_NODES,
);

function fleetNodeCounts(text: string | undefined): readonly [number, ...number[]] {
  if (text === undefined || text.trim() === "") return [1_000, 5_000, 10_000];
  const counts = text.split(",").map((part) => Number(part.trim()));
  const [first, ...rest] = counts;
  if (
    first === undefined ||
    counts.some((n, i) => !Number.isInteger(n) || n < 1 || (i > 0 && n <= (counts[i - 1] ?? 0)))
  )
    throw new Error(
      `SWITCHYARD_BENCH_FLEET_NODES="${text}": give ascending whole node counts, comma-separated (e.g. 1000,5000)`,
    );
  return [first, ...rest];
}
/**
 * One-route changes measured at each count (their figures pooled), after the first change once
 * the nodes connect, which is measured apart (ConvergencePoint.firstChange).
 */
const ROUNDS_PER_COUNT = 3;
/** The convergence scenario's config: 10 listeners, each with a route configuration of 100. */
export const CONVERGENCE_CONFIG = { clusters: 100, routes: 1_000 } as const;
/** The bytes scenario's config. */
const BYTES_CONFIG = { clusters: 1_000, routes: 1_000, nodes: 100 } as const;

const MB = 1024 ** 2;

/**
 * xDS worker processes of the measured server: `serve`'s default (one per core) unless
 * SWITCHYARD_XDS_WORKERS says otherwise (0: xDS in the main process), for a comparison. Their
 * CPU and memory are charged to the server with its own (process-usage.ts).
 */
const XDS_WORKERS = Number(process.env.SWITCHYARD_XDS_WORKERS ?? os.availableParallelism());

export interface Percentiles {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** Convergence at one node count, on the server or on the floor. */
export interface ConvergencePoint {
  readonly nodes: number;
  /** Publish → each node's ACK of the change, every round pooled (ms). */
  readonly latency: Percentiles;
  /** Each round's own p99 (ms), in the order run: issue 25 states its goal on their median. */
  readonly roundP99: readonly number[];
  /** CPU seconds the server spent per change, from the publish until it was idle again. */
  readonly cpuPerChange: number;
  /** Resident set once the nodes were connected and the server at rest. */
  readonly residentBytes: number;
  /** How long the nodes added for this count took to hold the whole config (ms). */
  readonly connectMs: number;
  /**
   * CPU seconds spent meanwhile by the server and by the load generator (every fleet process):
   * on this machine they share two cores, so a server that makes the simulated proxies work
   * harder connects slower for it.
   */
  readonly connectCpu: { readonly server: number; readonly fleet: number };
  /** How long the `Publish` call itself took to answer, every round pooled (ms). */
  readonly publishMs: Percentiles;
  /**
   * The first change after the nodes connected, not pooled with the rounds: publish → ACK, and
   * the server's CPU for it (s).
   */
  readonly firstChange: { readonly latency: Percentiles; readonly cpu: number };
}

/** One published change: each node's publish → ACK (ms), the server's CPU (s), the call (ms). */
interface Change {
  readonly latencies: readonly number[];
  readonly cpu: number;
  readonly publishMs: number;
}

export interface FleetResults {
  readonly switchyard: readonly ConvergencePoint[];
  readonly floor: readonly ConvergencePoint[];
  readonly figures: readonly Figure[];
}

export function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5) ?? Number.NaN, p99: at(0.99) ?? Number.NaN, max: at(1) ?? Number.NaN };
}

/** What the convergence scenario drives: the real server, or the floor. */
interface Target {
  readonly pid: number;
  readonly xdsUrl: string;
  /** Makes round `round`'s change ready to publish (not timed). */
  prepare(round: number): Promise<void>;
  /** Publishes it (timed from the call). */
  publish(round: number): Promise<void>;
}

/** The fleet grows through NODE_COUNTS; at each count, one-route changes are timed. */
async function convergence(
  target: Target,
  routeConfigurations: number,
): Promise<ConvergencePoint[]> {
  const fleets: RemoteFleet[] = [];
  const points: ConvergencePoint[] = [];
  let connected = 0;
  let round = 0;
  try {
    for (const count of NODE_COUNTS) {
      const adding = count - connected;
      const start = epochNow();
      const serverCpuBefore = cpuSeconds(target.pid);
      const fleetCpuBefore = fleets.map((fleet) => cpuSeconds(fleet.pid));
      for (const variant of ["sotw", "delta"] as const satisfies readonly FleetVariant[])
        fleets.push(
          forkFleet({
            xdsUrl: target.xdsUrl,
            count: adding / 2,
            variant,
            prefix: `${variant}-${count}`,
          }),
        );
      await Promise.all(
        fleets.map((fleet) =>
          fleet.holding(
            {
              [TypeUrl.Cluster]: CONVERGENCE_CONFIG.clusters,
              [TypeUrl.RouteConfiguration]: routeConfigurations,
            },
            300_000,
          ),
        ),
      );
      const connectMs = epochNow() - start;
      const connectCpu = {
        server: cpuSeconds(target.pid) - serverCpuBefore,
        fleet: fleets.reduce(
          (sum, fleet, i) => sum + cpuSeconds(fleet.pid) - (fleetCpuBefore[i] ?? 0),
          0,
        ),
      };
      connected = count;
      await settled(target.pid);
      const resident = residentBytes(target.pid);
      const change = async (): Promise<Change> => {
        round += 1;
        await target.prepare(round);
        await settled(target.pid);
        // Each fleet process collects its garbage at the mark (fleet-process.ts) and is let
        // finish: the load generator starts every timed change alike.
        await Promise.all(fleets.map((fleet) => fleet.mark()));
        await Promise.all(fleets.map((fleet) => settled(fleet.pid)));
        const cpuBefore = cpuSeconds(target.pid);
        const publishedAt = epochNow();
        await target.publish(round);
        const publishMs = epochNow() - publishedAt;
        const acked = await Promise.all(
          fleets.map((fleet) => fleet.acked(TypeUrl.RouteConfiguration, 120_000)),
        );
        const latencies = acked.flatMap(({ times }) => times.map((t) => t - publishedAt));
        await settled(target.pid);
        return { latencies, cpu: cpuSeconds(target.pid) - cpuBefore, publishMs };
      };
      // The first change after nodes connect runs code connecting did not (JIT warm-up: see
      // docs/benchmarks.md); it is measured and reported apart, not pooled with the rounds.
      const first = await change();
      const rounds: Change[] = [];
      for (let i = 0; i < ROUNDS_PER_COUNT; i++) rounds.push(await change());
      points.push({
        nodes: count,
        latency: percentiles(rounds.flatMap((r) => r.latencies)),
        roundP99: rounds.map((r) => percentiles(r.latencies).p99),
        cpuPerChange: percentiles(rounds.map((r) => r.cpu)).p50,
        firstChange: { latency: percentiles(first.latencies), cpu: first.cpu },
        residentBytes: resident,
        connectMs,
        connectCpu,
        publishMs: percentiles(rounds.map((r) => r.publishMs)),
      });
    }
    return points;
  } finally {
    await Promise.all(fleets.map((fleet) => fleet.close()));
  }
}

/** Round `round`'s one-route change, made in the draft (not published). */
export async function routeChange(api: Client<typeof ConfigService>, round: number): Promise<void> {
  const rc = await api.getRouteConfiguration({ name: CHANGED_ROUTE_CONFIGURATION });
  for (const vh of rc.virtualHosts)
    for (const route of vh.routes)
      if (route.name === CHANGED_ROUTE) route.matchValue = changedMatch(round);
  await api.updateRouteConfiguration(rc);
}

/** A real `switchyard serve` on its own PostgreSQL, `spec` published as version 1. */
export async function startServer(spec: ConfigSpec): Promise<{
  readonly database: TestDatabase;
  readonly serve: ServeProcess;
  readonly api: Client<typeof ConfigService>;
  stop(): Promise<void>;
}> {
  const database = await createTestDatabase();
  await database.prisma.$transaction((tx) => writeObjects(tx, spec), { timeout: 300_000 });
  const serve = await startServe(["--no-console"], {
    DATABASE_URL: database.url,
    SWITCHYARD_LOG_LEVEL: "error",
    SWITCHYARD_XDS_WORKERS: String(XDS_WORKERS),
  });
  const api = configApi(serve, await adminToken(serve.baseUrl));
  await api.publish({ message: "benchmark config" });
  return {
    database,
    serve,
    api,
    stop: async () => {
      await serve.stop();
      await database.drop();
    },
  };
}

async function switchyardConvergence(): Promise<{
  points: ConvergencePoint[];
  peakResident: number;
}> {
  const spec = largeConfigSpec(CONVERGENCE_CONFIG.clusters, CONVERGENCE_CONFIG.routes);
  const server = await startServer(spec);
  const pid = server.serve.child.pid ?? 0;
  try {
    const points = await convergence(
      {
        pid,
        xdsUrl: `http://127.0.0.1:${server.serve.xdsPort}`,
        prepare: (round) => routeChange(server.api, round),
        async publish(round) {
          // As the console and the CLI publish: the answer lists the changes by name only.
          await server.api.publish({
            message: `one-route change ${round}`,
            bodies: { omit: true },
          });
        },
      },
      spec.routeConfigurations.length,
    );
    return { points, peakResident: peakResidentBytes(pid) };
  } finally {
    await server.stop();
  }
}

async function floorConvergence(routeConfigurations: number): Promise<ConvergencePoint[]> {
  const rounds = NODE_COUNTS.length * (1 + ROUNDS_PER_COUNT);
  const floor = await forkReplayServer({ ...CONVERGENCE_CONFIG, rounds });
  try {
    return await convergence(
      {
        pid: floor.pid,
        xdsUrl: `http://127.0.0.1:${floor.port}`,
        prepare: async () => undefined,
        async publish(round) {
          await floor.push(round);
        },
      },
      routeConfigurations,
    );
  } finally {
    await floor.close();
  }
}

/** Bytes per node of an endpoint change to one of 1,000 clusters, SotW against Delta. */
async function endpointChangeBytes(): Promise<Figure[]> {
  const base = largeConfigSpec(BYTES_CONFIG.clusters, BYTES_CONFIG.routes);
  // One cluster with its endpoints inline (STATIC): an endpoint change is a CDS change there.
  const STATIC = `svc-${BYTES_CONFIG.clusters - 1}`;
  const spec: ConfigSpec = {
    ...base,
    clusters: base.clusters.map((c) => (c.name === STATIC ? { ...c, discoveryType: "STATIC" } : c)),
  };
  const server = await startServer(spec);
  const pid = server.serve.child.pid ?? 0;
  const xdsUrl = `http://127.0.0.1:${server.serve.xdsPort}`;
  const fleets = (["sotw", "delta"] as const).map((variant) =>
    forkFleet({ xdsUrl, count: BYTES_CONFIG.nodes, variant, countBytes: true }),
  );
  const figures: Figure[] = [];
  try {
    await Promise.all(
      fleets.map((fleet) =>
        fleet.holding(
          {
            [TypeUrl.Cluster]: spec.clusters.length,
            [TypeUrl.RouteConfiguration]: spec.routeConfigurations.length,
          },
          300_000,
        ),
      ),
    );
    const full = await Promise.all(fleets.map((f) => f.stats()));
    const [sotwFull, deltaFull] = full.map((s) => s.bytes / s.nodes);
    figures.push({
      name: `the whole config (${BYTES_CONFIG.clusters.toLocaleString("en")} clusters, ${BYTES_CONFIG.routes.toLocaleString("en")} routes), bytes per node: SotW / Delta`,
      value: (sotwFull ?? 0) / 1024,
      unit: "KiB",
      note: `Delta ${((deltaFull ?? 0) / 1024).toFixed(0)} KiB`,
    });
    for (const [cluster, typeUrl, label] of [
      ["svc-0", TypeUrl.ClusterLoadAssignment, "an EDS cluster (endpoints in EDS)"],
      [STATIC, TypeUrl.Cluster, "a STATIC cluster (endpoints inline in CDS)"],
    ] as const) {
      await settled(pid);
      await Promise.all(fleets.map((f) => f.mark()));
      const stored = await server.api.getCluster({ name: cluster });
      const endpoint = stored.localities[0]?.endpoints[0];
      if (endpoint === undefined) throw new Error(`${cluster} has no endpoint`);
      endpoint.port += 1;
      await server.api.updateCluster(stored);
      await server.api.publish({ message: `endpoint change on ${cluster}` });
      await Promise.all(fleets.map((f) => f.acked(typeUrl)));
      // Whatever follows the change (a SotW client's EDS after CDS, say) counts too.
      await settled(pid);
      const [sotw, delta] = (await Promise.all(fleets.map((f) => f.acked(typeUrl)))).map(
        ({ bytes }) => bytes.reduce((n, b) => n + b, 0) / bytes.length,
      );
      figures.push({
        name: `endpoint change on ${label} of ${BYTES_CONFIG.clusters.toLocaleString("en")}, bytes per node: SotW`,
        value: sotw ?? 0,
        unit: "B",
      });
      figures.push({
        name: `… the same change, bytes per node: Delta`,
        value: delta ?? 0,
        unit: "B",
      });
      figures.push({
        name: `… Delta as a share of SotW`,
        value: ((delta ?? 0) / (sotw ?? 1)) * 100,
        unit: "%",
        target: "< 2 %",
      });
    }
    return figures;
  } finally {
    await Promise.all(fleets.map((f) => f.close()));
    await server.stop();
  }
}

export async function fleetBench(): Promise<FleetResults> {
  const routeConfigurations = Math.ceil(CONVERGENCE_CONFIG.routes / 100);
  const ours = await switchyardConvergence();
  const floor = await floorConvergence(routeConfigurations);
  const figures: Figure[] = [
    {
      name: "xDS worker processes of the server (serve --xds-workers; 0: xDS in the main process)",
      value: XDS_WORKERS,
      unit: "",
    },
  ];
  for (const point of ours.points) {
    const base = floor.find((f) => f.nodes === point.nodes);
    const n = point.nodes.toLocaleString("en");
    for (const q of ["p50", "p99", "max"] as const) {
      const ratio = base === undefined ? Number.NaN : point.latency[q] / base.latency[q];
      figures.push({
        name: `${n} nodes: one-route change, publish → ACK ${q}`,
        value: point.latency[q],
        unit: "ms",
        note: `floor ${base?.latency[q].toFixed(0)} ms, ×${ratio.toFixed(1)}${q === "p99" ? " (target ≤ ×1.5)" : ""}`,
      });
    }
    // The pooled p99 above is the stricter figure: one slow round (a full collection in one
    // worker, say) sets it. Issue 25 states its goal on the median of the rounds.
    const roundsMedian = percentiles(point.roundP99).p50;
    const floorMedian = base === undefined ? Number.NaN : percentiles(base.roundP99).p50;
    figures.push({
      name: `${n} nodes: one-route change, p99 of each round, their median`,
      value: roundsMedian,
      unit: "ms",
      note: `rounds ${point.roundP99.map((v) => v.toFixed(0)).join(" / ")} ms; floor ${floorMedian.toFixed(0)} ms, ×${(roundsMedian / floorMedian).toFixed(1)} (target ≤ ×1.5)`,
    });
    figures.push({
      name: `${n} nodes: the Publish call answers, p50 / max`,
      value: point.publishMs.p50,
      unit: "ms",
      target: "< 200 ms",
      note: `max ${point.publishMs.max.toFixed(0)} ms`,
    });
    figures.push({
      name: `${n} nodes: server CPU per change`,
      value: point.cpuPerChange * 1000,
      unit: "ms",
      note: `floor ${((base?.cpuPerChange ?? 0) * 1000).toFixed(0)} ms, ×${(point.cpuPerChange / (base?.cpuPerChange ?? Number.NaN)).toFixed(1)}`,
    });
    const cold = point.firstChange;
    figures.push({
      name: `${n} nodes: the first change after they connect (not pooled), p99 / server CPU`,
      value: cold.latency.p99,
      unit: "ms",
      note: `floor ${base?.firstChange.latency.p99.toFixed(0)} ms, ×${(cold.latency.p99 / (base?.firstChange.latency.p99 ?? Number.NaN)).toFixed(1)}; CPU ${(cold.cpu * 1000).toFixed(0)} ms (floor ${((base?.firstChange.cpu ?? 0) * 1000).toFixed(0)})`,
    });
    figures.push({
      name: `${n} nodes connected: server RSS`,
      value: point.residentBytes / MB,
      unit: "MB",
      note: `floor ${((base?.residentBytes ?? 0) / MB).toFixed(0)} MB`,
    });
    figures.push({
      name: `${n} nodes: connected and synced in`,
      value: point.connectMs / 1000,
      unit: "s",
      note: `floor ${((base?.connectMs ?? 0) / 1000).toFixed(1)} s, ×${(point.connectMs / (base?.connectMs ?? Number.NaN)).toFixed(1)} (target ≤ ×1.2)`,
    });
    figures.push({
      name: `${n} nodes connecting: CPU of the server / of the load generator`,
      value: point.connectCpu.server,
      unit: "s",
      note: `load generator ${point.connectCpu.fleet.toFixed(1)} s; against the floor: ${(base?.connectCpu.server ?? 0).toFixed(1)} s / ${(base?.connectCpu.fleet ?? 0).toFixed(1)} s`,
    });
  }
  figures.push({
    name: `server peak RSS (${NODE_COUNTS.at(-1)?.toLocaleString("en")} nodes connecting, changes published)`,
    value: ours.peakResident / MB,
    unit: "MB",
  });
  const perNode = (points: readonly ConvergencePoint[]) => {
    const first = points[0];
    const last = points.at(-1);
    return first && last
      ? (last.residentBytes - first.residentBytes) / (last.nodes - first.nodes)
      : Number.NaN;
  };
  figures.push({
    name: `memory per connected node (RSS growth from ${NODE_COUNTS[0].toLocaleString("en")} to ${NODE_COUNTS.at(-1)?.toLocaleString("en")} nodes)`,
    value: perNode(ours.points) / 1024,
    unit: "KiB",
    target: "≤ 100 KiB",
    note: `floor ${(perNode(floor) / 1024).toFixed(0)} KiB`,
  });
  figures.push(...(await endpointChangeBytes()));
  // The simulated fleet sends its node in a stream's first request only; Envoy, by default, in
  // every request: what that costs the server per request, measured apart.
  figures.push(...requestParseFigures());
  // What a stream costs to open and to read from, apart from what it is sent (stream-setup.ts).
  figures.push(...(await streamSetupFigures()));
  return { switchyard: ours.points, floor, figures };
}
