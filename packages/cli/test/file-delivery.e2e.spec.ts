/**
 * File delivery with a real `switchyard serve --file-delivery DIR` process: every version
 * published is written as DiscoveryResponse files per node group, renamed into place, so a reader
 * polling the files while versions are published in a row never reads part of one.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromJson } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { registry } from "@switchyard/proto";
import { DiscoveryResponseSchema } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { adminToken, bearer, shopListener, shopRoutes, until } from "@switchyard/server/testing";
import { TypeUrl } from "@switchyard/snapshot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type ServeProcess, startServe } from "./processes.js";

describe("file delivery from a real server process", () => {
  let database: TestDatabase;
  let folder: string;
  let server: ServeProcess;
  let api: ReturnType<typeof createClient<typeof ConfigService>>;

  const cluster = (name: string, port: number) => ({
    name,
    localities: [{ weight: 1, endpoints: [{ address: "127.0.0.1", port }] }],
  });
  /** A file as Envoy would read it: a whole DiscoveryResponse, or it throws. */
  const read = (path: string) =>
    fromJson(DiscoveryResponseSchema, parse(readFileSync(join(folder, path), "utf8")), {
      registry,
    });

  beforeAll(async () => {
    database = await createTestDatabase();
    folder = mkdtempSync(join(tmpdir(), "switchyard-files-"));
    server = await startServe(["--no-console", "--file-delivery", folder], {
      DATABASE_URL: database.url,
    });
    api = createClient(
      ConfigService,
      createConnectTransport({
        baseUrl: server.baseUrl,
        httpVersion: "1.1",
        interceptors: [bearer(await adminToken(server.baseUrl))],
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it("writes each published version as CDS, EDS, LDS and RDS files of the default group, pointing at each other", async () => {
    await api.createCluster(cluster("blue", 50051));
    await api.createRouteConfiguration(shopRoutes("blue"));
    await api.createListener(shopListener());
    await api.publish({ message: "shop" });
    // The listeners' file comes after the assignments', clusters' and route configurations'
    // (make-before-break order): once it is in place, so are they.
    const lds = await until(
      async () => read("default/lds.yaml"),
      (r) => r.versionInfo === "1",
      "lds.yaml of version 1",
    );
    expect(lds.resources).toHaveLength(1);
    const cds = read("default/cds.yaml");
    expect(cds.versionInfo).toBe("1");
    expect(cds.typeUrl).toBe(TypeUrl.Cluster);
    expect(cds.resources).toHaveLength(1);
    const eds = read("default/eds/blue.yaml");
    expect(eds.resources).toHaveLength(1);
    expect(read("default/rds/shop-routes.yaml").versionInfo).toBe("1");
    // The cluster loads its endpoints from the file beside it, not over ADS.
    expect(readFileSync(join(folder, "default/cds.yaml"), "utf8")).toContain(
      `path: ${join(folder, "default/eds/blue.yaml")}`,
    );
  });

  it("a reader polling the files while ten versions are published never reads part of a file, and an assignment nothing uses is deleted", async () => {
    let reading = true;
    const seen: number[] = [];
    const torn: string[] = [];
    const reader = (async () => {
      while (reading) {
        try {
          seen.push(Number(read("default/cds.yaml").versionInfo));
        } catch (error) {
          torn.push(String(error));
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let i = 0; i < 10; i += 1) {
      await api.createCluster(cluster(`extra-${i}`, 50100 + i));
      await api.publish({ message: `extra ${i}` });
    }
    await until(
      async () => read("default/cds.yaml"),
      (r) => r.versionInfo === "11",
      "cds.yaml of version 11",
    );
    reading = false;
    await reader;
    expect(torn).toEqual([]);
    expect(seen.length).toBeGreaterThan(10);
    // Versions only move forward.
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(read("default/cds.yaml").resources).toHaveLength(11);

    await api.deleteCluster({ name: "extra-0" });
    await api.publish({ message: "no extra-0" });
    await until(
      async () => readdirSync(join(folder, "default/eds")),
      (names) => !names.includes("extra-0.yaml") && names.includes("extra-1.yaml"),
      "extra-0's assignment file deleted",
    );
    // No temporary file is left behind.
    expect(readdirSync(join(folder, "default")).filter((n) => n.startsWith("."))).toEqual([]);
  });

  it("a cluster named with 250 characters is written under a shortened name, and later versions still reach disk", async () => {
    const long = `svc-${"x".repeat(246)}`;
    await api.createCluster(cluster(long, 50200));
    await api.publish({ message: "a long name" });
    await api.createCluster(cluster("after-long", 50201));
    const version = (await api.publish({ message: "after it" })).snapshot?.version;

    const cds = await until(
      async () => read("default/cds.yaml"),
      (r) => r.versionInfo === String(version),
      `cds.yaml of version ${version}`,
    );
    expect(cds.resources.length).toBeGreaterThan(2);
    const edsFiles = readdirSync(join(folder, "default/eds"));
    expect(edsFiles).toContain("after-long.yaml");
    const shortened = edsFiles.find((name) => name.startsWith("svc-x"));
    expect(shortened).toMatch(/^svc-x+\+[0-9a-f]{32}\.yaml$/);
    expect(read(`default/eds/${shortened}`).versionInfo).toBe(String(version));
  });
});
