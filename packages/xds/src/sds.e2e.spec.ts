/**
 * SDS over real gRPC streams: secrets subscribed by name on SotW and Delta ADS and on the per-type
 * SecretDiscoveryService, as Envoy subscribes to the secret a TLS context names
 * (tls_certificate_sds_secret_configs, validation_context_sds_secret_config). Certificates and
 * keys are made at test time (@switchyard/testing); the private keys are sealed in the spec and
 * opened only by the compiler. Secrets are served to authenticated clients only (a bearer token
 * here); what an anonymous client gets is the last block.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Any } from "@bufbuild/protobuf/wkt";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { registry } from "@switchyard/proto";
import {
  type Secret,
  SecretSchema,
} from "@switchyard/proto/envoy/extensions/transport_sockets/tls/v3/secret_pb";
import { type ConfigSpec, createSecretBox, TypeUrl } from "@switchyard/snapshot";
import {
  clusterSpec,
  configSpec,
  endpointSpec,
  filterChainSpec,
  routeConfigurationSpec,
  socketListenerSpec,
  tlsSecretSpec,
  validationSecretSpec,
} from "@switchyard/snapshot/fixtures";
import { createTestCa, type KeyAndCertificate } from "@switchyard/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  deltaNamesOf,
  namesOf,
  startTestServer,
  type TestClient,
  type TestServer,
} from "./test-client.js";

const SDS = TypeUrl.Secret;
const node = { id: "sds-node", cluster: "edge" };
const box = createSecretBox(randomBytes(32));
const ca = createTestCa("sds e2e CA");
const first = ca.issueServer({ commonName: "edge.example", dns: ["edge.example"] });
const second = ca.issueServer({ commonName: "edge.example", dns: ["edge.example"] });
const token = `syx_${randomBytes(16).toString("hex")}`;
const tokenAuth = {
  mode: "token",
  credentials: {
    tokens: [
      {
        name: "edge",
        sha256: createHash("sha256").update(token).digest("hex"),
        nodeGroups: ["*"],
      },
    ],
    certificates: [],
  },
} as const;
const authorization = { authorization: `Bearer ${token}` };

interface Knobs {
  readonly pair?: KeyAndCertificate;
  /** Without the TLS listener and its certificate. */
  readonly withoutTls?: boolean;
  readonly backendTimeoutMs?: number;
}

/** Listener "tls" presents secret edge-cert; cluster "backend" checks upstreams with backend-ca. */
function tlsWorld(knobs: Knobs = {}): ConfigSpec {
  const pair = knobs.pair ?? first;
  return configSpec({
    clusters: [
      clusterSpec("backend", [endpointSpec("10.0.0.1", 8443)], {
        tlsSecretName: "backend-ca",
        connectTimeoutMs: knobs.backendTimeoutMs ?? 1000,
      }),
    ],
    routeConfigurations: [routeConfigurationSpec("routes", "backend")],
    listeners: [
      socketListenerSpec("plain", 8080, "routes"),
      ...(knobs.withoutTls
        ? []
        : [
            socketListenerSpec("tls", 8443, "routes", {
              filterChains: [
                filterChainSpec({ rdsRouteConfigName: "routes", tlsSecretName: "edge-cert" }),
              ],
            }),
          ]),
    ],
    secrets: [
      validationSecretSpec("backend-ca", ca.cert, ["backend.internal"]),
      ...(knobs.withoutTls ? [] : [tlsSecretSpec("edge-cert", pair.cert, box.seal(pair.key))]),
    ],
  });
}

function secretIn(entry: Any | undefined): Secret {
  const secret = entry && (anyUnpack(entry, registry) as Secret | undefined);
  if (!secret || secret.$typeName !== SecretSchema.typeName) throw new Error("not a Secret");
  return secret;
}

/** The certificate chain and private key a TLS certificate Secret carries. */
function pemOf(secret: Secret): { cert: string | undefined; key: string | undefined } {
  if (secret.type.case !== "tlsCertificate")
    throw new Error(`not a TLS certificate: ${secret.type.case}`);
  const inline = (source: typeof secret.type.value.privateKey) =>
    source?.specifier.case === "inlineString" ? source.specifier.value : undefined;
  return {
    cert: inline(secret.type.value.certificateChain),
    key: inline(secret.type.value.privateKey),
  };
}

describe("SDS over real streams", () => {
  let xds: TestServer;

  beforeEach(async () => {
    xds = await startTestServer(
      tlsWorld(),
      { openSecret: box.open, auth: tokenAuth },
      { headers: authorization },
    );
  });

  afterEach(async () => {
    await xds.close();
  });

  it("a SotW ADS client subscribed to a secret by name gets that certificate and key only", async () => {
    const stream = xds.client.open("ads", { node });
    stream.request(SDS, ["edge-cert"]);
    const response = await stream.next();
    expect(response.typeUrl).toBe(SDS);
    expect(namesOf(response)).toEqual(["edge-cert"]);
    expect(pemOf(secretIn(response.resources[0]))).toEqual({ cert: first.cert, key: first.key });
    stream.ack(response, ["edge-cert"]);
    await stream.expectNoResponse(200);
    stream.close();
  });

  it("a rotation reaches a SotW ADS node as a new Secret version without resending its listeners or clusters", async () => {
    const stream = xds.client.open("ads", { node });
    stream.request(TypeUrl.Cluster, []);
    stream.ack(await stream.next(), []);
    stream.request(TypeUrl.Listener, []);
    stream.ack(await stream.next(), []);
    stream.request(SDS, ["edge-cert", "backend-ca"]);
    const before = await stream.next();
    expect(namesOf(before).sort()).toEqual(["backend-ca", "edge-cert"]);
    stream.ack(before, ["edge-cert", "backend-ca"]);
    await stream.expectNoResponse(200);

    xds.publish(tlsWorld({ pair: second }));
    const rotated = await stream.next();
    expect(rotated.typeUrl).toBe(SDS);
    expect(namesOf(rotated)).toEqual(["edge-cert"]);
    expect(pemOf(secretIn(rotated.resources[0]))).toEqual({ cert: second.cert, key: second.key });
    expect(rotated.versionInfo).not.toBe(before.versionInfo);
    stream.ack(rotated, ["edge-cert", "backend-ca"]);
    // Nothing else: no Listener, no Cluster, no RouteConfiguration.
    await stream.expectNoResponse(300);
    stream.close();
  });

  it("a Delta ADS client gets a secret by name, its rotation (only the Secret), and its removal after the listener that named it", async () => {
    const stream = xds.client.openDelta("ads", { node });
    stream.request(TypeUrl.Listener, ["*"]);
    const listeners = await stream.next();
    expect(deltaNamesOf(listeners).sort()).toEqual(["plain", "tls"]);
    stream.ack(listeners);
    stream.request(SDS, ["edge-cert"]);
    const secret = await stream.next();
    expect(deltaNamesOf(secret)).toEqual(["edge-cert"]);
    expect(pemOf(secretIn(secret.resources[0]?.resource))).toEqual({
      cert: first.cert,
      key: first.key,
    });
    stream.ack(secret);

    xds.publish(tlsWorld({ pair: second }));
    const rotated = await stream.next();
    expect(rotated.typeUrl).toBe(SDS);
    expect(deltaNamesOf(rotated)).toEqual(["edge-cert"]);
    expect(rotated.resources[0]?.version).not.toBe(secret.resources[0]?.version);
    stream.ack(rotated);
    await stream.expectNoResponse(300);

    xds.publish(tlsWorld({ pair: second, withoutTls: true }));
    const listenerGone = await stream.next();
    expect(listenerGone.typeUrl).toBe(TypeUrl.Listener);
    expect(listenerGone.removedResources).toEqual(["tls"]);
    // The secret stays until the node ACKed the listener that stopped naming it.
    await stream.expectNoResponse(300);
    stream.ack(listenerGone);
    const secretGone = await stream.next();
    expect(secretGone.typeUrl).toBe(SDS);
    expect(secretGone.removedResources).toEqual(["edge-cert"]);
    stream.ack(secretGone);
    stream.close();
  });

  it("a publish rotating a secret and changing a cluster sends the secret first, and the cluster only after the secret's ACK", async () => {
    const stream = xds.client.open("ads", { node });
    stream.request(TypeUrl.Cluster, []);
    stream.ack(await stream.next(), []);
    stream.request(SDS, ["edge-cert"]);
    stream.ack(await stream.next(), ["edge-cert"]);

    xds.publish(tlsWorld({ pair: second, backendTimeoutMs: 2000 }));
    const secret = await stream.next();
    expect(secret.typeUrl).toBe(SDS);
    await stream.expectNoResponse(200);
    stream.ack(secret, ["edge-cert"]);
    const clusters = await stream.next();
    expect(clusters.typeUrl).toBe(TypeUrl.Cluster);
    stream.ack(clusters, []);
    stream.close();
  });

  it("a new listener naming a new secret: the SDS request the node sends while the listener warms (before its ACK) is answered with the secret", async () => {
    xds.publish(tlsWorld({ withoutTls: true }));
    const stream = xds.client.open("ads", { node });
    stream.request(TypeUrl.Listener, []);
    stream.ack(await stream.next(), []);

    xds.publish(tlsWorld());
    const listeners = await stream.next();
    expect(listeners.typeUrl).toBe(TypeUrl.Listener);
    expect(namesOf(listeners).sort()).toEqual(["plain", "tls"]);
    // As Envoy does: it subscribes to the listener's secret before ACKing the listener.
    stream.request(SDS, ["edge-cert"]);
    const secret = await stream.next();
    expect(secret.typeUrl).toBe(SDS);
    expect(pemOf(secretIn(secret.resources[0]))).toEqual({ cert: first.cert, key: first.key });
    stream.ack(secret, ["edge-cert"]);
    stream.ack(listeners, []);
    stream.close();
  });

  it("a secret that does not exist is answered as removed on Delta", async () => {
    const stream = xds.client.openDelta("ads", { node });
    stream.request(SDS, ["nope"]);
    const missing = await stream.next();
    expect(missing.removedResources).toEqual(["nope"]);
    stream.ack(missing);
    stream.close();
  });

  it("the per-type SecretDiscoveryService serves SotW (StreamSecrets) by name", async () => {
    const stream = xds.client.open(SDS, { node });
    stream.request(SDS, ["backend-ca"]);
    const response = await stream.next();
    expect(namesOf(response)).toEqual(["backend-ca"]);
    const secret = secretIn(response.resources[0]);
    expect(secret.type.case).toBe("validationContext");
    stream.ack(response, ["backend-ca"]);
    stream.close();
  });

  it("the per-type SecretDiscoveryService serves Delta (DeltaSecrets) by name, and a rotation", async () => {
    const stream = xds.client.openDelta(SDS, { node });
    stream.request(SDS, ["edge-cert"]);
    const response = await stream.next();
    expect(deltaNamesOf(response)).toEqual(["edge-cert"]);
    stream.ack(response);
    xds.publish(tlsWorld({ pair: second }));
    const rotated = await stream.next();
    expect(pemOf(secretIn(rotated.resources[0]?.resource)).cert).toBe(second.cert);
    stream.ack(rotated);
    stream.close();
  });

  it("REST-JSON /v3/discovery:secrets answers a secret by name", async () => {
    const response = await fetch(`${xds.baseUrl}/v3/discovery:secrets`, {
      method: "POST",
      headers: { "content-type": "application/json", ...authorization },
      body: JSON.stringify({ node, resourceNames: ["backend-ca"] }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { resources: { "@type": string; name: string }[] };
    expect(body.resources.map((r) => [r["@type"], r.name])).toEqual([[SDS, "backend-ca"]]);
  });

  it("the per-type SecretDiscoveryService ends a stream that asks for another type", async () => {
    const stream = xds.client.open(SDS, { node });
    stream.request(TypeUrl.Cluster, []);
    expect(await stream.ended(2000)).toBeDefined();
  });
});

describe("secrets and clients that do not authenticate (an xDS port with --xds-auth none)", () => {
  let xds: TestServer;
  let anonymous: TestClient;

  beforeEach(async () => {
    xds = await startTestServer(tlsWorld(), { openSecret: box.open });
    anonymous = xds.client;
  });

  afterEach(async () => {
    await xds.close();
  });

  it("serves an anonymous ADS client everything but secrets, and reports the secrets withheld once", async () => {
    const stream = anonymous.open("ads", { node });
    stream.request(TypeUrl.Cluster, []);
    const clusters = await stream.next();
    expect(namesOf(clusters)).toContain("backend");
    stream.ack(clusters, []);

    stream.request(SDS, ["edge-cert", "backend-ca"]);
    await stream.expectNoResponse(300);
    stream.request(SDS, ["edge-cert"]);

    await stream.expectNoResponse(300);
    expect(xds.withheld).toEqual([
      expect.objectContaining({ nodeId: "sds-node", resourceNames: ["edge-cert", "backend-ca"] }),
    ]);
    stream.close();
  });

  it("ends an anonymous per-type SDS stream with UNAUTHENTICATED saying how to get secrets", async () => {
    const stream = anonymous.open(SDS, { node });
    stream.request(SDS, ["edge-cert"]);

    const error = await stream.ended(2000);

    expect(error?.code).toBe(Code.Unauthenticated);
    expect(error?.rawMessage).toContain("--xds-auth token or mtls");
    expect(xds.refusals.map((r) => r.reason)).toEqual(["secrets_need_authentication"]);
  });

  it("answers an anonymous REST-JSON secrets request 401, with no key in it", async () => {
    const response = await fetch(`${xds.baseUrl}/v3/discovery:secrets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ node, resourceNames: ["edge-cert"] }),
    });

    expect(response.status).toBe(401);
    const text = await response.text();
    expect(text).toContain("served only to clients that authenticate");
    expect(text).not.toContain("PRIVATE KEY");
  });

  it("serves secrets to the same anonymous client when the server is told to (anonymousSecrets)", async () => {
    const open = await startTestServer(tlsWorld(), {
      openSecret: box.open,
      anonymousSecrets: true,
    });
    try {
      const stream = open.client.open("ads", { node });
      stream.request(SDS, ["edge-cert"]);
      expect(namesOf(await stream.next())).toEqual(["edge-cert"]);
      stream.close();
    } finally {
      await open.close();
    }
  });
});
