/**
 * Client authentication on the xDS port (client-auth.ts), over real gRPC streams and REST-JSON
 * requests: mTLS against a client CA, bearer tokens, node-group entitlement, revocation, and the
 * default (no authentication). Certificates are made at test time (@switchyard/testing).
 */
import * as https from "node:https";
import { Code } from "@connectrpc/connect";
import { TypeUrl } from "@switchyard/snapshot";
import { createTestCa, type KeyAndCertificate, type TestCa } from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex, type XdsCredentials } from "./client-auth.js";
import {
  createTestClient,
  namesOf,
  startTestServer,
  type TestClient,
  type TestServer,
} from "./test-client.js";
import { EDGE_NODE_ID, world } from "./test-world.js";

/** The world's groups: edge-1 is in "edge" (svc-b only); every other node is in "default". */
const EDGE_LISTENERS = ["svc-b"];
const ALL_LISTENERS = ["svc-a", "svc-b"];
const EDGE_SPIFFE = "spiffe://switchyard.test/edge";

/** The listener names a node gets on a fresh ADS stream, or the error the stream ends with. */
async function listenersOf(client: TestClient, nodeId: string, delta = false) {
  if (delta) {
    const stream = client.openDelta("ads", { node: { id: nodeId } });
    stream.request(TypeUrl.Listener, ["*"]);
    return stream.next().then(
      (response) => response.resources.map((r) => r.name).sort(),
      async () => stream.ended(),
    );
  }
  const stream = client.open("ads", { node: { id: nodeId } });
  stream.request(TypeUrl.Listener, []);
  return stream.next().then(
    (response) => namesOf(response).sort(),
    async () => stream.ended(),
  );
}

/** POSTs a REST-JSON LDS request over HTTPS/1.1; resolves with the status and parsed body. */
function restOverTls(
  server: TestServer,
  tls: { ca: string; cert?: string; key?: string },
  nodeId: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: { message?: string; resources?: { name: string }[] } }> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      `${server.baseUrl}/v3/discovery:listeners`,
      {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        ...tls,
        agent: false,
      },
      (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : {} }),
        );
      },
    );
    request.on("error", reject);
    request.end(JSON.stringify({ node: { id: nodeId } }));
  });
}

describe("mTLS required (auth mode mtls with a client CA)", () => {
  let ca: TestCa;
  let otherCa: TestCa;
  let server: TestServer;
  let serverCert: KeyAndCertificate;
  const clients: TestClient[] = [];
  const clientWith = (cert?: KeyAndCertificate) => {
    const client = createTestClient(server.baseUrl, {
      tls: { ca: ca.cert, ...(cert ? { cert: cert.cert, key: cert.key } : {}) },
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    ca = createTestCa("xds client CA");
    otherCa = createTestCa("some other CA");
    serverCert = ca.issueServer({ commonName: "localhost", dns: ["localhost"] });
    server = await startTestServer(world(), {
      tls: { cert: serverCert.cert, key: serverCert.key, clientCa: ca.cert },
      auth: {
        mode: "mtls",
        credentials: {
          tokens: [],
          certificates: [{ subject: EDGE_SPIFFE, nodeGroups: ["edge"] }],
        },
      },
    });
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await server?.close();
  });

  it("a client without a certificate is refused with UNAUTHENTICATED, saying a client certificate is required", async () => {
    const ended = await listenersOf(clientWith(), "anyone");
    expect(ended).toMatchObject({ code: Code.Unauthenticated });
    expect(String((ended as Error).message)).toMatch(/requires a client certificate/);
    expect(server.refusals.at(-1)).toMatchObject({
      code: "unauthenticated",
      reason: "no_certificate",
      transport: "grpc",
    });
  });

  it("a certificate signed by another CA is refused with UNAUTHENTICATED, naming it and why it is not trusted", async () => {
    const stranger = otherCa.issueClient({ commonName: "stranger" });
    const ended = await listenersOf(clientWith(stranger), "anyone");
    expect(ended).toMatchObject({ code: Code.Unauthenticated });
    expect(String((ended as Error).message)).toMatch(
      /client certificate "stranger" is not trusted/,
    );
    expect(server.refusals.at(-1)).toMatchObject({ reason: "untrusted_certificate" });
  });

  it("a certificate from the client CA that no entry narrows is served its node's group, and the stream records who it is", async () => {
    const good = ca.issueClient({ commonName: "ops-box", dns: ["ops.switchyard.test"] });
    expect(await listenersOf(clientWith(good), "plain-node")).toEqual(ALL_LISTENERS);
    expect(server.opened.at(-1)).toMatchObject({
      node: { id: "plain-node" },
      identity: "certificate:ops.switchyard.test",
    });
  });

  it("a certificate listed for node group edge is served edge's config on a Delta stream as well", async () => {
    const edge = ca.issueClient({ commonName: "edge-proxy", uris: [EDGE_SPIFFE] });
    expect(await listenersOf(clientWith(edge), EDGE_NODE_ID, true)).toEqual(EDGE_LISTENERS);
    expect(server.opened.at(-1)?.identity).toBe(`certificate:${EDGE_SPIFFE}`);
  });

  it("a node claiming a node id of another group with an edge certificate is refused with PERMISSION_DENIED, naming the group and the credential", async () => {
    const edge = ca.issueClient({ commonName: "edge-proxy", uris: [EDGE_SPIFFE] });
    const ended = await listenersOf(clientWith(edge), "payments-1");
    expect(ended).toMatchObject({ code: Code.PermissionDenied });
    expect(String((ended as Error).message)).toContain(
      `node "payments-1" selects node group "default", but its credential certificate:${EDGE_SPIFFE} may be served only node group "edge"`,
    );
    expect(server.refusals.at(-1)).toMatchObject({
      code: "permission_denied",
      reason: "node_group",
      nodeId: "payments-1",
    });
    expect(server.opened.some((event) => event.node.id === "payments-1")).toBe(false);
  });

  it("REST-JSON is served over TLS (HTTP/1.1 by ALPN) to a client certificate, and answers 401 with the reason without one", async () => {
    const good = ca.issueClient({ commonName: "rest-poller" });
    const served = await restOverTls(server, { ca: ca.cert, ...good }, "rest-node");
    expect(served.status).toBe(200);
    expect(served.body.resources?.map((r) => r.name).sort()).toEqual(ALL_LISTENERS);

    const refused = await restOverTls(server, { ca: ca.cert }, "rest-node");
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/requires a client certificate/);
    expect(server.refusals.at(-1)).toMatchObject({ transport: "rest", reason: "no_certificate" });
  });

  it("REST-JSON answers 403 to an edge certificate asking for another group's node", async () => {
    const edge = ca.issueClient({ commonName: "edge-proxy", uris: [EDGE_SPIFFE] });
    const refused = await restOverTls(server, { ca: ca.cert, ...edge }, "payments-1");
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/selects node group "default"/);
  });
});

describe("bearer token required (auth mode token, over TLS)", () => {
  const EDGE_TOKEN = "syx_edge_0123456789abcdef";
  const ANY_TOKEN = "syx_any_fedcba9876543210";
  const credentials = (tokens: XdsCredentials["tokens"]): XdsCredentials => ({
    tokens,
    certificates: [],
  });
  const edgeGrant = { name: "edge-proxies", sha256: sha256Hex(EDGE_TOKEN), nodeGroups: ["edge"] };
  const anyGrant = { name: "ops", sha256: sha256Hex(ANY_TOKEN), nodeGroups: ["*"] };
  let ca: TestCa;
  let server: TestServer;
  const clients: TestClient[] = [];
  const clientWith = (authorization?: string) => {
    const client = createTestClient(server.baseUrl, {
      tls: { ca: ca.cert },
      ...(authorization === undefined ? {} : { headers: { authorization } }),
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    ca = createTestCa("xds server CA");
    const serverCert = ca.issueServer({ commonName: "localhost", dns: ["localhost"] });
    server = await startTestServer(world(), {
      tls: { cert: serverCert.cert, key: serverCert.key },
      auth: { mode: "token", credentials: credentials([edgeGrant, anyGrant]) },
    });
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await server?.close();
  });

  it("a call without a token is refused with UNAUTHENTICATED, saying how to send one", async () => {
    const ended = await listenersOf(clientWith(), EDGE_NODE_ID);
    expect(ended).toMatchObject({ code: Code.Unauthenticated });
    expect(String((ended as Error).message)).toMatch(/authorization: Bearer <token>/);
    expect(server.refusals.at(-1)).toMatchObject({ reason: "no_token" });
  });

  it("an authorization that is not a bearer token is refused with UNAUTHENTICATED", async () => {
    const ended = await listenersOf(clientWith(`Basic ${EDGE_TOKEN}`), EDGE_NODE_ID, true);
    expect(ended).toMatchObject({ code: Code.Unauthenticated });
    expect(server.refusals.at(-1)).toMatchObject({ reason: "malformed_authorization" });
  });

  it("a wrong (unknown) token is refused with UNAUTHENTICATED", async () => {
    const ended = await listenersOf(clientWith("Bearer syx_not_a_real_token"), EDGE_NODE_ID);
    expect(ended).toMatchObject({ code: Code.Unauthenticated });
    expect(String((ended as Error).message)).toMatch(/not one this xDS server accepts/);
    expect(server.refusals.at(-1)).toMatchObject({ reason: "unknown_token" });
  });

  it("the right token is served its node's group, and the stream records the token's name", async () => {
    expect(await listenersOf(clientWith(`Bearer ${EDGE_TOKEN}`), EDGE_NODE_ID)).toEqual(
      EDGE_LISTENERS,
    );
    expect(server.opened.at(-1)?.identity).toBe("token:edge-proxies");
  });

  it("a node claiming another group's node id with the edge token is refused with PERMISSION_DENIED", async () => {
    const ended = await listenersOf(clientWith(`Bearer ${EDGE_TOKEN}`), "payments-1", true);
    expect(ended).toMatchObject({ code: Code.PermissionDenied });
    expect(String((ended as Error).message)).toMatch(
      /credential token:edge-proxies may be served only node group "edge"/,
    );
  });

  it("a token granted every group (*) is served whatever group its node selects", async () => {
    const client = clientWith(`Bearer ${ANY_TOKEN}`);
    expect(await listenersOf(client, "payments-1")).toEqual(ALL_LISTENERS);
    expect(await listenersOf(client, EDGE_NODE_ID)).toEqual(EDGE_LISTENERS);
  });

  it("revoking a token ends its open streams with UNAUTHENTICATED and refuses it from then on", async () => {
    const client = clientWith(`Bearer ${EDGE_TOKEN}`);
    const stream = client.open("ads", { node: { id: EDGE_NODE_ID } });
    stream.request(TypeUrl.Listener, []);
    await stream.next();
    server.server.setCredentials(credentials([anyGrant]));
    try {
      const ended = await stream.ended();
      expect(ended).toMatchObject({ code: Code.Unauthenticated });
      expect(String(ended?.message)).toMatch(/token:edge-proxies was revoked/);
      expect(server.refusals.at(-1)).toMatchObject({ reason: "revoked", nodeId: EDGE_NODE_ID });
      const again = await listenersOf(clientWith(`Bearer ${EDGE_TOKEN}`), EDGE_NODE_ID);
      expect(again).toMatchObject({ code: Code.Unauthenticated });
    } finally {
      server.server.setCredentials(credentials([edgeGrant, anyGrant]));
    }
  });

  it("a publish that moves an open node out of its token's group ends the stream with PERMISSION_DENIED", async () => {
    const client = clientWith(`Bearer ${EDGE_TOKEN}`);
    const stream = client.open("ads", { node: { id: EDGE_NODE_ID, cluster: "moved" } });
    stream.request(TypeUrl.Listener, []);
    expect(namesOf(await stream.next()).sort()).toEqual(EDGE_LISTENERS);
    const moved = world();
    try {
      // edge-1 is no longer in group edge: it selects the default group now.
      server.publish({
        ...moved,
        nodeGroups: moved.nodeGroups.map((group) => ({ ...group, nodeIds: ["someone-else"] })),
      });
      const ended = await stream.ended();
      expect(ended).toMatchObject({ code: Code.PermissionDenied });
    } finally {
      server.publish(world());
    }
  });

  it("replacing the credentials with inconsistent ones throws and keeps the old ones", async () => {
    expect(() =>
      server.server.setCredentials(credentials([edgeGrant, { ...anyGrant, name: "edge-proxies" }])),
    ).toThrow(/the name is used twice/);
    expect(await listenersOf(clientWith(`Bearer ${EDGE_TOKEN}`), EDGE_NODE_ID)).toEqual(
      EDGE_LISTENERS,
    );
  });
});

describe("no client authentication (the default)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(world());
  });
  afterAll(async () => server?.close());

  it("a cleartext client with no credential is served, and its stream has no identity", async () => {
    expect(await listenersOf(server.client, "anyone")).toEqual(ALL_LISTENERS);
    expect(server.opened.at(-1)?.identity).toBe("");
    expect(server.refusals).toEqual([]);
  });

  it("a node may claim any group's node id", async () => {
    expect(await listenersOf(server.client, EDGE_NODE_ID)).toEqual(EDGE_LISTENERS);
  });
});
