import { durationMs } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { LoadBreakdown } from "@switchyard/proto/switchyard/v1/status_pb";
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { CLIENT_TEXT_LIMITS } from "@switchyard/xds";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LRS_NODE_ID_MAX_BYTES } from "../src/load/report-bounds.js";
import { edsCluster } from "../src/testing/api-objects.js";
import { bearer, type StatusClient, statusClient } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { openLrs } from "../src/testing/lrs-stream.js";
import { loadReportingCluster, shopListener, shopRoutes, until } from "../src/testing/shop.js";

describe("load reporting (LRS) on the xDS port", () => {
  let harness: Harness;
  let status: StatusClient;
  let blue1: EchoBackend;
  let blue2: EchoBackend;
  let client: XdsEchoClient;

  const loadOf = (by: LoadBreakdown, nodeId = "") =>
    status.getLoad({ cluster: "blue", by, nodeId, windowSeconds: 300 });
  const successfulBySeries = async (by: LoadBreakdown, nodeId = "") =>
    Object.fromEntries(
      (await loadOf(by, nodeId)).series.map((s) => [
        s.name,
        s.points.reduce((sum, p) => sum + Number(p.successful), 0),
      ]),
    );

  beforeAll(async () => {
    [blue1, blue2] = await Promise.all([startEchoBackend("blue-1"), startEchoBackend("blue-2")]);
    harness = await startHarness({ app: { loadReportIntervalMs: 1_000 } });
    status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    const api = harness.api();
    // blue reports load: two localities of one endpoint each; green does not.
    await api.createCluster(loadReportingCluster("blue", [blue1, blue2]));
    await api.createCluster(edsCluster("green", "127.0.0.1:9", { http2: true }));
    await api.createRouteConfiguration(shopRoutes("blue"));
    await api.createListener(shopListener());
    await api.publish({ message: "blue reports load" });
    client = createXdsEchoClient("shop", {
      server: `127.0.0.1:${harness.app.xdsPort}`,
      nodeId: "lrs-client",
    });
  });

  afterAll(async () => {
    client?.close();
    await harness?.stop();
    await Promise.all([blue1?.stop(), blue2?.stop()]);
  });

  it("a real gRPC client's RPCs are the load shown per cluster, locality and node, and counted on /metrics", async () => {
    await callUntilReady(client);
    for (let i = 0; i < 30; i++) await client.call();
    const answered = () => blue1.served + blue2.served;
    const total = answered();
    expect(blue1.served).toBeGreaterThan(0);
    expect(blue2.served).toBeGreaterThan(0);
    const byCluster = await until(
      () => successfulBySeries(LoadBreakdown.CLUSTER),
      (s) => s.blue === total,
      `the load shown never reached the ${total} RPCs the backends answered`,
    );
    expect(byCluster).toEqual({ blue: total });
    expect(await successfulBySeries(LoadBreakdown.LOCALITY)).toEqual({
      "eu/eu-1/": blue1.served,
      "eu/eu-2/": blue2.served,
    });
    expect(await successfulBySeries(LoadBreakdown.NODE)).toEqual({ "lrs-client": total });
    const points = (await loadOf(LoadBreakdown.CLUSTER)).series[0]?.points ?? [];
    expect(points.every((p) => p.widthSeconds === 10 && Number(p.errored) === 0)).toBe(true);
    const metrics = await (await fetch(`${harness.baseUrl}/metrics`)).text();
    expect(metrics).toContain(
      `switchyard_lrs_requests_total{cluster="blue",outcome="successful"} ${total}`,
    );
    expect(answered()).toBe(total);
  });

  it("tells a proxy which clusters to report, at what interval and by endpoint, and tells it again when a publish changes them", async () => {
    const lrs = openLrs(harness.app.xdsPort);
    try {
      lrs.send({ node: { id: "envoy-lrs", cluster: "edge" } });
      const [first] = await until(
        async () => lrs.answers,
        (answers) => answers.length === 1,
        "the proxy was never answered",
      );
      expect(first?.clusters).toEqual(["blue"]);
      expect(first?.loadReportingInterval && durationMs(first.loadReportingInterval)).toBe(1_000);
      expect(first?.reportEndpointGranularity).toBe(true);
      const green = await harness.api().getCluster({ name: "green" });
      await harness.api().updateCluster({ ...green, reportLoad: true });
      await harness.api().publish({ message: "green reports load too" });
      // Told with its next report once the publish is served: it reports until it is.
      const answers = await until(
        async () => {
          lrs.send({ clusterStats: [] });
          return lrs.answers;
        },
        (all) => all.length === 2,
        "the proxy was never told of green",
      );
      expect(answers[1]?.clusters).toEqual(["blue", "green"]);
      expect(answers[1]?.sendAllClusters).toBe(false);
    } finally {
      lrs.close();
    }
  });

  it("asks a gRPC client that supports it for all its clusters (it keeps load only for those sent with lrs_server), and Envoy only for the listed ones", async () => {
    const firstAnswer = async (userAgentName: string) => {
      const lrs = openLrs(harness.app.xdsPort);
      try {
        lrs.send({
          node: {
            id: `${userAgentName}-lrs`,
            userAgentName,
            clientFeatures: ["envoy.lrs.supports_send_all_clusters"],
          },
        });
        const [answer] = await until(
          async () => lrs.answers,
          (answers) => answers.length === 1,
          "never answered",
        );
        return answer;
      } finally {
        lrs.close();
      }
    };
    expect((await firstAnswer("gRPC Node"))?.sendAllClusters).toBe(true);
    expect((await firstAnswer("envoy"))?.sendAllClusters).toBe(false);
  });

  it("refuses a stream that does not name its node, and a malformed report, storing nothing of it; drops what a proxy reports of clusters it was not asked for", async () => {
    const anonymous = openLrs(harness.app.xdsPort);
    anonymous.send({ clusterStats: [] });
    const noNode = await anonymous.ended;
    expect(noNode?.code).toBe(Code.InvalidArgument);
    expect(noNode?.rawMessage).toMatch(/^node\.id: /);

    const bad = openLrs(harness.app.xdsPort);
    bad.send({ node: { id: "envoy-bad" } });
    bad.send({
      clusterStats: [
        { clusterName: "blue", upstreamLocalityStats: [{ totalSuccessfulRequests: 5n }] },
        { clusterName: "", upstreamLocalityStats: [{ totalSuccessfulRequests: 5n }] },
      ],
    });
    const malformed = await bad.ended;
    expect(malformed?.code).toBe(Code.InvalidArgument);
    expect(malformed?.rawMessage).toBe("cluster_stats[1].cluster_name: a cluster name is required");
    // A good report sent after it is stored; the bad one's valid half never is.
    const good = openLrs(harness.app.xdsPort);
    try {
      good.send({ node: { id: "envoy-good" } });
      good.send({
        clusterStats: [
          {
            clusterName: "blue",
            upstreamLocalityStats: [
              {
                totalSuccessfulRequests: 5n,
                // As Envoy reports with endpoint granularity: each endpoint's share.
                upstreamEndpointStats: [
                  {
                    address: {
                      address: {
                        case: "socketAddress",
                        value: {
                          address: "10.0.0.9",
                          portSpecifier: { case: "portValue", value: 80 },
                        },
                      },
                    },
                    totalSuccessfulRequests: 5n,
                  },
                ],
              },
            ],
          },
          // Not a cluster it is asked for: dropped, not stored under a name of the proxy's own.
          { clusterName: "made-up", upstreamLocalityStats: [{ totalSuccessfulRequests: 5n }] },
        ],
      });
      await until(
        () => successfulBySeries(LoadBreakdown.NODE, "envoy-good"),
        (s) => s["envoy-good"] === 5,
        "the good report was never stored",
      );
      expect((await loadOf(LoadBreakdown.NODE, "envoy-bad")).series).toEqual([]);
      const everyCluster = await status.getLoad({
        by: LoadBreakdown.CLUSTER,
        nodeId: "envoy-good",
      });
      expect(everyCluster.series.map((s) => s.name)).toEqual(["blue"]);
      expect(await successfulBySeries(LoadBreakdown.ENDPOINT, "envoy-good")).toEqual({
        "10.0.0.9:80": 5,
      });
    } finally {
      good.close();
    }
  });
  it("a report's own text is bounded: a node id over 1 KiB is refused naming node.id, megabytes of locality and endpoint are stored cut to 1 KiB, and GetLoad answers meanwhile", async () => {
    const long = openLrs(harness.app.xdsPort);
    long.send({ node: { id: "n".repeat(LRS_NODE_ID_MAX_BYTES + 1) } });
    const refused = await long.ended;
    expect(refused?.code).toBe(Code.InvalidArgument);
    expect(refused?.rawMessage).toMatch(/^node\.id is 1025 bytes long/);

    const huge = "r".repeat(4 * 1024 * 1024);
    const loud = openLrs(harness.app.xdsPort);
    try {
      loud.send({ node: { id: "envoy-loud" } });
      loud.send({
        clusterStats: [
          {
            clusterName: "blue",
            upstreamLocalityStats: [
              {
                locality: { region: huge, zone: "z", subZone: "" },
                totalSuccessfulRequests: 3n,
                upstreamEndpointStats: [
                  {
                    address: {
                      address: {
                        case: "pipe",
                        value: { path: huge },
                      },
                    },
                    totalSuccessfulRequests: 3n,
                  },
                ],
              },
            ],
          },
        ],
      });
      const started = performance.now();
      await loadOf(LoadBreakdown.CLUSTER);
      expect(performance.now() - started).toBeLessThan(2_000);
      const byLocality = await until(
        () => successfulBySeries(LoadBreakdown.LOCALITY, "envoy-loud"),
        (s) => Object.keys(s).length > 0,
        "the loud report was never stored",
      );
      const [locality] = Object.keys(byLocality);
      expect(locality).toMatch(/^r+… \[truncated \d+ bytes\]\/z\/$/);
      expect(Buffer.byteLength(locality ?? "")).toBeLessThanOrEqual(
        CLIENT_TEXT_LIMITS.nodeFieldBytes + 8,
      );
      const endpoints = Object.keys(await successfulBySeries(LoadBreakdown.ENDPOINT, "envoy-loud"));
      expect(endpoints).toHaveLength(1);
      expect(Buffer.byteLength(endpoints[0] ?? "")).toBeLessThanOrEqual(
        CLIENT_TEXT_LIMITS.nodeFieldBytes,
      );
    } finally {
      loud.close();
    }
  });
});
