/**
 * Issue 3's speed figures: validate + compile a fleet-sized config, and publish a one-route change
 * on it in a real PostgreSQL. Run with `npm run bench` (root); prints a table and writes JSON.
 */
import { createTestDatabase } from "@switchyard/db/testing";
import {
  createRouteTestRunner,
  gateOnRouteTests,
  putRouteTest,
  SnapshotStore,
  writeCluster,
  writeObjects,
  writeRouteConfiguration,
} from "@switchyard/server/testing";
import { compile, registerEndpoints, validate } from "@switchyard/snapshot";
import { largeConfigSpec, routeSpec } from "@switchyard/snapshot/fixtures";

export interface Figure {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly target?: string | undefined;
  readonly note?: string | undefined;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timed<T>(work: () => Promise<T> | T): Promise<[T, number]> {
  const start = performance.now();
  const result = await work();
  return [result, performance.now() - start];
}

const labelOf = (clusters: number, routes: number) =>
  `${clusters.toLocaleString("en")} clusters + ${routes.toLocaleString("en")} routes`;

/** Validate + compile a config of `size` five times: the first run (cold), the median of the rest. */
async function compileFigures(size: number, target: string | undefined): Promise<Figure[]> {
  const spec = largeConfigSpec(size, size);
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const [, ms] = await timed(() => {
      const compiled = compile(spec);
      const report = validate(spec, { compiled });
      if (!report.ok) throw new Error(`benchmark config is invalid: ${report.issues[0]?.message}`);
    });
    runs.push(ms);
  }
  const label = labelOf(size, size);
  return [
    {
      name: `validate + compile ${label}, first run`,
      value: runs[0] ?? Number.NaN,
      unit: "ms",
      target,
    },
    {
      name: `validate + compile ${label}, median of next 4`,
      value: median(runs.slice(1)),
      unit: "ms",
      target,
    },
  ];
}

/**
 * Endpoint registration (ConfigService.SetEndpoints' transaction: one cluster's endpoints applied
 * on top of the latest version and published) on a config of `size` clusters and routes, beside
 * its floor in the same run: publishing the same one-cluster change made in the draft.
 */
export async function endpointFigures(size: number): Promise<Figure[]> {
  const spec = largeConfigSpec(size, size);
  const database = await createTestDatabase();
  try {
    await database.prisma.$transaction((tx) => writeObjects(tx, spec), { timeout: 600_000 });
    const store = new SnapshotStore(database.prisma);
    await store.publishDraft({ message: "initial", author: "bench" });
    const endpoint = (i: number) => ({
      address: `10.9.${Math.floor(i / 250)}.${i % 250}`,
      port: 8080,
      weight: null,
      healthStatus: "HEALTHY" as const,
      region: "",
      zone: "",
      subZone: "",
      priority: 0,
    });
    const registrations: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < 11; i++) {
      const name = spec.clusters[(i * 37) % spec.clusters.length]?.name ?? "";
      const [, ms] = await timed(() =>
        store.apply({
          author: "bench",
          message: `endpoints add ${name}`,
          prepare: async (_tx, latest) => {
            const cluster = latest.clusters.find((c) => c.name === name);
            if (!cluster) throw new Error(`no cluster ${name}`);
            return { clusters: [registerEndpoints(cluster, "add", [endpoint(i)])] };
          },
          afterWrite: async () => {},
        }),
      );
      if (i > 0) registrations.push(ms);
      // The floor: the same kind of change, made in the draft and published from it.
      const other = spec.clusters[(i * 37 + 11) % spec.clusters.length];
      if (!other) throw new Error("no cluster");
      const changed = registerEndpoints(other, "add", [endpoint(500 + i)]);
      await database.prisma.$transaction((tx) => writeCluster(tx, changed));
      const [, floorMs] = await timed(() =>
        store.publishDraft({ message: `draft change ${i}`, author: "bench" }),
      );
      if (i > 0) floor.push(floorMs);
    }
    const label = labelOf(size, size);
    const registration = median(registrations);
    const published = median(floor);
    return [
      {
        name: `register one cluster's endpoints on ${label} (SetEndpoints' transaction), median of 10`,
        value: registration,
        unit: "ms",
        target: "< 100 ms",
        note: `×${(registration / published).toFixed(1)} the floor`,
      },
      {
        name: `floor: publish the same one-cluster change from the draft on ${label}, median of 10`,
        value: published,
        unit: "ms",
      },
    ];
  } finally {
    await database.drop();
  }
}

export async function configBench(clusters = 10_000, routes = 10_000): Promise<Figure[]> {
  const figures: Figure[] = [];
  const spec = largeConfigSpec(clusters, routes);
  const label = labelOf(clusters, routes);
  // The 10,000 first, in a fresh process (its first run is the cold one the target is about);
  // the 1,000 after it runs warm.
  figures.push(...(await compileFigures(clusters, "< 1000 ms")));
  figures.push(...(await compileFigures(1_000, undefined)));
  figures.push(...(await endpointFigures(1_000)));

  const database = await createTestDatabase();
  try {
    const [, loadMs] = await timed(() =>
      database.prisma.$transaction((tx) => writeObjects(tx, spec), {
        timeout: 600_000,
        maxWait: 10_000,
      }),
    );
    figures.push({
      name: `store ${label} in the draft (one transaction)`,
      value: loadMs,
      unit: "ms",
    });
    const store = new SnapshotStore(database.prisma);
    const [, firstMs] = await timed(() =>
      store.publishDraft({ message: "initial", author: "bench" }),
    );
    figures.push({ name: `publish ${label} (first version)`, value: firstMs, unit: "ms" });

    /** Publishes a one-route change (round `i`), through `authorize` when given. */
    const publishChange = async (
      i: number,
      authorize?: Parameters<typeof store.publishDraft>[0]["authorize"],
    ): Promise<number> => {
      const routeConfiguration = spec.routeConfigurations[i % spec.routeConfigurations.length];
      if (!routeConfiguration) throw new Error("no route configuration");
      const [virtualHost] = routeConfiguration.virtualHosts;
      if (!virtualHost) throw new Error("no virtual host");
      const changed = {
        ...routeConfiguration,
        virtualHosts: [
          {
            ...virtualHost,
            routes: [
              routeSpec(`svc-${i + 1}`, { name: `changed-${i}`, matchValue: `/changed/${i}/` }),
              ...virtualHost.routes.slice(1),
            ],
          },
        ],
      };
      await database.prisma.$transaction((tx) => writeRouteConfiguration(tx, changed));
      const [, ms] = await timed(() =>
        store.publishDraft({ message: `route change ${i}`, author: "bench", authorize }),
      );
      return ms;
    };
    const publishRuns: number[] = [];
    for (let i = 0; i < 5; i++) publishRuns.push(await publishChange(i));
    const floor = median(publishRuns);
    figures.push({
      name: `publish a one-route change on ${label}, median of 5`,
      value: floor,
      unit: "ms",
      target: "< 200 ms",
    });

    // Route tests gating the publish (issue 28): 10 tests of 10 cases, on 10 route
    // configurations, run on the configuration each publish is about to publish, in the worker
    // thread the server runs them in (the configuration copied to it each time).
    for (let c = 0; c < 10; c++) {
      const cases = Array.from({ length: 10 }, (_, k) => {
        const n = c * 100 + 1 + 4 * k; // a PATH route of largeConfigSpec: /exact/N → svc-N
        return `- test_name: exact ${n}\n  input: { authority: app-${c}.example.com, path: /exact/${n}, method: GET }\n  validate: { cluster_name: svc-${n} }\n`;
      });
      await putRouteTest(database.prisma, {
        name: `pins-${c}`,
        teamId: null,
        content: `tests:\n${cases.join("")}`,
        listener: "",
        routeConfiguration: `routes-${c}`,
        author: "bench",
      });
    }
    const runner = createRouteTestRunner();
    const gatedRuns: number[] = [];
    try {
      for (let i = 5; i < 10; i++)
        gatedRuns.push(
          await publishChange(
            i,
            async (tx, changes, draft, latestVersion) =>
              (await gateOnRouteTests(tx, runner, changes, draft, latestVersion, "")).notes,
          ),
        );
    } finally {
      await runner.close();
    }
    const gated = median(gatedRuns);
    figures.push({
      name: `publish a one-route change on ${label} running 100 route test cases, median of 5`,
      value: gated,
      unit: "ms",
      target: "< 200 ms",
      note: `×${(gated / floor).toFixed(2)} the same publish without route tests`,
    });
  } finally {
    await database.drop();
  }
  return figures;
}
