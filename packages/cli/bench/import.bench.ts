/**
 * Issue 22, point 2: what an import costs everyone else. A megabyte of Envoy YAML takes a second
 * or so of CPU to read; the figure that matters is how long the event loop (every xDS stream and
 * API call) stalls meanwhile, against the stalls of the same server idle (the floor), and against
 * reading the same document on the event loop, as Switchyard did before.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { createTestDatabase } from "@switchyard/db/testing";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { startSwitchyard } from "@switchyard/server";
import { ADMIN_PASSWORD, adminToken, bearer } from "@switchyard/server/testing";
import { importEnvoyConfig, parseEnvoyConfig } from "@switchyard/snapshot";
import pino from "pino";
import { type Figure, median } from "./config.bench.js";

/** About `bytes` of YAML: STRICT_DNS clusters with one endpoint each, named after `run`. */
function document(bytes: number, run: number): { content: string; clusters: number } {
  const parts = ["clusters:\n"];
  let size = parts[0]?.length ?? 0;
  let clusters = 0;
  while (size < bytes) {
    const name = `r${run}-c${clusters}`;
    const part = `- name: ${name}
  type: STRICT_DNS
  connect_timeout: 1s
  load_assignment:
    cluster_name: ${name}
    endpoints:
    - lb_endpoints:
      - endpoint: { address: { socket_address: { address: ${name}.example, port_value: 8080 } } }
`;
    parts.push(part);
    size += part.length;
    clusters += 1;
  }
  return { content: parts.join(""), clusters };
}

/** The longest event-loop stall, in ms, while `work` runs. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  try {
    await work();
  } finally {
    histogram.disable();
  }
  return histogram.max / 1e6;
}

export async function importBench(bytes = 1024 * 1024, runs = 3): Promise<Figure[]> {
  const database = await createTestDatabase();
  const app = await startSwitchyard({
    httpPort: 0,
    xdsPort: 0,
    host: "127.0.0.1",
    databaseUrl: database.url,
    dataDir: "unused-with-a-database-url",
    webConsole: false,
    adminPassword: ADMIN_PASSWORD,
    logger: pino({ level: "warn" }),
  });
  try {
    const baseUrl = `http://127.0.0.1:${app.httpPort}`;
    const api = createClient(
      ConfigService,
      createConnectTransport({
        baseUrl,
        httpVersion: "1.1",
        interceptors: [bearer(await adminToken(baseUrl))],
      }),
    );
    // Warm: the worker started and its code loaded, as on a server that has imported before.
    await api.import({ content: document(10_000, 0).content, filename: "warm.yaml", dryRun: true });

    const stalls: number[] = [];
    const walls: number[] = [];
    const floors: number[] = [];
    const inThread: number[] = [];
    let clusters = 0;
    for (let run = 1; run <= runs; run++) {
      const doc = document(bytes, run);
      clusters = doc.clusters;
      let wall = 0;
      stalls.push(
        await longestStall(async () => {
          const started = performance.now();
          await api.import({ content: doc.content, filename: "fleet.yaml", dryRun: true });
          wall = performance.now() - started;
        }),
      );
      walls.push(wall);
      floors.push(await longestStall(() => sleep(wall)));
      // Synchronous: the whole call is one stall (the loop histogram would see no tick at all).
      const started = performance.now();
      const parsed = parseEnvoyConfig(doc.content, { filename: "fleet.yaml" });
      if ("errors" in parsed) throw new Error(parsed.errors[0]?.message);
      importEnvoyConfig(parsed.resources);
      inThread.push(performance.now() - started);
    }
    const label = `a ${Math.round(bytes / 1024)} KiB import (${clusters.toLocaleString("en")} clusters, dry run)`;
    const floor = median(floors);
    const stall = median(stalls);
    return [
      {
        name: `${label}: wall time through the API, median of ${runs}`,
        value: median(walls),
        unit: "ms",
      },
      {
        name: `${label}: longest event-loop stall meanwhile, median of ${runs}`,
        value: stall,
        unit: "ms",
        note: `${(stall / floor).toFixed(1)} × the idle floor (${floor.toFixed(1)} ms)`,
      },
      {
        name: `the same document read on the event loop (as before issue 22): its stall, median of ${runs}`,
        value: median(inThread),
        unit: "ms",
        note: `${(median(inThread) / floor).toFixed(0)} × the idle floor`,
      },
    ];
  } finally {
    await app.stop();
    await database.drop();
  }
}
