import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import type { ConfigSpec } from "@switchyard/snapshot";
import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  endpointSpec,
  filterChainSpec,
  largeConfigSpec,
  localitySpec,
  nodeGroupSpec,
  routeConfigurationSpec,
  runtimeLayerSpec,
  socketListenerSpec,
  tlsSecretSpec,
  validationSecretSpec,
  virtualHostSpec,
} from "@switchyard/snapshot/fixtures";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readConfigSpec } from "./config-store.js";
import {
  MissingReferenceError,
  writeCluster,
  writeListener,
  writeNodeGroup,
  writeObjects,
  writeRouteConfiguration,
} from "./draft-store.js";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(() => database.drop());

function write(spec: Partial<ConfigSpec>): Promise<void> {
  return database.prisma.$transaction((tx) => writeObjects(tx, spec), { timeout: 60_000 });
}

function read(): Promise<ConfigSpec> {
  return database.prisma.$transaction((tx) => readConfigSpec(tx), { timeout: 60_000 });
}

/** `spec` as readConfigSpec returns it: objects by name (node groups' members too). */
function asRead(spec: ConfigSpec): ConfigSpec {
  const byName = <T extends { name: string }>(items: readonly T[]) =>
    [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    clusters: byName(spec.clusters),
    listeners: byName(spec.listeners),
    routeConfigurations: byName(spec.routeConfigurations),
    nodeGroups: byName(spec.nodeGroups).map((group) => ({
      ...group,
      listeners: [...group.listeners].sort(),
      clusters: [...group.clusters].sort(),
    })),
    runtimeLayers: byName(spec.runtimeLayers),
    secrets: byName(spec.secrets),
  };
}

/** Strings a text[] column must keep as they are. */
const awkward = ['a "quoted", {braced} name', "back\\slash", "NULL", "", "ünïcødé ✓"];

/** A STATIC cluster setting every optional column, so each one is written and read back. */
const staticCluster = clusterSpec("static-backend", [], {
  discoveryType: "STATIC",
  lbPolicy: "RING_HASH",
  connectTimeoutMs: 250,
  http2: true,
  healthChecks: [{ timeout: "1s", interval: "5s", httpHealthCheck: { path: "/healthz" } }],
  circuitBreakers: { thresholds: [{ maxConnections: 100 }] },
  outlierDetection: { consecutive5xx: 5 },
  tlsSecretName: "backend-tls",
  edsServiceName: "backend-eds",
  extra: { dnsLookupFamily: "V4_ONLY" },
  assignmentExtra: { policy: { overprovisioningFactor: 140 } },
  localities: [
    localitySpec([endpointSpec("10.9.0.1", 9000, { weight: 3, healthStatus: "HEALTHY" })], {
      region: "us-east-1",
      zone: "us-east-1a",
      subZone: "rack-7",
      weight: null,
      priority: 0,
      extra: { proximity: 1 },
    }),
    localitySpec(
      [
        endpointSpec("10.9.1.1", 9000, { healthStatus: "DRAINING", extra: { hostname: "b1" } }),
        endpointSpec("10.9.1.2", 9001),
      ],
      { region: "us-east-1", zone: "us-east-1b", priority: 1 },
    ),
  ],
});

const edgeListener = socketListenerSpec("edge", 8443, "routes-0", {
  filterChains: [
    filterChainSpec({
      name: "tls",
      serverNames: awkward,
      tlsSecretName: "edge-tls",
      statPrefix: "edge_tls",
      rdsRouteConfigName: "routes-0",
      httpFilters: [{ name: "envoy.filters.http.router" }],
      accessLog: [{ name: "envoy.access_loggers.stdout" }],
      hcmExtra: { useRemoteAddress: true },
      extra: { transportSocketConnectTimeout: "2s" },
    }),
    filterChainSpec({ name: "plain", inlineRouteConfigName: "routes-1" }),
  ],
});

const edgeNodes = nodeGroupSpec("edge-nodes", {
  isDefault: true,
  priority: 10,
  nodeIds: awkward,
  nodeClusters: ["edge"],
  nodeMetadata: { role: "edge", "dotted.key": 'a "value"' },
  listeners: ["edge", "listener-0"],
  clusters: ["static-backend", "svc-0", "svc-1"],
  maxResponseBytes: 8 << 20,
});

function fullSpec(): ConfigSpec {
  const large = largeConfigSpec(50, 200);
  const [first, ...rest] = large.routeConfigurations;
  if (!first) throw new Error("largeConfigSpec gave no route configuration");
  return {
    clusters: [...large.clusters, staticCluster],
    listeners: [...large.listeners, edgeListener],
    routeConfigurations: [
      { ...first, virtualHosts: [...first.virtualHosts, virtualHostSpec("odd", awkward, [])] },
      ...rest,
    ],
    nodeGroups: [edgeNodes],
    runtimeLayers: [
      runtimeLayerSpec("faults", {
        "fault.http.abort.abort_percent": 10.5,
        "envoy.reloadable_features.example": false,
        "tracing.label": 'a "quoted" value',
      }),
    ],
    // The store keeps what it is given: PEM and sealed text are checked by the API, not here.
    secrets: [
      tlsSecretSpec("edge-cert", "chain PEM", "sy1.keyid.iv.tag.data"),
      validationSecretSpec("upstream-ca", "CA PEM", ["a.example", "b.example"]),
    ],
  };
}

async function revisions(): Promise<Record<string, number>> {
  const { prisma } = database;
  const select = { select: { name: true, revision: true } } as const;
  const rows = [
    ...(await prisma.cluster.findMany(select)).map((r) => ({ ...r, name: `cluster/${r.name}` })),
    ...(await prisma.listener.findMany(select)).map((r) => ({ ...r, name: `listener/${r.name}` })),
    ...(await prisma.routeConfiguration.findMany(select)).map((r) => ({
      ...r,
      name: `routeConfiguration/${r.name}`,
    })),
    ...(await prisma.nodeGroup.findMany(select)).map((r) => ({
      ...r,
      name: `nodeGroup/${r.name}`,
    })),
  ];
  return Object.fromEntries(rows.map((r) => [r.name, r.revision]));
}

describe("writeObjects", () => {
  it("stores a spec so that readConfigSpec gives back exactly that spec", async () => {
    const spec = fullSpec();

    await write(spec);

    expect(await read()).toEqual(asRead(spec));
  });

  it("replaces a rewritten object whole: none of its old children remain", async () => {
    await write(fullSpec());
    const smaller = {
      clusters: [
        clusterSpec("static-backend", [endpointSpec("10.9.9.9", 9999)], {
          discoveryType: "STATIC",
        }),
      ],
      routeConfigurations: [routeConfigurationSpec("routes-0", "static-backend")],
      listeners: [apiListenerSpec("edge", "routes-0")],
      nodeGroups: [nodeGroupSpec("edge-nodes", { listeners: ["edge"] })],
    };

    await write(smaller);

    const stored = await read();
    expect(stored.clusters.find((c) => c.name === "static-backend")).toEqual(smaller.clusters[0]);
    expect(stored.routeConfigurations.find((r) => r.name === "routes-0")).toEqual(
      smaller.routeConfigurations[0],
    );
    expect(stored.listeners.find((l) => l.name === "edge")).toEqual(smaller.listeners[0]);
    expect(stored.nodeGroups).toEqual(smaller.nodeGroups);
    // Every row left belongs to a stored object's spec: the replaced children are gone.
    const { prisma } = database;
    const count = <T>(items: readonly T[], children: (item: T) => number) =>
      items.reduce((sum, item) => sum + children(item), 0);
    expect(await prisma.locality.count()).toBe(count(stored.clusters, (c) => c.localities.length));
    expect(await prisma.endpoint.count()).toBe(
      count(stored.clusters, (c) => count(c.localities, (l) => l.endpoints.length)),
    );
    expect(await prisma.virtualHost.count()).toBe(
      count(stored.routeConfigurations, (r) => r.virtualHosts.length),
    );
    expect(await prisma.route.count()).toBe(
      count(stored.routeConfigurations, (r) => count(r.virtualHosts, (v) => v.routes.length)),
    );
    expect(await prisma.filterChain.count()).toBe(
      count(stored.listeners, (l) => l.filterChains.length),
    );
    expect(await prisma.nodeGroupCluster.count()).toBe(0);
  });

  it("leaves the objects not named in a write as they were, rows and all", async () => {
    await write(fullSpec());
    const { prisma } = database;
    const untouched = { where: { name: { not: "svc-0" } }, orderBy: { name: "asc" } } as const;
    const clustersBefore = await prisma.cluster.findMany(untouched);
    const localitiesBefore = await prisma.locality.findMany({ orderBy: { id: "asc" } });
    const listenersBefore = await prisma.listener.findMany({ orderBy: { name: "asc" } });

    await write({ clusters: [clusterSpec("svc-0", [endpointSpec("10.1.1.1", 1)])] });

    expect(await prisma.cluster.findMany(untouched)).toEqual(clustersBefore);
    const svc0 = await prisma.cluster.findUniqueOrThrow({ where: { name: "svc-0" } });
    expect(
      await prisma.locality.findMany({
        where: { clusterId: { not: svc0.id } },
        orderBy: { id: "asc" },
      }),
    ).toEqual(localitiesBefore.filter((l) => l.clusterId !== svc0.id));
    expect(await prisma.listener.findMany({ orderBy: { name: "asc" } })).toEqual(listenersBefore);
    const stored = await read();
    expect({ ...stored, clusters: stored.clusters.filter((c) => c.name !== "svc-0") }).toEqual(
      asRead({
        ...fullSpec(),
        clusters: fullSpec().clusters.filter((c) => c.name !== "svc-0"),
      }),
    );
  });

  it("keeps a replaced cluster or listener in the node groups that list it", async () => {
    await write(fullSpec());

    await write({ clusters: [clusterSpec("svc-0")], listeners: [apiListenerSpec("edge", "x")] });

    const [group] = (await read()).nodeGroups;
    expect(group?.clusters).toEqual(["static-backend", "svc-0", "svc-1"]);
    expect(group?.listeners).toEqual(["edge", "listener-0"]);
  });

  it("increments an object's revision on every write, and sets its updatedAt", async () => {
    const spec = fullSpec();
    await write(spec);
    const first = await revisions();
    expect(new Set(Object.values(first))).toEqual(new Set([1]));
    const before = await database.prisma.cluster.findUniqueOrThrow({ where: { name: "svc-1" } });

    await write({ clusters: [clusterSpec("svc-1")], nodeGroups: spec.nodeGroups });
    await database.prisma.$transaction(async (tx) => {
      await writeCluster(tx, clusterSpec("svc-1"));
      await writeListener(tx, edgeListener);
      await writeRouteConfiguration(tx, routeConfigurationSpec("routes-1", "svc-1"));
      await writeNodeGroup(tx, edgeNodes);
    });

    const after = await database.prisma.cluster.findUniqueOrThrow({ where: { name: "svc-1" } });
    expect(after.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
    expect(after.createdAt).toEqual(before.createdAt);
    expect(await revisions()).toEqual({
      ...first,
      "cluster/svc-1": 3,
      "listener/edge": 2,
      "routeConfiguration/routes-1": 2,
      "nodeGroup/edge-nodes": 3,
    });
  });

  it("writes a name given twice in one write once, as its last occurrence", async () => {
    await write({
      clusters: [clusterSpec("twice", [endpointSpec("10.0.0.1", 1)]), clusterSpec("twice")],
    });

    expect((await read()).clusters).toEqual([clusterSpec("twice")]);
    expect(await revisions()).toEqual({ "cluster/twice": 1 });
  });

  it("fails a node group naming a missing listener or cluster with MissingReferenceError naming each, and writes nothing", async () => {
    const group = nodeGroupSpec("edge-nodes", {
      listeners: ["edge", "no-such-listener"],
      clusters: ["static-backend", "no-such-cluster"],
    });

    const failed = write({
      clusters: [staticCluster],
      listeners: [edgeListener],
      nodeGroups: [group],
    });

    await expect(failed).rejects.toThrow(MissingReferenceError);
    await expect(failed).rejects.toThrow(
      'node group "edge-nodes" refers to listener "no-such-listener", cluster "no-such-cluster", which do not exist',
    );
    expect(await read()).toEqual(configSpec());
  });

  it("stores a fleet-sized config (10k clusters, 10k routes) in seconds, not minutes", async () => {
    const spec = largeConfigSpec(10_000, 10_000);

    const started = performance.now();
    await write(spec);
    const ms = performance.now() - started;

    console.log(`stored largeConfigSpec(10_000, 10_000) in ${Math.round(ms)} ms`);
    // The benchmark measures the speed (about 2 s); this bound only catches a return to writing
    // object by object (about 50 s).
    expect(ms).toBeLessThan(20_000);
    const { prisma } = database;
    expect(await prisma.cluster.count()).toBe(10_000);
    expect(await prisma.endpoint.count()).toBe(30_000);
    expect(await prisma.route.count()).toBe(10_000);
  });
});
