import { randomBytes } from "node:crypto";
import * as http from "node:http";
import { create } from "@bufbuild/protobuf";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { SecretSchema, SecretType } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type Harness,
  portListener,
  routeConfiguration,
  startHarness,
} from "@switchyard/server/testing";
import { TypeUrl } from "@switchyard/snapshot";
import { createTestCa } from "@switchyard/testing";
import { createTestClient, namesOf } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, startServe, waitFor } from "./processes.js";

/**
 * Issue 22, point 6: a fresh server's xDS port handed every private key to whoever asked: a web
 * page through DNS rebinding (`POST /v3/discovery:secrets`, foreign Host, text/plain), or any
 * process that reached a port bound to all interfaces. Now secrets go to authenticated clients
 * only, REST-JSON answers only application/json at known hosts, and `serve` refuses to expose an
 * unauthenticated xDS port beyond loopback unless told --insecure.
 */
describe("the xDS port and private keys", () => {
  let harness: Harness;
  const pair = createTestCa("exposure CA").issueServer({ commonName: "shop.example" });

  /** POSTs to the REST secrets endpoint with the Host and content-type given. */
  const postSecrets = (host: string, contentType: string) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const body = JSON.stringify({ node: { id: "page" }, resource_names: ["shop-cert"] });
      const request = http.request(`http://127.0.0.1:${harness.app.xdsPort}/v3/discovery:secrets`, {
        method: "POST",
        headers: { host, "content-type": contentType },
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

  beforeAll(async () => {
    harness = await startHarness({
      app: { secretsKey: { t: "key", key: new Uint8Array(randomBytes(32)), source: "env" } },
    });
    const api = harness.api();
    await api.createSecret(
      create(SecretSchema, {
        name: "shop-cert",
        type: SecretType.TLS_CERTIFICATE,
        certificateChain: pair.cert,
        privateKey: pair.key,
      }),
    );
    await api.createRouteConfiguration(routeConfiguration("routes", []));
    await api.createListener(portListener("shop", 8443, "routes", { tlsSecretName: "shop-cert" }));
    await api.publish({ message: "a TLS listener" });
  });

  afterAll(async () => {
    await harness?.stop();
  });

  it("answers the rebinding page's request (foreign Host, text/plain) with no key", async () => {
    const answer = await postSecrets(`evil.example:${harness.app.xdsPort}`, "text/plain");

    expect(answer.status).toBe(421);
    expect(answer.text).not.toContain("PRIVATE KEY");
  });

  it("answers a cross-site form post (text/plain) at the right host with no key", async () => {
    const answer = await postSecrets("127.0.0.1", "text/plain");

    expect(answer.status).toBe(415);
    expect(answer.text).not.toContain("PRIVATE KEY");
  });

  it("answers a well-formed request from a client that did not authenticate 401, with no key", async () => {
    const answer = await postSecrets("127.0.0.1", "application/json");

    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.text).message).toContain("--xds-auth token or mtls");
    expect(answer.text).not.toContain("PRIVATE KEY");
  });

  it("serves an anonymous ADS client its listener but not the secret the listener names", async () => {
    const xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);
    try {
      const stream = xds.open("ads", { node: { id: "anonymous-edge", cluster: "edge" } });
      stream.request(TypeUrl.Listener, []);
      const listeners = await stream.next();
      expect(namesOf(listeners)).toEqual(["shop"]);
      stream.ack(listeners, []);
      stream.request(TypeUrl.Secret, ["shop-cert"]);
      await stream.expectNoResponse(500);
      stream.close();
    } finally {
      xds.close();
    }
  });
});

describe("serve and an xDS port beyond loopback", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("refuses to start on all interfaces without client authentication, saying what to do", async () => {
    const refused = run(["serve", "--no-console", "--host", "0.0.0.0"], {
      DATABASE_URL: database.url,
    });

    expect(await refused.exited).not.toBe(0);
    expect(refused.output()).toContain("with no client authentication");
    expect(refused.output()).toContain("--insecure");
  });

  it("starts there when told --insecure, and warns what any client that reaches it gets", async () => {
    const serve = await startServe(["--no-console", "--host", "0.0.0.0", "--insecure"], {
      DATABASE_URL: database.url,
    });
    try {
      expect(serve.output()).toContain("Switchyard is running");
      await waitFor(
        () =>
          serve.output().includes("reachable beyond this machine with no client authentication"),
        "the warning",
        10_000,
      );
      expect(serve.output()).toMatch(/--xds-auth mtls/);
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });
});
