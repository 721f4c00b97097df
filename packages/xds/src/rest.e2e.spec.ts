/**
 * REST-JSON discovery (`POST /v3/discovery:*`) on the xDS port, over HTTP/1.1 (Node's fetch) and
 * HTTP/2. Every test gets its own server, with a short long-poll bound.
 */
import * as http from "node:http";
import * as http2 from "node:http2";
import * as net from "node:net";
import { TypeUrl } from "@switchyard/snapshot";
import { it as base, describe, expect } from "vitest";
import { namesOf, startTestServer, type TestServer } from "./test-client.js";
import { EDGE_NODE_ID, world } from "./test-world.js";

/**
 * The long poll's bound on the shared server: an answer "at once" comes well before it, with
 * seconds to spare on a loaded machine. The test of the bound itself runs a server of its own
 * with a short one (SHORT_BOUND_MS): waiting is what it measures, and a slow host only waits longer.
 */
const BOUND_MS = 5_000;
const SHORT_BOUND_MS = 300;
const NODE = { id: "rest-node" };

const it = base.extend<{ xds: TestServer }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  xds: async ({}, use) => {
    const server = await startTestServer(world(), { restLongPollTimeoutMs: BOUND_MS });
    await use(server);
    await server.close();
  },
});

interface JsonResource {
  readonly "@type": string;
  readonly name?: string;
  readonly clusterName?: string;
}

interface JsonDiscoveryResponse {
  readonly versionInfo: string;
  readonly typeUrl: string;
  readonly resources: readonly JsonResource[];
}

function post(xds: TestServer, endpoint: string, body: unknown, init: RequestInit = {}) {
  return fetch(`${xds.baseUrl}/v3/discovery:${endpoint}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

async function discover(xds: TestServer, endpoint: string, body: object) {
  const response = await post(xds, endpoint, body);
  expect(response.status).toBe(200);
  return (await response.json()) as JsonDiscoveryResponse;
}

const namesIn = (response: JsonDiscoveryResponse) =>
  response.resources.map((r) => r.name ?? r.clusterName);

describe.concurrent("REST-JSON discovery", () => {
  it("a wildcard CDS request returns every cluster, each with its @type", async ({
    xds,
    expect,
  }) => {
    const response = await discover(xds, "clusters", { node: NODE });
    expect(response.typeUrl).toBe(TypeUrl.Cluster);
    expect(namesIn(response)).toEqual(["a", "b"]);
    expect(response.resources.map((r) => r["@type"])).toEqual([TypeUrl.Cluster, TypeUrl.Cluster]);
    expect(response.versionInfo).not.toBe("");
  });

  it("a named EDS request returns just the assignments named", async ({ xds, expect }) => {
    const response = await discover(xds, "endpoints", { node: NODE, resource_names: ["b"] });
    expect(namesIn(response)).toEqual(["b"]);
    expect(response.resources[0]?.["@type"]).toBe(TypeUrl.ClusterLoadAssignment);
  });

  it("LDS and RDS are served on their endpoints", async ({ xds, expect }) => {
    expect(namesIn(await discover(xds, "listeners", { node: NODE }))).toEqual(["svc-a", "svc-b"]);
    const routes = await discover(xds, "routes", { node: NODE, resourceNames: ["routes-b"] });
    expect(namesIn(routes)).toEqual(["routes-b"]);
  });

  it("the node in the request selects its node group's configuration", async ({ xds, expect }) => {
    const response = await discover(xds, "clusters", { node: { id: EDGE_NODE_ID } });
    expect(namesIn(response)).toEqual(["b"]);
  });

  it("the version of a wildcard CDS answer is the version a SotW stream is sent", async ({
    xds,
    expect,
  }) => {
    const stream = xds.client.open(TypeUrl.Cluster);
    stream.request(TypeUrl.Cluster, []);
    const sotw = await stream.next();
    expect(namesOf(sotw)).toEqual(["a", "b"]);
    const rest = await discover(xds, "clusters", { node: NODE });
    expect(rest.versionInfo).toBe(sotw.versionInfo);
  });

  it("a request at an older version is answered at once", async ({ xds, expect }) => {
    const started = Date.now();
    const response = await discover(xds, "clusters", { node: NODE, versionInfo: "older" });
    expect(namesIn(response)).toEqual(["a", "b"]);
    expect(Date.now() - started).toBeLessThan(BOUND_MS);
  });

  it("a request at the current version waits, and returns as soon as a publish changes a resource", async ({
    xds,
    expect,
  }) => {
    const { versionInfo } = await discover(xds, "clusters", { node: NODE });
    let answered = false;
    const pending = post(xds, "clusters", { node: NODE, versionInfo }).then((response) => {
      answered = true;
      return response;
    });
    // The request now waits on a watch. The publish comes after: an answer at the new version is
    // one that waited for it.
    await expect.poll(() => xds.cache.watchCount).toBe(1);
    expect(answered).toBe(false);
    const published = Date.now();
    xds.publish(world({ clusterATimeoutMs: 2000 }));
    const response = await pending;
    const elapsed = Date.now() - published;
    expect(response.status).toBe(200);
    const body = (await response.json()) as JsonDiscoveryResponse;
    expect(body.versionInfo).not.toBe(versionInfo);
    expect(namesIn(body)).toEqual(["a", "b"]);
    expect(elapsed).toBeLessThan(BOUND_MS);
  });

  it("a request at the current version is answered 304 with no body after the bound when nothing it asked for changed", async ({
    expect,
  }) => {
    const xds = await startTestServer(world(), { restLongPollTimeoutMs: SHORT_BOUND_MS });
    try {
      const { versionInfo } = await discover(xds, "endpoints", {
        node: NODE,
        resourceNames: ["a"],
      });
      const started = Date.now();
      const pending = post(xds, "endpoints", { node: NODE, resourceNames: ["a"], versionInfo });
      // A publish that changes another assignment, while the request waits, does not end the wait.
      await expect.poll(() => xds.cache.watchCount).toBe(1);
      xds.publish(world({ endpointBPort: 9001 }));
      const response = await pending;
      expect(response.status).toBe(304);
      expect(await response.text()).toBe("");
      expect(Date.now() - started).toBeGreaterThanOrEqual(SHORT_BOUND_MS - 5);
    } finally {
      await xds.close();
    }
  });

  it("a client that goes away during a long poll releases its watch", async ({ xds, expect }) => {
    const { versionInfo } = await discover(xds, "clusters", { node: NODE });
    const abort = new AbortController();
    const pending = post(xds, "clusters", { node: NODE, versionInfo }, { signal: abort.signal });
    await expect.poll(() => xds.cache.watchCount).toBe(1);
    abort.abort();
    await expect(pending).rejects.toThrow();
    await expect.poll(() => xds.cache.watchCount).toBe(0);
  });

  it("closing the server ends pending long polls at once", async ({ xds, expect }) => {
    const { versionInfo } = await discover(xds, "clusters", { node: NODE });
    const pending = post(xds, "clusters", { node: NODE, versionInfo });
    await expect.poll(() => xds.cache.watchCount).toBe(1);
    const started = Date.now();
    await xds.close();
    await expect(pending).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(BOUND_MS);
    expect(xds.cache.watchCount).toBe(0);
  });

  it("REST is served over HTTP/2 on the same port as gRPC", async ({ xds, expect }) => {
    const session = http2.connect(xds.baseUrl);
    try {
      const { status, body } = await new Promise<{ status: number; body: string }>(
        (resolve, reject) => {
          const stream = session.request({
            ":method": "POST",
            ":path": "/v3/discovery:clusters",
            "content-type": "application/json",
          });
          let status = 0;
          let body = "";
          stream.on("response", (headers) => {
            status = Number(headers[":status"]);
          });
          stream.setEncoding("utf8");
          stream.on("data", (chunk: string) => {
            body += chunk;
          });
          stream.on("end", () => resolve({ status, body }));
          stream.on("error", reject);
          stream.end(JSON.stringify({ node: NODE, resourceNames: ["a"] }));
        },
      );
      expect(status).toBe(200);
      expect(namesIn(JSON.parse(body) as JsonDiscoveryResponse)).toEqual(["a"]);
    } finally {
      session.close();
    }
  });
});

describe.concurrent("REST-JSON on the shared port", () => {
  it("an HTTP/1.1 request whose first byte arrives alone (it could begin the HTTP/2 preface) is served", async ({
    xds,
    expect,
  }) => {
    const body = JSON.stringify({ node: NODE, resourceNames: ["a"] });
    const socket = net.connect(Number(new URL(xds.baseUrl).port), "127.0.0.1");
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      answer += chunk;
    });
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write("P");
    // A real pause: nothing tells the client that the server has read "P" on its own.
    await new Promise((resolve) => setTimeout(resolve, 30));
    socket.end(
      `OST /v3/discovery:endpoints HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    );
    await new Promise((resolve) => socket.once("close", resolve));
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
  });
});

describe.concurrent("REST-JSON errors", () => {
  it.for([
    ["a body that is not JSON", '{"node": ', "$", "not JSON"],
    ["an unknown field", { node: NODE, nodes: {} }, "$.nodes", 'key "nodes" is unknown'],
    ["an unknown nested field", { node: { idd: "x" } }, "$.node.idd", 'key "idd" is unknown'],
    [
      "a list item of the wrong type",
      { node: NODE, resource_names: ["a", 1] },
      "$.resource_names[1]",
      "expected string",
    ],
    [
      "a nested value of the wrong type",
      { node: { id: "x", locality: { zone: 3 } } },
      "$.node.locality.zone",
      "expected string",
    ],
    ["a body that is not an object", [], "$", "must be a JSON object"],
    ["a missing node", { resourceNames: [] }, "$.node", "no node"],
    [
      "a type_url of another type",
      { node: NODE, type_url: TypeUrl.Listener },
      "$.type_url",
      TypeUrl.Listener,
    ],
  ] as const)(
    "%s gets 400 with a message and the path where",
    async ([, body, path, says], { xds, expect }) => {
      const response = await post(xds, "clusters", body);
      expect(response.status).toBe(400);
      const problem = (await response.json()) as { message: string; path: string };
      expect(problem.path).toBe(path);
      expect(problem.message).toContain(says);
    },
  );

  it("a method other than POST gets 405 naming the allowed method", async ({ xds, expect }) => {
    const response = await fetch(`${xds.baseUrl}/v3/discovery:clusters`);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });

  it("an unknown discovery path gets 404 listing the endpoints", async ({ xds, expect }) => {
    const response = await post(xds, "scoped-routes", { node: NODE });
    expect(response.status).toBe(404);
    const problem = (await response.json()) as { message: string };
    expect(problem.message).toContain("/v3/discovery:clusters");
  });
});

/** POSTs `body` over HTTP/1.1 with the Host and content-type given (fetch cannot set Host). */
function postAs(
  baseUrl: string,
  endpoint: string,
  headers: { host: string; "content-type": string },
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}/v3/discovery:${endpoint}`, {
      method: "POST",
      headers: { ...headers, "content-length": Buffer.byteLength(body) },
    });
    request.on("response", (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

describe("REST-JSON and web pages (DNS rebinding, cross-site posts)", () => {
  const body = JSON.stringify({ node: NODE });
  const json = "application/json";

  it("refuses a request whose Host is a name the server was not given: a rebinding page's", async ({
    xds,
  }) => {
    const port = new URL(xds.baseUrl).port;

    const answer = await postAs(
      xds.baseUrl,
      "clusters",
      { host: `evil.example:${port}`, "content-type": json },
      body,
    );

    expect(answer.status).toBe(421);
    expect(JSON.parse(answer.text).message).toContain('does not answer to host "evil.example"');
    expect(answer.text).not.toContain("resources");
  });

  it("answers at an IP address, localhost, and a host name it is given (any case, trailing dot)", async () => {
    const server = await startTestServer(world(), { restHosts: ["xds.internal"] });
    try {
      for (const host of [
        "127.0.0.1",
        "[::1]:18000",
        "localhost",
        "XDS.internal.",
        "xds.internal:443",
      ]) {
        const answer = await postAs(
          server.baseUrl,
          "clusters",
          { host, "content-type": json },
          body,
        );
        expect(answer.status, host).toBe(200);
      }
    } finally {
      await server.close();
    }
  });

  it("refuses a body that is not sent as application/json (a form, a text/plain fetch)", async ({
    xds,
  }) => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]) {
      const answer = await postAs(
        xds.baseUrl,
        "clusters",
        { host: "127.0.0.1", "content-type": type },
        body,
      );
      expect(answer.status, type).toBe(415);
      expect(JSON.parse(answer.text).message).toContain(`not "${type}"`);
    }
  });
});
