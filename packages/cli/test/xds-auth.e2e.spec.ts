/**
 * Client authentication on the xDS port of a real `switchyard serve` process: bearer tokens made
 * by `switchyard xds-token`, over TLS, with a credentials file that is reread when it changes;
 * refusals counted in /metrics; inconsistent flags refused at start; the warning for an exposed
 * port with no authentication. Certificates are made at test time.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Code } from "@connectrpc/connect";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { adminToken, eventually } from "@switchyard/server/testing";
import { TypeUrl } from "@switchyard/snapshot";
import { createTestCa } from "@switchyard/testing";
import { createTestClient, type TestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, type ServeProcess, startServe } from "./processes.js";

/** Runs `switchyard xds-token` and reads the token and its file entry from what it prints. */
async function makeToken(name: string, group: string): Promise<{ token: string; entry: string }> {
  const made = run(["xds-token", "--name", name, "--node-group", group]);
  expect(await made.exited).toBe(0);
  const output = made.output();
  const token = /^\s+(syx_\S+)$/m.exec(output)?.[1];
  const entry = output.slice(output.indexOf("  - name:")).trimEnd();
  if (!token) throw new Error(`no token in: ${output}`);
  return { token, entry };
}

const credentialsFile = (entries: readonly string[]) =>
  entries.length === 0 ? "tokens: []\n" : `tokens:\n${entries.join("\n")}\n`;

describe("switchyard serve --xds-auth token over TLS", () => {
  let dir: string;
  let database: TestDatabase;
  let serve: ServeProcess;
  let caCert: string;
  let edge: { token: string; entry: string };
  let ops: { token: string; entry: string };
  const clients: TestClient[] = [];
  const clientWith = (token?: string) => {
    const client = createTestClient(`https://localhost:${serve.xdsPort}`, {
      tls: { ca: caCert },
      ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }),
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-xds-auth-"));
    const ca = createTestCa();
    caCert = ca.cert;
    const server = ca.issueServer({ commonName: "localhost", dns: ["localhost"] });
    fs.writeFileSync(path.join(dir, "xds.crt"), server.cert);
    fs.writeFileSync(path.join(dir, "xds.key"), server.key, { mode: 0o600 });
    [edge, ops] = await Promise.all([makeToken("edge-proxies", "*"), makeToken("ops", "*")]);
    fs.writeFileSync(path.join(dir, "credentials.yaml"), credentialsFile([edge.entry, ops.entry]));
    database = await createTestDatabase();
    serve = await startServe(
      [
        "--no-console",
        "--xds-auth",
        "token",
        "--xds-tls-cert",
        path.join(dir, "xds.crt"),
        "--xds-tls-key",
        path.join(dir, "xds.key"),
      ],
      {
        DATABASE_URL: database.url,
        SWITCHYARD_XDS_CREDENTIALS: path.join(dir, "credentials.yaml"),
      },
    );
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await serve?.stop();
    await database?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("prints that the xDS port speaks TLS with token authentication", () => {
    expect(serve.output()).toMatch(/xDS:.*\(gRPC, TLS; ADS; client authentication: token\)/);
  });

  it("serves a stream carrying a token from `switchyard xds-token`, and refuses one without with UNAUTHENTICATED, counted in /metrics", async () => {
    const served = clientWith(edge.token).open("ads", { node: { id: "edge-1" } });
    served.request(TypeUrl.Cluster, []);
    expect((await served.next(10_000)).typeUrl).toBe(TypeUrl.Cluster);

    const refused = clientWith().open("ads", { node: { id: "edge-1" } });
    refused.request(TypeUrl.Cluster, []);
    expect(await refused.ended(10_000)).toMatchObject({ code: Code.Unauthenticated });

    const metrics = await (await fetch(`${serve.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(
      /switchyard_xds_auth_refusals_total\{code="unauthenticated",reason="no_token"\} 1/,
    );
  });

  it("a node's status shows the credential its stream authenticated with (`switchyard node`)", async () => {
    const served = clientWith(edge.token).open("ads", { node: { id: "edge-2" } });
    served.request(TypeUrl.Cluster, []);
    await served.next(10_000);
    const token = await adminToken(serve.baseUrl);
    // Status reaches the database in batches: ask until the node is listed.
    let shown = "";
    await eventually("the node to be listed", async () => {
      const node = run(["node", "edge-2", "--server", serve.baseUrl], { SWITCHYARD_TOKEN: token });
      const code = await node.exited;
      shown = node.output();
      return code === 0;
    });
    expect(shown).toMatch(/^\s+credential\s+token:edge-proxies$/m);
  });

  it("a token removed from the credentials file stops working within seconds, its open stream included", async () => {
    const open = clientWith(ops.token).open("ads", { node: { id: "ops-1" } });
    open.request(TypeUrl.Cluster, []);
    await open.next(10_000);
    fs.writeFileSync(path.join(dir, "credentials.yaml"), credentialsFile([edge.entry]));
    const ended = await open.ended(10_000);
    expect(ended).toMatchObject({ code: Code.Unauthenticated });
    expect(ended?.message).toMatch(/token:ops was revoked/);

    const again = clientWith(ops.token).open("ads", { node: { id: "ops-1" } });
    again.request(TypeUrl.Cluster, []);
    expect(await again.ended(10_000)).toMatchObject({ code: Code.Unauthenticated });
  });
});

describe("switchyard serve: xDS authentication settings", () => {
  it("refuses --xds-auth mtls without a client CA in one line naming the flags to give", async () => {
    const serve = run(["serve", "--no-console", "--http-port", "0", "--xds-auth", "mtls"]);
    expect(await serve.exited).not.toBe(0);
    const output = serve.output().trim();
    expect(output.split("\n")).toHaveLength(1);
    expect(output).toMatch(
      /--xds-auth mtls needs .*--xds-tls-cert, --xds-tls-key and --xds-client-ca/,
    );
  });

  it("refuses an invalid credentials file naming the file and the field", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-xds-auth-"));
    try {
      const file = path.join(dir, "credentials.yaml");
      fs.writeFileSync(file, "tokens:\n  - name: edge\n    sha256: nope\n    nodeGroups: [edge]\n");
      const serve = run(["serve", "--no-console", "--http-port", "0", "--xds-port", "0"], {
        SWITCHYARD_XDS_AUTH: "token",
        SWITCHYARD_XDS_CREDENTIALS: file,
      });
      expect(await serve.exited).not.toBe(0);
      expect(serve.output()).toContain(
        `the xDS credentials file ${file} is invalid: tokens.0.sha256`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
