/**
 * Secrets (SDS) end to end: written through ConfigService (private keys checked, sealed, never
 * shown back), stored encrypted in PostgreSQL (draft rows and published snapshots), published and
 * streamed over SDS to xDS clients that subscribe by name, rotated without touching listeners,
 * and protected from deletion while a listener or cluster names them. Certificates are made at
 * test time (@switchyard/testing).
 *
 * Long because its three suites (the API and SDS, inline keys in imports, the secrets key) share
 * one test CA, its certificates and key, and the helpers that look for a key in what is shown.
 */
import { createPrivateKey, randomBytes } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { registry } from "@switchyard/proto";
import type { Secret as EnvoySecret } from "@switchyard/proto/envoy/extensions/transport_sockets/tls/v3/secret_pb";
import {
  ChangeType,
  ResourceKind,
  RouteConfigurationSchema,
  RouteMatchKind,
  type Secret,
  SecretSchema,
  SecretType,
  ValidationErrorsSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { createTestCa } from "@switchyard/testing";
import { createTestClient, deltaNamesOf, namesOf, type TestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Switchyard } from "../src/app.js";
import { createKeyring, MISSING_SECRETS_KEY, type SecretsKey } from "../src/secrets-key.js";
import {
  catchAllRoutes,
  edsCluster,
  portListener,
  routeConfiguration,
} from "../src/testing/api-objects.js";
import { refusal } from "../src/testing/auth.js";
import { type Harness, startAppOn, startHarness, xdsTokenAuth } from "../src/testing/harness.js";

const SDS = TypeUrl.Secret;
const ca = createTestCa("secrets e2e CA");
const first = ca.issueServer({ commonName: "edge.example", dns: ["edge.example"] });
const second = ca.issueServer({ commonName: "edge.example", dns: ["edge.example", "www.example"] });
const stranger = ca.issueServer({ commonName: "stranger.example" });
const keyA = new Uint8Array(randomBytes(32));

/** The base64 body of a PEM key: what would betray a stored key in any form. */
const keyBody = (pem: string) =>
  pem
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("-----"))
    .slice(0, 2)
    .join("");

function tls(name: string, pair: { cert: string; key?: string }, passphrase = ""): Secret {
  return create(SecretSchema, {
    name,
    type: SecretType.TLS_CERTIFICATE,
    certificateChain: pair.cert,
    privateKey: pair.key ?? "",
    privateKeyPassphrase: passphrase,
  });
}

/** Everything a response holds, as text (BigInts included). */
function shownText(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? v.toString() : v));
}

function envoySecret(entry: unknown): EnvoySecret {
  return anyUnpack(entry as never, registry) as EnvoySecret;
}

function pemOf(secret: EnvoySecret): { cert: string | undefined; key: string | undefined } {
  if (secret.type.case !== "tlsCertificate") throw new Error(`not TLS: ${secret.type.case}`);
  const inline = (s: typeof secret.type.value.privateKey) =>
    s?.specifier.case === "inlineString" ? s.specifier.value : undefined;
  return {
    cert: inline(secret.type.value.certificateChain),
    key: inline(secret.type.value.privateKey),
  };
}

describe("secrets through the API, publish and SDS", () => {
  let harness: Harness;
  let xds: TestClient;

  beforeAll(async () => {
    // Secrets go to authenticated clients only.
    const { xdsSecurity, headers } = xdsTokenAuth();
    harness = await startHarness({
      app: { secretsKey: { t: "key", key: keyA, source: "env" }, xdsSecurity },
    });
    xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`, { headers });
  });

  afterAll(async () => {
    xds?.close();
    await harness?.stop();
  });

  it("creates a TLS certificate and shows its subject, SANs, expiry and fingerprints, never its key", async () => {
    const api = harness.api();
    const created = await api.createSecret(tls("edge-cert", first));
    expect(created.privateKey).toBe("");
    expect(created.privateKeySet).toBe(true);
    expect(created.publicKeySha256).toMatch(/^[0-9a-f]{64}$/);
    expect(created.certificates.map((c) => [c.subject, c.subjectAltNames])).toEqual([
      ["CN=edge.example", ["DNS:edge.example"]],
    ]);
    expect(created.certificates[0]?.fingerprintSha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const shown = shownText([
      await api.getSecret({ name: "edge-cert" }),
      await api.listSecrets({}),
      await api.getEnvoyResource({ kind: ResourceKind.SECRET, name: "edge-cert" }),
      await api.listResources({ kind: ResourceKind.SECRET }),
    ]);
    expect(shown).not.toContain("PRIVATE KEY");
    expect(shown).not.toContain(keyBody(first.key));
    expect(shown).not.toMatch(/sy[12]\./);
  });

  it("stores the private key encrypted: the row holds no PEM key bytes, only a sealed text naming the key id", async () => {
    const rows = await harness.app.prisma.$queryRawUnsafe<{ row: string }[]>(
      `SELECT row_to_json(s)::text AS row FROM "Secret" s WHERE name = 'edge-cert'`,
    );
    const row = rows[0]?.row ?? "";
    expect(row).toContain("sy2.");
    expect(row).not.toContain("PRIVATE KEY");
    expect(row).not.toContain(keyBody(first.key));
  });

  it("refuses a private key of another certificate at the field, echoing no key", async () => {
    const error = await refusal(
      harness.api().createSecret(tls("mismatch", { cert: first.cert, key: stranger.key })),
    );
    expect(error.code).toBe(Code.InvalidArgument);
    const [details] = error.findDetails(ValidationErrorsSchema);
    expect(details?.issues.map((i) => i.path)).toEqual(['secrets["mismatch"].privateKey']);
    expect(error.message).toContain("does not match the certificate");
    expect(error.message).not.toContain("PRIVATE KEY");
  });

  it("refuses a certificate chain that does not parse, or holds a private key, at the field", async () => {
    const api = harness.api();
    const bad = await refusal(
      api.createSecret(tls("bad", { cert: "not a certificate", key: first.key })),
    );
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(bad.findDetails(ValidationErrorsSchema)[0]?.issues.map((i) => i.path)).toEqual([
      'secrets["bad"].certificateChain',
    ]);
    const pasted = await refusal(
      api.createSecret(tls("pasted", { cert: `${first.cert}${first.key}`, key: first.key })),
    );
    expect(pasted.message).toContain("holds a private key");
    expect(pasted.message).not.toContain(keyBody(first.key));
  });

  it("takes an encrypted private key with its passphrase, and refuses it without", async () => {
    const encrypted = createPrivateKey(stranger.key)
      .export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "s3cret" })
      .toString();
    const api = harness.api();
    const without = await refusal(
      api.createSecret(tls("locked", { cert: stranger.cert, key: encrypted })),
    );
    expect(without.message).toContain("is encrypted: give its passphrase");
    const saved = await api.createSecret(
      tls("locked", { cert: stranger.cert, key: encrypted }, "s3cret"),
    );
    expect(saved.privateKeySet).toBe(true);
    await api.deleteSecret({ name: "locked" });
  });

  it("publishes a listener presenting the secret; SotW and Delta ADS clients get it by name; the published snapshot holds it encrypted", async () => {
    const api = harness.api();
    await api.createCluster(edsCluster("backend", "10.0.0.1:8080", { connectTimeoutMs: 1000 }));
    await api.createRouteConfiguration(
      catchAllRoutes("routes", "backend", { route: { matchKind: RouteMatchKind.PREFIX } }),
    );
    await api.createListener(portListener("edge", 8443, "routes", { tlsSecretName: "edge-cert" }));
    const diff = await api.diff({});
    const secretChange = diff.changes.find((c) => c.kind === ResourceKind.SECRET);
    expect(secretChange?.change).toBe(ChangeType.ADDED);
    expect(secretChange?.after).toContain(SDS);
    expect(shownText(diff)).not.toContain("PRIVATE KEY");
    await api.publish({ message: "tls edge", draftRevision: diff.draftRevision });

    const sotw = xds.open("ads", { node: { id: "sds-sotw", cluster: "edge" } });
    sotw.request(SDS, ["edge-cert"]);
    const got = await sotw.next(5000);
    expect(namesOf(got)).toEqual(["edge-cert"]);
    expect(pemOf(envoySecret(got.resources[0]))).toEqual({ cert: first.cert, key: first.key });
    sotw.ack(got, ["edge-cert"]);
    sotw.close();

    const delta = xds.openDelta("ads", { node: { id: "sds-delta", cluster: "edge" } });
    delta.request(SDS, ["edge-cert"]);
    const deltaGot = await delta.next(5000);
    expect(deltaNamesOf(deltaGot)).toEqual(["edge-cert"]);
    expect(pemOf(envoySecret(deltaGot.resources[0]?.resource)).key).toBe(first.key);
    delta.ack(deltaGot);
    delta.close();

    const blobs = await harness.app.prisma.$queryRawUnsafe<{ body: string }[]>(
      `SELECT encode(body, 'escape') AS body FROM "SnapshotBlob"`,
    );
    const all = blobs.map((b) => b.body).join("\n");
    expect(all).toContain("edge-cert");
    expect(all).not.toContain("PRIVATE KEY");
    expect(all).not.toContain(keyBody(first.key));
  });

  it("a rotation reaches the node as a new Secret only: its listeners and clusters are not resent", async () => {
    const api = harness.api();
    const sotw = xds.open("ads", { node: { id: "sds-rotation", cluster: "edge" } });
    sotw.request(TypeUrl.Cluster, []);
    sotw.ack(await sotw.next(5000), []);
    sotw.request(TypeUrl.Listener, []);
    sotw.ack(await sotw.next(5000), []);
    sotw.request(SDS, ["edge-cert"]);
    const before = await sotw.next(5000);
    sotw.ack(before, ["edge-cert"]);

    const stored = await api.getSecret({ name: "edge-cert" });
    const rotated = await api.updateSecret({
      ...tls("edge-cert", second),
      updateTime: stored.updateTime,
    });
    expect(rotated.certificates[0]?.subjectAltNames).toEqual([
      "DNS:edge.example",
      "DNS:www.example",
    ]);
    expect(rotated.publicKeySha256).not.toBe(stored.publicKeySha256);
    const diff = await api.diff({});
    expect(diff.changes.map((c) => [c.kind, c.name, c.change])).toEqual([
      [ResourceKind.SECRET, "edge-cert", ChangeType.MODIFIED],
    ]);
    await api.publish({ message: "rotate edge-cert" });

    const update = await sotw.next(5000);
    expect(update.typeUrl).toBe(SDS);
    expect(pemOf(envoySecret(update.resources[0]))).toEqual({ cert: second.cert, key: second.key });
    sotw.ack(update, ["edge-cert"]);
    await sotw.expectNoResponse(500);
    sotw.close();
  });

  it("keeps the stored key on an update without one only when the certificate is still for it", async () => {
    const api = harness.api();
    const kept = await api.updateSecret(tls("edge-cert", { cert: second.cert }));
    expect(kept.privateKeySet).toBe(true);
    const error = await refusal(api.updateSecret(tls("edge-cert", { cert: stranger.cert })));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.message).toContain("is for another key than the stored one");
  });

  it("refuses to delete a secret a listener presents, naming the listener", async () => {
    const error = await refusal(harness.api().deleteSecret({ name: "edge-cert" }));
    expect(error.code).toBe(Code.FailedPrecondition);
    expect(error.message).toContain("listener/edge");
    expect((await harness.api().getSecret({ name: "edge-cert" })).usedBy).toEqual([
      "listener/edge",
    ]);
  });

  it("refuses to publish a listener naming a secret that does not exist", async () => {
    const api = harness.api();
    await api.createListener(
      portListener("dangling", 9443, "routes", { tlsSecretName: "no-such-cert" }),
    );
    const error = await refusal(api.publish({ message: "dangling" }));
    expect(error.code).toBe(Code.InvalidArgument);
    const issues = error.findDetails(ValidationErrorsSchema)[0]?.issues ?? [];
    expect(issues.map((i) => [i.code, i.path])).toContainEqual([
      "dangling-secret-reference",
      'listeners["dangling"].filterChains[0].tlsSecretName',
    ]);
    await api.deleteListener({ name: "dangling" });
  });

  it("never shows a private key in the export or the audit log", async () => {
    const { content } = await harness.api().export({});
    expect(content).toContain("edge-cert");
    expect(content).not.toContain("PRIVATE KEY");
    const audit = await harness.app.prisma.$queryRawUnsafe<{ detail: string }[]>(
      `SELECT detail::text AS detail FROM "AuditEvent" WHERE target LIKE 'secret/%'`,
    );
    expect(audit.length).toBeGreaterThan(2);
    const text = audit.map((a) => a.detail).join("\n");
    expect(text).toContain("sealed private key");
    expect(text).not.toContain("PRIVATE KEY");
    expect(text).not.toMatch(/sy[12]\./);
  });
});

/** `pem` as a YAML block scalar at `indent` spaces. */
const block = (pem: string, indent: number) =>
  `|\n${pem
    .trim()
    .split("\n")
    .map((line) => `${" ".repeat(indent)}${line}`)
    .join("\n")}`;

/**
 * Envoy config as users write it (Envoy's front-proxy example does this): a listener and a
 * cluster with their TLS certificates and private keys inline.
 */
function inlineTlsConfig(): string {
  return `
- "@type": type.googleapis.com/envoy.config.listener.v3.Listener
  name: front
  address: { socket_address: { address: 0.0.0.0, port_value: 9443 } }
  filter_chains:
  - transport_socket:
      name: envoy.transport_sockets.tls
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
        common_tls_context:
          tls_certificates:
          - certificate_chain:
              inline_string: ${block(first.cert, 16)}
            private_key:
              inline_string: ${block(first.key, 16)}
    filters:
    - name: envoy.filters.network.http_connection_manager
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
        stat_prefix: front
        route_config:
          name: front-routes
          virtual_hosts:
          - name: all
            domains: ["*"]
            routes: [{ match: { prefix: / }, route: { cluster: mtls-upstream } }]
        http_filters:
        - name: envoy.filters.http.router
          typed_config: { "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router }
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: mtls-upstream
  type: STRICT_DNS
  connect_timeout: 1s
  load_assignment:
    cluster_name: mtls-upstream
    endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: upstream.internal, port_value: 443 } } } }] }]
  transport_socket:
    name: envoy.transport_sockets.tls
    typed_config:
      "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext
      common_tls_context:
        tls_certificates:
        - certificate_chain:
            inline_string: ${block(second.cert, 14)}
          private_key:
            inline_string: ${block(second.key, 14)}
`;
}

describe("inline private keys in imported Envoy config", () => {
  let harness: Harness;
  let xds: TestClient;

  beforeAll(async () => {
    // Secrets go to authenticated clients only.
    const { xdsSecurity, headers } = xdsTokenAuth();
    harness = await startHarness({
      app: { secretsKey: { t: "key", key: keyA, source: "env" }, xdsSecurity },
    });
    xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`, { headers });
  });

  afterAll(async () => {
    xds?.close();
    await harness?.stop();
  });

  it("moves each inline certificate to a sealed SDS secret its listener or cluster names, saying so", async () => {
    const api = harness.api();
    const imported = await api.import({ content: inlineTlsConfig(), filename: "front.yaml" });
    expect(
      imported.issues.filter((i) => i.message.includes("moved to SDS secret")).map((i) => i.path),
    ).toEqual([
      "[0].filter_chains[0].transport_socket.typed_config.common_tls_context.tls_certificates[0]",
      "[1].transport_socket.typed_config.common_tls_context.tls_certificates[0]",
    ]);
    expect((await api.getListener({ name: "front" })).filterChains[0]?.tlsSecretName).toBe(
      "front-tls",
    );
    const listenerSecret = await api.getSecret({ name: "front-tls" });
    expect([listenerSecret.privateKeySet, listenerSecret.usedBy]).toEqual([
      true,
      ["listener/front"],
    ]);
    // The cluster keeps its client certificate in its TLS context, naming the secret over SDS.
    expect((await api.getSecret({ name: "mtls-upstream-tls" })).usedBy).toEqual([
      "cluster/mtls-upstream",
    ]);
    const refused = await refusal(api.deleteSecret({ name: "mtls-upstream-tls" }));
    expect(refused.code).toBe(Code.FailedPrecondition);
  });

  it("never shows the keys back: not in get, the Envoy form, the diff or the export", async () => {
    const api = harness.api();
    const shown = shownText([
      await api.getListener({ name: "front" }),
      await api.getCluster({ name: "mtls-upstream" }),
      await api.getEnvoyResource({ kind: ResourceKind.LISTENER, name: "front" }),
      await api.getEnvoyResource({ kind: ResourceKind.CLUSTER, name: "mtls-upstream" }),
      await api.diff({}),
      await api.export({}),
    ]);
    expect(shown).toContain("front-tls");
    expect(shown).not.toContain("PRIVATE KEY");
    expect(shown).not.toContain(keyBody(first.key));
    expect(shown).not.toContain(keyBody(second.key));
  });

  it("publishes: a proxy receives the listener's certificate and key over SDS", async () => {
    await harness.api().publish({ message: "front with TLS" });
    const sotw = xds.open("ads", { node: { id: "inline-tls", cluster: "front" } });
    sotw.request(SDS, ["front-tls"]);
    const got = await sotw.next(5000);
    const { cert, key } = pemOf(envoySecret(got.resources[0]));
    // The certificate as written, line ends aside (YAML reads them as \n); the key as PKCS#8.
    const lines = (pem: string | undefined) => pem?.replace(/\r\n/g, "\n").trim();
    expect(lines(cert)).toBe(lines(first.cert));
    expect(createPrivateKey(key ?? "").export({ type: "pkcs8", format: "pem" })).toBe(
      createPrivateKey(first.key).export({ type: "pkcs8", format: "pem" }),
    );
    sotw.close();
  });
});

describe("the secrets key", () => {
  it("without a key: a TLS certificate is refused, naming SWITCHYARD_SECRETS_KEY; a validation context is taken", async () => {
    const harness = await startHarness();
    try {
      const api = harness.api();
      const error = await refusal(api.createSecret(tls("edge-cert", first)));
      expect(error.code).toBe(Code.FailedPrecondition);
      expect(error.message).toContain("SWITCHYARD_SECRETS_KEY");
      expect(error.rawMessage).toBe(MISSING_SECRETS_KEY);
      const saved = await api.createSecret(
        create(SecretSchema, {
          name: "upstream-ca",
          type: SecretType.VALIDATION_CONTEXT,
          trustedCa: ca.cert,
          matchSubjectAltNames: ["backend.internal"],
        }),
      );
      expect(saved.certificates[0]?.isCa).toBe(true);
    } finally {
      await harness.stop();
    }
  });

  it("rotating the secrets key: started with the new key and the old one as previous, the server seals everything again and keeps serving; then the old key can go", async () => {
    const keyB = new Uint8Array(randomBytes(32));
    const { xdsSecurity, headers } = xdsTokenAuth();
    const harness = await startHarness({
      app: { secretsKey: { t: "key", key: keyA, source: "env" }, xdsSecurity },
    });
    const start = (secretsKey: SecretsKey) =>
      startAppOn(harness.database.url, { app: { secretsKey, xdsSecurity } });
    const sealedWith = async (app: Switchyard) => {
      const rows = await app.prisma.$queryRawUnsafe<{ text: string }[]>(
        `SELECT "privateKey" AS text FROM "Secret"
         UNION ALL SELECT encode(body, 'escape') FROM "SnapshotBlob"`,
      );
      return new Set(
        rows.flatMap((r) =>
          [...(r.text ?? "").matchAll(/sy[12]\.([0-9a-f]{12})\./g)].map((m) => m[1]),
        ),
      );
    };
    try {
      const api = harness.api();
      await api.createSecret(tls("edge-cert", first));
      await api.createRouteConfiguration(routeConfiguration("routes", []));
      await api.createListener(
        portListener("edge", 8443, "routes", { tlsSecretName: "edge-cert" }),
      );
      await api.publish({ message: "tls" });
      const idA = createKeyring({ t: "key", key: keyA, source: "env" }).keyId;
      const idB = createKeyring({ t: "key", key: keyB, source: "env" }).keyId;
      expect(await sealedWith(harness.app)).toEqual(new Set([idA]));
      await harness.app.stop();

      const rotating = await start({ t: "key", key: keyB, source: "env", previous: [keyA] });
      try {
        expect(await sealedWith(rotating)).toEqual(new Set([idB]));
        const xds = createTestClient(`http://127.0.0.1:${rotating.xdsPort}`, { headers });
        const stream = xds.open("ads", { node: { id: "after-rotation", cluster: "edge" } });
        stream.request(SDS, ["edge-cert"]);
        const got = await stream.next(5000);
        expect(pemOf(envoySecret(got.resources[0])).key).toBe(first.key);
        stream.close();
        xds.close();
      } finally {
        await rotating.stop();
      }

      // The old key is no longer needed: the new one alone starts and serves.
      const rotated = await start({ t: "key", key: keyB, source: "env" });
      await rotated.stop();
    } finally {
      await harness.database.drop();
    }
  });

  it("a server started with another key than the one that sealed the published secrets refuses to start, saying so", async () => {
    const harness = await startHarness({
      app: { secretsKey: { t: "key", key: keyA, source: "env" } },
    });
    try {
      const api = harness.api();
      await api.createSecret(tls("edge-cert", first));
      await api.createListener(
        portListener("edge", 8443, "routes", { tlsSecretName: "edge-cert" }),
      );
      await api.createRouteConfiguration(
        create(RouteConfigurationSchema, {
          name: "routes",
          virtualHosts: [{ name: "all", domains: ["*"], routes: [] }],
        }),
      );
      await api.publish({ message: "tls" });
      await harness.app.stop();
      const restarted = startAppOn(harness.database.url, {
        app: { secretsKey: { t: "key", key: new Uint8Array(randomBytes(32)), source: "env" } },
      });
      await expect(restarted).rejects.toThrow(
        /cannot open a published secret: sealed with secrets key [0-9a-f]{12}, but the configured secrets key is [0-9a-f]{12}/,
      );
    } finally {
      await harness.database.drop();
    }
  });
});
