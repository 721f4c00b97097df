/**
 * Issue 3's speed figures: validate + compile a fleet-sized config, and publish a one-route change
 * on it in a real PostgreSQL. Run with `npm run bench` (root); prints a table and writes JSON.
 */
import { createTestDatabase } from "@switchyard/db/testing";
import { compile, validate } from "@switchyard/snapshot";
import { largeConfigSpec, routeSpec } from "@switchyard/snapshot/fixtures";
import { writeObjects, writeRouteConfiguration } from "../src/store/draft-store.js";
import { SnapshotStore } from "../src/store/snapshot-store.js";

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

export async function configBench(clusters = 10_000, routes = 10_000): Promise<Figure[]> {
  const figures: Figure[] = [];
  const spec = largeConfigSpec(clusters, routes);
  const label = labelOf(clusters, routes);
  // The 10,000 first, in a fresh process (its first run is the cold one the target is about);
  // the 1,000 after it runs warm.
  figures.push(...(await compileFigures(clusters, "< 1000 ms")));
  figures.push(...(await compileFigures(1_000, undefined)));

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

    const publishRuns: number[] = [];
    for (let i = 0; i < 5; i++) {
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
        store.publishDraft({ message: `route change ${i}`, author: "bench" }),
      );
      publishRuns.push(ms);
    }
    figures.push({
      name: `publish a one-route change on ${label}, median of 5`,
      value: median(publishRuns),
      unit: "ms",
      target: "< 200 ms",
    });
  } finally {
    await database.drop();
  }
  return figures;
}
