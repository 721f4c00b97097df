/**
 * Responses past the message limit with both real proxyless gRPC clients (@grpc/grpc-js-xds and
 * gRPC C-core) against a real server and PostgreSQL, RPCs to real backends: the server runs with
 * a small limit (--xds-max-response-bytes 64 KiB) so that a few dozen assignments exceed it.
 * - over the limit: an EDS change to every cluster goes in several responses, each ACKed, and
 *   the clients route by all of it; the node holds the version once the last part is ACKed.
 * - at the limit: one assignment as large as a response may carry is served whole and routed
 *   to; a larger one is refused at publish, naming it, its size and the limit.
 * One server and one pair of clients for every case.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { type Cluster, ValidationErrorsSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  edsCluster,
  type Harness,
  REAL_CLIENTS,
  shopListener,
  shopRoutes,
  startHarness,
  until,
  untilAnswerIs,
} from "@switchyard/server/testing";
import {
  callUntilReady,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const LIMIT = 64 * 1024;
/** 25 clusters of ~4 KiB of assignment each: ~100 KiB of EDS, over LIMIT. */
const CLUSTERS = Array.from({ length: 25 }, (_, i) => `svc-${String(i).padStart(2, "0")}`);

/** Cluster `name` on `backend`, its endpoint carrying `bytes` of metadata (a large assignment). */
function heavyCluster(name: string, backend: EchoBackend, bytes: number): Cluster {
  const cluster = edsCluster(name, `127.0.0.1:${backend.port}`, {
    http2: true,
    connectTimeoutMs: 1000,
  });
  for (const locality of cluster.localities)
    for (const endpoint of locality.endpoints)
      endpoint.extra = { metadata: { filterMetadata: { notes: { text: "x".repeat(bytes) } } } };
  return cluster;
}

describe("responses past the message limit, with both real gRPC clients", () => {
  let harness: Harness;
  let blue: EchoBackend;
  let green: EchoBackend;
  const clients: [string, string, XdsEchoClient][] = [];
  const publish = async (message: string) =>
    Number((await harness.api().publish({ message })).snapshot?.version);

  beforeAll(async () => {
    [blue, green] = await Promise.all([startEchoBackend("blue"), startEchoBackend("green")]);
    harness = await startHarness({ app: { xdsMaxResponseBytes: LIMIT } });
    const api = harness.api();
    for (const name of CLUSTERS) await api.createCluster(heavyCluster(name, blue, 4096));
    // Every RPC goes to any of the clusters: each client subscribes to all their assignments.
    // Weights add up to 100: gRPC C-core 1.51 takes an unset total_weight as 100.
    await api.createRouteConfiguration(shopRoutes(CLUSTERS.map((name) => [name, 4] as const)));
    await api.createListener(shopListener());
    await publish("25 heavy clusters on blue");
    for (const [name, real] of REAL_CLIENTS) {
      const nodeId = `split-${name.replace(/\W+/g, "-")}`;
      const client = await real.connect("shop", {
        server: `127.0.0.1:${harness.app.xdsPort}`,
        nodeId,
      });
      clients.push([name, nodeId, client]);
    }
    for (const [, , client] of clients) expect(await callUntilReady(client)).toBe("blue");
  });

  afterAll(async () => {
    for (const [, , client] of clients) client.close();
    await harness?.stop();
    await Promise.all([blue?.stop(), green?.stop()]);
  });

  /** The server's EDS counters (its own /metrics): responses sent, resources they carried, ACKs, NACKs. */
  async function edsCounters() {
    const text = await (await fetch(`${harness.baseUrl}/metrics`)).text();
    const counter = (name: string) =>
      Number(
        new RegExp(`^${name}\\{type="ClusterLoadAssignment"\\} (\\S+)$`, "m").exec(text)?.[1] ?? 0,
      );
    return {
      responses: counter("switchyard_xds_responses_total"),
      resources: counter("switchyard_xds_resources_sent_total"),
      acks: counter("switchyard_xds_acks_total"),
      nacks: counter("switchyard_xds_nacks_total"),
    };
  }

  it("over the limit: an EDS change to every cluster reaches each client in several responses, each ACKed, and RPCs follow it", async () => {
    const api = harness.api();
    const before = await edsCounters();
    for (const name of CLUSTERS) await api.updateCluster(heavyCluster(name, green, 4096));
    const version = await publish("every cluster moves to green");
    for (const [, , client] of clients) {
      // Every cluster moved (all the parts arrived): RPCs over all of them answer green only.
      await until(
        () => Promise.all(Array.from({ length: 12 }, () => client.call())),
        (answers) => answers.every((answer) => answer === "green"),
        "every RPC answered by green",
      );
    }
    // Each client was sent all 25 assignments once, in two responses or more (~100 KiB at a
    // 64 KiB limit), and ACKed every one of them.
    const after = await until(
      edsCounters,
      (now) => now.acks - before.acks === now.responses - before.responses,
      "every EDS response since the publish ACKed",
    );
    expect(after.resources - before.resources).toBe(CLUSTERS.length * clients.length);
    expect(after.responses - before.responses).toBeGreaterThanOrEqual(2 * clients.length);
    expect(after.nacks - before.nacks).toBe(0);
    // Every targeted node holds the version: it ACKed the last part.
    const wait = await runCli(
      harness.baseUrl,
      await harness.token(),
      "wait",
      "--version",
      String(version),
      "--timeout",
      "15s",
    );
    expect(wait.stderr).toBe("");
    expect(wait.stdout).toMatch(new RegExp(`^version ${version}: 2/2 nodes in sync`));
  });

  it("at the limit: one assignment as large as a response may carry is served whole and routed to; a larger one is refused at publish, naming it, its size and the limit", async () => {
    const api = harness.api();
    // The largest metadata the validation lets through: found by asking it.
    const fits = async (bytes: number) => {
      await api.updateCluster(heavyCluster(CLUSTERS[0] as string, blue, bytes));
      const { issues } = await api.validate({});
      return !issues.some((issue) => issue.code === "response-too-large");
    };
    let low = 4096;
    let high = LIMIT;
    expect(await fits(low)).toBe(true);
    expect(await fits(high)).toBe(false);
    while (high - low > 64) {
      const middle = Math.floor((low + high) / 2);
      if (await fits(middle)) low = middle;
      else high = middle;
    }
    // Just over: refused, saying what, how large, and the limit.
    expect(await fits(high)).toBe(false);
    const refused = await api.publish({ message: "one assignment over the limit" }).then(
      () => undefined,
      (error: unknown) => ConnectError.from(error),
    );
    expect(refused?.code).toBe(Code.InvalidArgument);
    const [details] = refused?.findDetails(ValidationErrorsSchema) ?? [];
    const issue = details?.issues.find((i) => i.code === "response-too-large");
    expect(issue?.path).toBe(`clusters["${CLUSTERS[0]}"]`);
    expect(issue?.message).toMatch(/is 0\.0\d+ MiB \(\d+ bytes\) in an xDS response/);
    expect(issue?.message).toContain(`${LIMIT} bytes`);
    expect(issue?.message).toContain("any client");
    // At the limit: published, served in one response, and the clients route to it (blue).
    expect(await fits(low)).toBe(true);
    await api.updateRouteConfiguration(shopRoutes(CLUSTERS[0] as string));
    await publish("one assignment at the limit");
    for (const [, , client] of clients) await untilAnswerIs(client, "blue");
  });
});
