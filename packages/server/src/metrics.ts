import {
  type CompiledConfig,
  secretResourceExpiry,
  storedNameOf,
  TypeUrl,
} from "@switchyard/snapshot";
import type { LoadRow } from "@switchyard/status";
import type { XdsCallbacks, XdsVariant } from "@switchyard/xds";
import {
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from "prom-client";
import type { RequestHandler } from "./http-server.js";

export interface Metrics {
  /** This app's registry (never prom-client's global one: tests run several apps per process). */
  readonly registry: Registry;
  /** Stream, response and ACK/NACK counts; combine with the other xDS callbacks. */
  readonly callbacks: XdsCallbacks;
  /** A publish or rollback made `version` the latest. */
  onPublished(version: number): void;
  /** A node connected to this replica converged on a published version `ms` after its publish. */
  observeConvergence(ms: number): void;
  /**
   * The config now served: sets each served secret's expiry (the earliest notAfter of its
   * certificates), dropping secrets no longer served.
   */
  onServed(config: CompiledConfig): void;
  /** The snapshot loaded at startup (sets the version, counts no publish). */
  onLoaded(version: number): void;
  /** A rollout's transition was stored (wave-started, baking, promoted, failed, ...). */
  onRolloutTransition(kind: string): void;
  /** A load report's rows (LRS): counts the cluster's requests by outcome. */
  onLoadReport(rows: readonly LoadRow[]): void;
  /** One database operation (e.g. "status_flush", "publish") took `seconds`. */
  observeDb(label: string, seconds: number): void;
  /** Runs `fn`, observing its duration under `label` whether it resolves or rejects. */
  timeDb<T>(label: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Adds other processes' metrics (xDS workers, xds-workers.ts) to what the handler serves:
   * counters, histograms and stream gauges summed with this registry's, the version the highest.
   */
  addSource(source: () => Promise<MetricsJson[]>): void;
  /** GET /metrics: the registry (and every source) in the Prometheus text format. */
  readonly handler: RequestHandler;
}

/** A registry's metrics as Registry.getMetricsAsJSON() returns them. */
export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

const SHORT_TYPE_NAMES: ReadonlyMap<string, string> = new Map(
  Object.entries(TypeUrl).map(([short, url]) => [url, short]),
);

/** Cluster, ClusterLoadAssignment, Listener, RouteConfiguration; any other type by its URL. */
export function typeLabel(typeUrl: string): string {
  return SHORT_TYPE_NAMES.get(typeUrl) ?? typeUrl;
}

/** Prometheus metrics for one Switchyard app, on a registry of its own. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const rolloutTransitions = new Counter({
    name: "switchyard_rollout_transitions_total",
    help: "Rollout transitions stored, by kind: wave-started, baking, paused, resumed, promoted, rolling-back, completed, failed, aborted.",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const streams = new Gauge({
    name: "switchyard_xds_streams",
    help: "Connected xDS streams, by protocol variant.",
    labelNames: ["variant"] as const,
    registers: [registry],
  });
  const responses = new Counter({
    name: "switchyard_xds_responses_total",
    help: "xDS responses pushed, by resource type.",
    labelNames: ["type"] as const,
    registers: [registry],
  });
  const resourcesSent = new Counter({
    name: "switchyard_xds_resources_sent_total",
    help: "Resources carried by xDS responses, by resource type.",
    labelNames: ["type"] as const,
    registers: [registry],
  });
  const acks = new Counter({
    name: "switchyard_xds_acks_total",
    help: "xDS ACKs received, by resource type.",
    labelNames: ["type"] as const,
    registers: [registry],
  });
  const nacks = new Counter({
    name: "switchyard_xds_nacks_total",
    help: "xDS NACKs received, by resource type.",
    labelNames: ["type"] as const,
    registers: [registry],
  });
  const resourceNacks = new Counter({
    name: "switchyard_xds_resource_nacks_total",
    help: 'Resources rejected by xDS NACKs, by resource type and name: each NACK counts once for every resource the client named as rejected (a NACK naming none counts under resource="").',
    labelNames: ["type", "resource"] as const,
    registers: [registry],
  });
  const authRefusals = new Counter({
    name: "switchyard_xds_auth_refusals_total",
    help: "xDS calls refused or streams ended for want of a valid credential (code unauthenticated) or of an entitlement to the node's group (permission_denied), by reason.",
    labelNames: ["code", "reason"] as const,
    registers: [registry],
  });
  const publishes = new Counter({
    name: "switchyard_publish_total",
    help: "Snapshots published (publishes and rollbacks) by this process.",
    registers: [registry],
  });
  const snapshotVersion = new Gauge({
    name: "switchyard_snapshot_version",
    help: "Version of the latest snapshot this process knows of (0: nothing published).",
    registers: [registry],
    aggregator: "max",
  });
  const convergence = new Histogram({
    name: "switchyard_convergence_seconds",
    help: "Time from a publish to a node's ACK of everything it changed for the node (nodes connected to this replica; nodes that already held it are not counted).",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const dbQuery = new Histogram({
    name: "switchyard_db_query_seconds",
    help: "Duration of database operations, by operation.",
    labelNames: ["operation"] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  // Variant of each open stream, so a close decrements the right series (and a close without
  // an open, e.g. a stream that never sent a node, decrements nothing).
  const open = new Map<number, XdsVariant>();
  const callbacks: XdsCallbacks = {
    onStreamOpen: ({ streamId, variant }) => {
      if (open.has(streamId)) return;
      open.set(streamId, variant);
      streams.inc({ variant });
    },
    onStreamClosed: ({ streamId }) => {
      const variant = open.get(streamId);
      if (variant === undefined) return;
      open.delete(streamId);
      streams.dec({ variant });
    },
    onRequest: ({ typeUrl, verdict }) => {
      if (verdict.t === "ack") acks.inc({ type: typeLabel(typeUrl) });
      else if (verdict.t === "nack") {
        const type = typeLabel(typeUrl);
        nacks.inc({ type });
        // Named as the client knows them; an xdstp:// name counts under the stored one.
        const names =
          verdict.rejected === undefined ? [""] : [...verdict.rejected].map(storedNameOf);
        for (const resource of new Set(names)) resourceNacks.inc({ type, resource });
      }
    },
    onAuthRefused: ({ code, reason }) => authRefusals.inc({ code, reason }),
    onResponse: ({ typeUrl, resources }) => {
      const type = typeLabel(typeUrl);
      responses.inc({ type });
      if (resources.length > 0) resourcesSent.inc({ type }, resources.length);
    },
  };

  const loadRequests = new Counter({
    name: "switchyard_lrs_requests_total",
    help: "Requests proxies reported over LRS, by cluster and outcome (successful, errored, dropped)",
    labelNames: ["cluster", "outcome"] as const,
    registers: [registry],
  });
  const loadReports = new Counter({
    name: "switchyard_lrs_reports_total",
    help: "LoadStatsRequests with cluster stats received from proxies",
    registers: [registry],
  });
  const secretExpiry = new Gauge({
    name: "switchyard_secret_expiry_timestamp_seconds",
    help: "When each served secret's certificates stop being valid (earliest notAfter), as a Unix time: alert on it minus time().",
    labelNames: ["secret"] as const,
    registers: [registry],
    aggregator: "first",
  });

  // Versions only grow (a rollback publishes a new one): a late callback never lowers the gauge.
  let latestVersion = 0;
  const setVersion = (version: number) => {
    latestVersion = Math.max(latestVersion, version);
    snapshotVersion.set(latestVersion);
  };

  const observeDb = (label: string, seconds: number) => {
    dbQuery.observe({ operation: label }, seconds);
  };

  const sources: Array<() => Promise<MetricsJson[]>> = [];
  const exposition = async (): Promise<string> => {
    if (sources.length === 0) return registry.metrics();
    const others = await Promise.all(sources.map((source) => source()));
    const mine = (await registry.getMetricsAsJSON()) as MetricsJson;
    return AggregatorRegistry.aggregate([mine, ...others.flat()]).metrics();
  };

  return {
    registry,
    callbacks,
    addSource: (source) => sources.push(source),
    onPublished: (version) => {
      publishes.inc();
      setVersion(version);
    },
    onLoaded: setVersion,
    onRolloutTransition: (kind) => rolloutTransitions.inc({ kind }),
    onLoadReport: (rows) => {
      loadReports.inc();
      for (const row of rows) {
        // Locality totals and the cluster's drops; endpoint rows repeat their locality's counts.
        if (row.endpoint !== "") continue;
        if (row.successful > 0)
          loadRequests.inc({ cluster: row.cluster, outcome: "successful" }, row.successful);
        if (row.errored > 0)
          loadRequests.inc({ cluster: row.cluster, outcome: "errored" }, row.errored);
        if (row.dropped > 0)
          loadRequests.inc({ cluster: row.cluster, outcome: "dropped" }, row.dropped);
      }
    },
    onServed: (config) => {
      secretExpiry.reset();
      const seen = new Set<string>();
      for (const group of config.groups) {
        for (const secret of group.snapshot.resources(TypeUrl.Secret).values()) {
          if (seen.has(secret.name)) continue;
          seen.add(secret.name);
          const expiry = secretResourceExpiry(secret.body);
          if (expiry !== undefined) secretExpiry.set({ secret: secret.name }, expiry / 1_000);
        }
      }
    },
    observeConvergence: (ms) => convergence.observe(ms / 1_000),
    observeDb,
    timeDb: async (label, fn) => {
      const start = process.hrtime.bigint();
      try {
        return await fn();
      } finally {
        observeDb(label, Number(process.hrtime.bigint() - start) / 1e9);
      }
    },
    handler: (request, response) => {
      if (request.method !== "GET" && request.method !== "HEAD") {
        response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end();
        return;
      }
      exposition().then(
        (text) => {
          response.writeHead(200, { "content-type": registry.contentType });
          response.end(request.method === "HEAD" ? undefined : text);
        },
        (error: unknown) => {
          response
            .writeHead(500, { "content-type": "text/plain" })
            .end(`collecting metrics failed: ${String(error)}\n`);
        },
      );
    },
  };
}
