/**
 * Faults under load, against a real `switchyard serve` process on a real database (project issue
 * 8): 1,000 proxies reconnecting at once, and a proxy that stops reading. Each ends by checking
 * that nothing was lost: every node converged on the latest version, as the server's status API
 * reports it, and every published version still listed. Liveness bounds only: speed is measured
 * by `npm run bench`.
 */
import type { Client } from "@connectrpc/connect";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import type { DiscoveryResponse } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { type ConfigService, LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  NodeConvergenceState,
  type NodeSummary,
  NodeTypeStatus,
} from "@switchyard/proto/switchyard/v1/status_pb";
import {
  adminToken,
  bearer,
  edsCluster,
  openRawAds,
  type RawAdsStream,
  type StatusClient,
  shopListener,
  shopRoutes,
  statusClient,
  until,
  writeObjects,
} from "@switchyard/server/testing";
import { TypeUrl } from "@switchyard/snapshot";
import { largeConfigSpec } from "@switchyard/snapshot/fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forkFleet, type RemoteFleet } from "../bench/fleet-process.js";
import { configApi, type ServeProcess, startServe } from "./processes.js";
import { probeServer, slope } from "./server-probe.js";

const MB = 1024 ** 2;
const GB = 1024 ** 3;
/** The stated memory bound of both tests: the server's peak resident set. */
const RSS_BOUND = 1 * GB;
/** An API call slower than this during a fault counts as the server not answering. */
const LIVENESS_BOUND_MS = 15_000;

/** Every published version, newest first, as the API lists them. */
async function publishedVersions(api: Client<typeof ConfigService>): Promise<number[]> {
  const { snapshots } = await api.listSnapshots({ limit: 500 });
  return snapshots.map((s) => Number(s.version));
}

async function publish(api: Client<typeof ConfigService>, message: string): Promise<number> {
  return Number((await api.publish({ message })).snapshot?.version ?? 0);
}

/** Every node listed, page by page (ListNodes answers a page at a time). */
async function allNodes(status: StatusClient): Promise<NodeSummary[]> {
  const nodes: NodeSummary[] = [];
  let pageToken = "";
  do {
    const page = await status.listNodes({ pageToken, pageSize: 1000 });
    nodes.push(...page.nodes);
    pageToken = page.nextPageToken;
  } while (pageToken !== "");
  return nodes;
}

/**
 * Waits until every node of `ids` is ACKED on `version` (GetConvergence) and listed connected
 * with every type it requested SYNCED (ListNodes): the server's own account of convergence.
 */
async function convergedOn(
  status: StatusClient,
  version: number,
  ids: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const wanted = new Set(ids);
  await until(
    () => status.getConvergence({ version: BigInt(version) }),
    (c) =>
      c.nodes.filter((n) => wanted.has(n.nodeId) && n.state === NodeConvergenceState.ACKED)
        .length === wanted.size,
    `not every node ACKED version ${version}`,
    timeoutMs,
  );
  await until(
    () => allNodes(status),
    (nodes) => {
      const listed = nodes.filter((n) => wanted.has(n.id));
      return (
        listed.length === wanted.size &&
        listed.every(
          (n) =>
            n.connected &&
            n.types.length > 0 &&
            n.types.every((t) => t.status === NodeTypeStatus.SYNCED),
        )
      );
    },
    `not every node listed connected and SYNCED on version ${version}`,
    timeoutMs,
  );
}

/** The node ids of a fleet of `count` (bench/fleet.ts names them so). */
const fleetIds = (variant: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${variant}-${String(i).padStart(4, "0")}`);

const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;

describe("1,000 proxies dropped and reconnected at once, on a real server", () => {
  const CLUSTERS = 100;
  const ROUTES = 1_000;
  /** Half the fleet speaks SotW, half Delta; each half in a process of its own. */
  const PER_VARIANT = 500;

  let database: TestDatabase;
  let serve: ServeProcess;
  let api: Client<typeof ConfigService>;
  let status: StatusClient;
  const fleets: RemoteFleet[] = [];
  const ids = [...fleetIds("sotw", PER_VARIANT), ...fleetIds("delta", PER_VARIANT)];
  const spec = largeConfigSpec(CLUSTERS, ROUTES);

  beforeAll(async () => {
    database = await createTestDatabase();
    // The draft is stored before the server starts (one transaction); it is published through
    // the API.
    await database.prisma.$transaction((tx) => writeObjects(tx, spec), { timeout: 120_000 });
    serve = await startServe(["--no-console"], { DATABASE_URL: database.url });
    const token = await adminToken(serve.baseUrl);
    api = configApi(serve, token);
    status = statusClient(serve.baseUrl, [bearer(token)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(fleets.map((f) => f.close()));
    await serve?.stop();
    await database?.drop();
  });

  it("the API answers throughout the storm, memory stays under 1 GB, and every node ends SYNCED on the version published during it", async () => {
    const first = await publish(api, `${CLUSTERS} clusters, ${ROUTES} routes`);
    const xdsUrl = `http://127.0.0.1:${serve.xdsPort}`;
    fleets.push(
      forkFleet({ xdsUrl, count: PER_VARIANT, variant: "sotw" }),
      forkFleet({ xdsUrl, count: PER_VARIANT, variant: "delta" }),
    );
    const holdingAll = (clusters: number) =>
      Promise.all(
        fleets.map((f) =>
          f.holding(
            {
              [TypeUrl.Cluster]: clusters,
              [TypeUrl.RouteConfiguration]: spec.routeConfigurations.length,
            },
            90_000,
          ),
        ),
      );
    await holdingAll(CLUSTERS);
    await convergedOn(status, first, ids, 60_000);

    // Every connection dropped: the server must see every node go.
    await Promise.all(fleets.map((f) => f.closeSome(PER_VARIANT)));
    await until(
      () => status.listNodes({ connectedOnly: true }),
      (r) => r.nodes.length === 0,
      "the server still lists nodes connected after every connection dropped",
      30_000,
    );

    // All of them back at once, and a publish in the middle of it.
    const probe = probeServer(serve, () => api.listSnapshots({ limit: 1 }), LIVENESS_BOUND_MS);
    const stormStart = Date.now();
    await Promise.all(fleets.map((f) => f.reconnect()));
    await api.createCluster(
      edsCluster("published-during-the-storm", "10.200.0.1:8080", {
        lbPolicy: LbPolicy.ROUND_ROBIN,
        connectTimeoutMs: 1000,
      }),
    );
    const second = await publish(api, "during the storm");
    await holdingAll(CLUSTERS + 1);
    const stormEnd = Date.now();
    const { calls, slowestMs, peakResidentBytes } = await probe.stop();

    // Calls started and answered while the storm was in progress: the server stayed responsive.
    const during = calls.filter((c) => c.start >= stormStart && c.end <= stormEnd);
    expect(during.length).toBeGreaterThan(0);
    console.info(
      `reconnect storm: ${ids.length} nodes held version ${second} ${stormEnd - stormStart} ms after reconnecting; ` +
        `${during.length} API calls answered during it, slowest ${slowestMs} ms; peak RSS ${mb(peakResidentBytes)}`,
    );
    expect(peakResidentBytes).toBeLessThan(RSS_BOUND);

    await convergedOn(status, second, ids, 60_000);
    expect(await publishedVersions(api)).toEqual([second, first]);
  }, 240_000);
});

describe("a proxy that stops reading while versions are published, on a real server", () => {
  /** Clusters of ~600 KB each (a metadata blob): CDS responses of ~3.6 MB, under gRPC's 4 MB. */
  const BIG_CLUSTERS = 6;
  const BLOB_BYTES = 600_000;
  const VERSION_BYTES = BIG_CLUSTERS * BLOB_BYTES;
  /** Versions published while the slow proxy is stuck. */
  const STUCK_VERSIONS = 24;
  /** The others: a few SotW and Delta proxies, each fleet in a process of its own. */
  const PER_VARIANT = 2;
  const SLOW = "slow-reader";

  let database: TestDatabase;
  let serve: ServeProcess;
  let api: Client<typeof ConfigService>;
  let status: StatusClient;
  const fleets: RemoteFleet[] = [];
  let slow: RawAdsStream | undefined;
  const others = [...fleetIds("sotw", PER_VARIANT), ...fleetIds("delta", PER_VARIANT)];

  const marker = (version: number) => `published-as-${version};`;
  /** Cluster `i` as published in `version`: its blob names the version. */
  const bigCluster = (i: number, version: number) =>
    edsCluster(`big-${i}`, `10.100.0.${i + 1}:8080`, {
      lbPolicy: LbPolicy.ROUND_ROBIN,
      connectTimeoutMs: 1000,
      extra: {
        metadata: {
          filterMetadata: {
            "switchyard.faults": { blob: `${marker(version)}${"x".repeat(BLOB_BYTES)}` },
          },
        },
      },
    });
  /** The versions a CDS response's clusters were published in. */
  const versionsIn = (response: DiscoveryResponse): number[] => [
    ...new Set(
      response.resources.map((r) =>
        Number(/published-as-(\d+);/.exec(Buffer.from(r.value).toString("latin1"))?.[1]),
      ),
    ),
  ];
  const ack = (stream: RawAdsStream, response: DiscoveryResponse) =>
    stream.send({
      typeUrl: TypeUrl.Cluster,
      versionInfo: response.versionInfo,
      responseNonce: response.nonce,
    });

  beforeAll(async () => {
    database = await createTestDatabase();
    serve = await startServe(["--no-console"], { DATABASE_URL: database.url });
    const token = await adminToken(serve.baseUrl);
    api = configApi(serve, token);
    status = statusClient(serve.baseUrl, [bearer(token)]);
  }, 120_000);

  afterAll(async () => {
    slow?.close();
    await Promise.all(fleets.map((f) => f.close()));
    await serve?.stop();
    await database?.drop();
  });

  it("the others converge on every version, memory does not grow with the versions, and the slow proxy then gets the latest version, not each one", async () => {
    for (let i = 0; i < BIG_CLUSTERS; i++) await api.createCluster(bigCluster(i, 1));
    // A listener too, so that every type the others request has something to converge on.
    await api.createRouteConfiguration(shopRoutes("big-0"));
    await api.createListener(shopListener());
    const first = await publish(api, "big clusters");
    const xdsUrl = `http://127.0.0.1:${serve.xdsPort}`;
    fleets.push(
      forkFleet({ xdsUrl, count: PER_VARIANT, variant: "sotw" }),
      forkFleet({ xdsUrl, count: PER_VARIANT, variant: "delta" }),
    );

    // The slow proxy (wildcard CDS, on a connection of its own) takes the first version like
    // any other, then stops reading.
    slow = openRawAds(xdsUrl);
    slow.send({ node: { id: SLOW, cluster: "faults" }, typeUrl: TypeUrl.Cluster });
    const initial = await slow.next(30_000);
    expect(versionsIn(initial)).toEqual([first]);
    ack(slow, initial);
    await Promise.all(
      fleets.map((f) =>
        f.holding({ [TypeUrl.Cluster]: BIG_CLUSTERS, [TypeUrl.RouteConfiguration]: 1 }, 60_000),
      ),
    );
    await convergedOn(status, first, [...others, SLOW], 30_000);
    slow.pause();
    const receivedWhenPaused = slow.receivedBytes;

    // Versions in a row, each large enough to fill the slow proxy's flow-control windows many
    // times over. The server's memory outside the V8 heap (where encoded resources and the
    // buffers of responses being written live) is sampled all along, each sample noted with the
    // number of versions published while the proxy was stuck.
    const probe = probeServer(serve, () => api.listSnapshots({ limit: 1 }), LIVENESS_BOUND_MS);
    const external: Array<[number, number]> = [];
    const published = [first];
    for (let n = 1; n <= STUCK_VERSIONS; n++) {
      const from = probe.memory.length;
      const version = first + n;
      for (let i = 0; i < BIG_CLUSTERS; i++) await api.updateCluster(bigCluster(i, version));
      expect(await publish(api, `version ${version}`)).toBe(version);
      published.push(version);
      // The others are not held up by the stuck stream (a liveness bound, not a speed one).
      await convergedOn(status, version, others, 30_000);
      await until(
        async () => probe.memory.length,
        (length) => length > from,
        "no memory sample",
      );
      for (const m of probe.memory.slice(from)) external.push([n, m.externalBytes]);
    }
    const { slowestMs, peakResidentBytes } = await probe.stop();
    const latest = published.at(-1) as number;

    // Flow control held: less than one cluster of the next response reached the slow proxy.
    const stuckBytes = slow.receivedBytes - receivedWhenPaused;
    expect(stuckBytes).toBeLessThan(BLOB_BYTES);
    const convergence = await status.getConvergence({ version: BigInt(latest) });
    expect(convergence.nodes.find((n) => n.nodeId === SLOW)?.state).toBe(
      NodeConvergenceState.PENDING,
    );

    // Memory bounded: a server that kept each version for the stuck stream (or wrote each one
    // into its buffers) grows by VERSION_BYTES or more a version; the trend over the run must
    // stay below that. (Measured on 2 cores: +10 MB a version when the stream loop queued every
    // snapshot; under +1 MB since it keeps only the latest.)
    const growth = slope(external);
    console.info(
      `slow proxy: ${STUCK_VERSIONS} versions of ${(VERSION_BYTES / MB).toFixed(1)} MB published while it was stuck (${stuckBytes} bytes of them reached it); ` +
        `external memory ${(growth / MB).toFixed(2)} MB a version over ${external.length} samples (bound ${(VERSION_BYTES / MB).toFixed(2)}); ` +
        `slowest API call ${slowestMs} ms; peak RSS ${mb(peakResidentBytes)}`,
    );
    expect(growth).toBeLessThan(VERSION_BYTES);
    expect(peakResidentBytes).toBeLessThan(RSS_BOUND);

    // Reading again: the response that was in flight when it stopped, then the latest version,
    // and nothing in between.
    slow.resume();
    const inFlight = await slow.next(30_000);
    expect(versionsIn(inFlight)).toEqual([first + 1]);
    ack(slow, inFlight);
    const caughtUp = await slow.next(30_000);
    expect(versionsIn(caughtUp)).toEqual([latest]);
    ack(slow, caughtUp);
    await expect(slow.next(1_000)).rejects.toThrow(/no response within/);

    await convergedOn(status, latest, [...others, SLOW], 30_000);
    expect(await publishedVersions(api)).toEqual([...published].reverse());
  }, 240_000);
});
