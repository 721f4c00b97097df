import { create } from "@bufbuild/protobuf";
import { NodeSchema } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import { compile, configSpecOf, TypeUrl } from "@switchyard/snapshot";
import { clusterSpec, validationSecretSpec } from "@switchyard/snapshot/fixtures";
import { createTestCa } from "@switchyard/testing";
import type { XdsVariant } from "@switchyard/xds";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpServer, startHttpServer } from "./http-server.js";
import { createMetrics, type Metrics, typeLabel } from "./metrics.js";

const node = create(NodeSchema, { id: "envoy-1", cluster: "test" });

function open(metrics: Metrics, streamId: number, variant: XdsVariant) {
  metrics.callbacks.onStreamOpen?.({
    streamId,
    node,
    variant,
    remoteAddress: "127.0.0.1:1",
    identity: "",
  });
}

async function value(metrics: Metrics, name: string, labels: Record<string, string> = {}) {
  const metric = metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const match = values.find((v) =>
    Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l),
  );
  return match?.value ?? 0;
}

describe("createMetrics", () => {
  it("counts connected streams per variant, up on open and down on close", async () => {
    const metrics = createMetrics();
    open(metrics, 1, "ads-sotw");
    open(metrics, 2, "ads-sotw");
    open(metrics, 3, "delta");
    expect(await value(metrics, "switchyard_xds_streams", { variant: "ads-sotw" })).toBe(2);
    expect(await value(metrics, "switchyard_xds_streams", { variant: "delta" })).toBe(1);

    metrics.callbacks.onStreamClosed?.({ streamId: 1 });
    metrics.callbacks.onStreamClosed?.({ streamId: 3 });
    // A second close, or a close of a stream never opened, changes nothing.
    metrics.callbacks.onStreamClosed?.({ streamId: 3 });
    metrics.callbacks.onStreamClosed?.({ streamId: 99 });
    expect(await value(metrics, "switchyard_xds_streams", { variant: "ads-sotw" })).toBe(1);
    expect(await value(metrics, "switchyard_xds_streams", { variant: "delta" })).toBe(0);
  });

  it("counts ACKs and NACKs per short type name, ignoring other verdicts", async () => {
    const metrics = createMetrics();
    const request = (
      typeUrl: string,
      verdict: Parameters<NonNullable<Metrics["callbacks"]["onRequest"]>>[0]["verdict"],
    ) =>
      metrics.callbacks.onRequest?.({
        streamId: 1,
        typeUrl,
        verdict,
        resourceNames: [],
        responseNonce: "n",
      });
    request(TypeUrl.Cluster, { t: "ack", version: "1" });
    request(TypeUrl.Cluster, { t: "ack", version: "2" });
    request(TypeUrl.Listener, { t: "ack", version: "1" });
    request(TypeUrl.Listener, { t: "nack", rejectedVersion: "2", errorDetail: "bad" });
    request("type.example/Other", { t: "nack", rejectedVersion: "1", errorDetail: "bad" });
    request(TypeUrl.Cluster, { t: "initial" });
    request(TypeUrl.Cluster, { t: "stale" });
    request(TypeUrl.Cluster, { t: "update" });

    expect(await value(metrics, "switchyard_xds_acks_total", { type: "Cluster" })).toBe(2);
    expect(await value(metrics, "switchyard_xds_acks_total", { type: "Listener" })).toBe(1);
    expect(await value(metrics, "switchyard_xds_nacks_total", { type: "Listener" })).toBe(1);
    expect(await value(metrics, "switchyard_xds_nacks_total", { type: "Cluster" })).toBe(0);
    expect(await value(metrics, "switchyard_xds_nacks_total", { type: "type.example/Other" })).toBe(
      1,
    );
  });

  it("counts each resource a NACK rejected, by the name the snapshot stores", async () => {
    const metrics = createMetrics();
    const nack = (rejected?: string[]) =>
      metrics.callbacks.onRequest?.({
        streamId: 1,
        typeUrl: TypeUrl.Cluster,
        verdict: {
          t: "nack",
          rejectedVersion: "1",
          errorDetail: "bad",
          ...(rejected ? { rejected: new Set(rejected) } : {}),
        },
        resourceNames: [],
        responseNonce: "n",
      });
    nack(["svc-a"]);
    nack(["svc-a", "xdstp://switchyard/envoy.config.cluster.v3.Cluster/svc-b"]);
    nack();

    const count = (resource: string) =>
      value(metrics, "switchyard_xds_resource_nacks_total", { type: "Cluster", resource });
    expect(await count("svc-a")).toBe(2);
    expect(await count("svc-b")).toBe(1);
    expect(await count("")).toBe(1);
  });

  it("counts responses and the resources they carry per type", async () => {
    const metrics = createMetrics();
    const respond = (typeUrl: string, names: string[]) =>
      metrics.callbacks.onResponse?.({
        streamId: 1,
        typeUrl,
        versionInfo: "1",
        nonce: "n",
        resourceNames: names,
        resources: names.map((name) => ({ name, version: "v" })),
      });
    respond(TypeUrl.ClusterLoadAssignment, ["a", "b", "c"]);
    respond(TypeUrl.ClusterLoadAssignment, []);
    respond(TypeUrl.RouteConfiguration, ["r"]);
    expect(
      await value(metrics, "switchyard_xds_responses_total", { type: "ClusterLoadAssignment" }),
    ).toBe(2);
    expect(
      await value(metrics, "switchyard_xds_resources_sent_total", {
        type: "ClusterLoadAssignment",
      }),
    ).toBe(3);
    expect(
      await value(metrics, "switchyard_xds_resources_sent_total", { type: "RouteConfiguration" }),
    ).toBe(1);
    expect(typeLabel(TypeUrl.Cluster)).toBe("Cluster");
  });

  it("tracks publishes, the snapshot version and database durations", async () => {
    const metrics = createMetrics();
    metrics.onLoaded(4);
    expect(await value(metrics, "switchyard_snapshot_version")).toBe(4);
    expect(await value(metrics, "switchyard_publish_total")).toBe(0);
    metrics.onPublished(5);
    metrics.onPublished(6);
    expect(await value(metrics, "switchyard_snapshot_version")).toBe(6);
    expect(await value(metrics, "switchyard_publish_total")).toBe(2);

    metrics.observeDb("status_flush", 0.02);
    await expect(metrics.timeDb("publish", async () => "done")).resolves.toBe("done");
    await expect(
      metrics.timeDb("publish", async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    const text = await metrics.registry.metrics();
    expect(text).toContain('switchyard_db_query_seconds_count{operation="status_flush"} 1');
    expect(text).toContain('switchyard_db_query_seconds_count{operation="publish"} 2');
  });

  it("exports each served secret's expiry as a Unix time, dropping secrets no longer served", async () => {
    const ca = createTestCa("metrics CA");
    const spec = (names: readonly string[]) =>
      configSpecOf({
        secrets: names.map((name) => validationSecretSpec(name, ca.cert)),
        // Only a secret something names is served (README, "Only to the nodes that use them").
        clusters: names.map((name) => clusterSpec(`to-${name}`, [], { tlsSecretName: name })),
      });
    const metrics = createMetrics();
    metrics.onServed(compile(spec(["a", "b"])));
    const at = await value(metrics, "switchyard_secret_expiry_timestamp_seconds", { secret: "a" });
    expect(at * 1_000).toBeGreaterThan(Date.now());
    metrics.onServed(compile(spec(["b"])));
    expect(
      await value(metrics, "switchyard_secret_expiry_timestamp_seconds", { secret: "a" }),
    ).toBe(0);
    expect(
      await value(metrics, "switchyard_secret_expiry_timestamp_seconds", { secret: "b" }),
    ).toBe(at);
  });

  it("keeps each app's metrics on its own registry", async () => {
    const a = createMetrics();
    const b = createMetrics();
    open(a, 1, "sotw");
    expect(await value(a, "switchyard_xds_streams", { variant: "sotw" })).toBe(1);
    expect(await value(b, "switchyard_xds_streams", { variant: "sotw" })).toBe(0);
  });
});

describe("GET /metrics", () => {
  let server: HttpServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("serves the registry in the Prometheus text format, before the API and the console", async () => {
    const metrics = createMetrics();
    open(metrics, 1, "ads-delta");
    metrics.onPublished(3);
    server = await startHttpServer({
      port: 0,
      host: "127.0.0.1",
      routes: () => {},
      extraRoutes: { "/metrics": metrics.handler },
      fallback: (_request, response) => {
        response.writeHead(404, { "content-type": "text/plain" }).end("console\n");
      },
    });
    const base = `http://127.0.0.1:${server.port}`;

    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain; version=0.0.4");
    const text = await response.text();
    for (const name of [
      "switchyard_xds_streams",
      "switchyard_xds_responses_total",
      "switchyard_xds_resources_sent_total",
      "switchyard_xds_acks_total",
      "switchyard_xds_nacks_total",
      "switchyard_publish_total",
      "switchyard_snapshot_version",
      "switchyard_db_query_seconds",
      "process_cpu_seconds_total",
      "nodejs_heap_size_total_bytes",
    ])
      expect(text).toContain(`# TYPE ${name} `);
    expect(text).toContain('switchyard_xds_streams{variant="ads-delta"} 1');
    expect(text).toContain("switchyard_snapshot_version 3");

    expect((await fetch(`${base}/metrics?x=1`)).status).toBe(200);
    expect((await fetch(`${base}/metrics`, { method: "POST" })).status).toBe(405);
    const other = await fetch(`${base}/other`);
    expect(other.status).toBe(404);
    expect(await other.text()).toBe("console\n");
  });
});
