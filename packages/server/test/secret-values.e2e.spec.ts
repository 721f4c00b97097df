/**
 * Generic secrets and session ticket keys end to end (secrets.e2e.spec.ts does TLS certificates
 * and validation contexts): written through ConfigService (values checked, sealed, never shown
 * back: a read says they are set, their size and SHA-256), stored sealed in PostgreSQL, named by
 * an OAuth2 filter and a DownstreamTlsContext, published and streamed over SDS to the nodes of
 * the node group whose listener names them and to no other, rotated, refused where a field names
 * a secret of another kind, imported from a bootstrap's static secrets, and sealed again when the
 * secrets key is rotated.
 */
import { createHash, randomBytes } from "node:crypto";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { registry } from "@switchyard/proto";
import type { DataSource } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import type { Secret as EnvoySecret } from "@switchyard/proto/envoy/extensions/transport_sockets/tls/v3/secret_pb";
import {
  ChangeType,
  ResourceKind,
  RouteMatchKind,
  type Secret,
  SecretSchema,
  SecretType,
  ValidationErrorsSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { createTestCa } from "@switchyard/testing";
import { createTestClient, namesOf, type TestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Switchyard } from "../src/app.js";
import { createKeyring, MISSING_SECRETS_KEY } from "../src/secrets-key.js";
import { catchAllRoutes, edsCluster, portListener } from "../src/testing/api-objects.js";
import {
  bearer,
  configClient,
  createAccount,
  Role,
  refusal,
  tokenFor,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startAppOn, startHarness, xdsTokenAuth } from "../src/testing/harness.js";

const SDS = TypeUrl.Secret;
const ca = createTestCa("secret values e2e CA");
const edge = ca.issueServer({ commonName: "edge.example", dns: ["edge.example"] });
const keyA = new Uint8Array(randomBytes(32));

const token = new TextEncoder().encode("oauth client secret");
const hmac = new Uint8Array(randomBytes(32));
const ticket = () => new Uint8Array(randomBytes(80));
const [newest, older, newer] = [ticket(), ticket(), ticket()];

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function valueSecret(name: string, type: SecretType, values: Uint8Array[]): Secret {
  return create(SecretSchema, { name, type, values });
}
const generic = (name: string, value: Uint8Array) =>
  valueSecret(name, SecretType.GENERIC_SECRET, [value]);
const tickets = (name: string, ...keys: Uint8Array[]) =>
  valueSecret(name, SecretType.SESSION_TICKET_KEYS, keys);

/** Everything a response holds, as text (BigInts and bytes included). */
function shownText(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? b64(v) : v,
  );
}

/** Would betray a stored value in any form. */
const VALUES = [token, hmac, newest, older, newer].map(b64);
const expectNoValue = (text: string) => {
  for (const value of VALUES) expect(text).not.toContain(value);
  expect(text).not.toContain(Buffer.from(token).toString("utf8"));
  expect(text).not.toMatch(/sy[12]\./);
};

const sds = (name: string): JsonObject => ({
  name,
  sdsConfig: { ads: {}, resourceApiVersion: "V3" },
});

/** Envoy's OAuth2 filter, its token and HMAC secrets fetched over SDS. */
function oauth2Filter(tokenSecret: string, hmacSecret: string): JsonObject {
  return {
    name: "envoy.filters.http.oauth2",
    typedConfig: {
      "@type": "type.googleapis.com/envoy.extensions.filters.http.oauth2.v3.OAuth2",
      config: {
        tokenEndpoint: { uri: "https://auth.example/token", cluster: "auth", timeout: "5s" },
        authorizationEndpoint: "https://auth.example/authorize",
        credentials: {
          clientId: "switchyard",
          tokenSecret: sds(tokenSecret),
          hmacSecret: sds(hmacSecret),
        },
        redirectUri: "https://%REQ(:authority)%/callback",
        redirectPathMatcher: { path: { exact: "/callback" } },
        signoutPath: { path: { exact: "/signout" } },
      },
    },
  };
}

/** The TLS listener `edge` presenting edge-cert, resuming with `ticketKeys`, behind OAuth2. */
const edgeListener = (ticketKeys: string, tokenSecret = "oauth-token") =>
  portListener("edge", 8443, "routes", {
    tlsSecretName: "edge-cert",
    httpFilters: [oauth2Filter(tokenSecret, "oauth-hmac")],
    extra: {
      transportSocket: {
        typedConfig: {
          "@type":
            "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext",
          sessionTicketKeysSdsSecretConfig: sds(ticketKeys),
        },
      },
    },
  });

function envoySecret(entry: unknown): EnvoySecret {
  return anyUnpack(entry as never, registry) as EnvoySecret;
}

/** The bytes a served Secret holds: its generic secret, or its ticket keys in order. */
function servedBytes(secret: EnvoySecret): Uint8Array[] {
  const inline = (s: DataSource | undefined) =>
    s?.specifier.case === "inlineBytes" ? s.specifier.value : new Uint8Array();
  if (secret.type.case === "genericSecret") return [inline(secret.type.value.secret)];
  if (secret.type.case === "sessionTicketKeys") return secret.type.value.keys.map(inline);
  throw new Error(`not a value secret: ${secret.type.case}`);
}

describe("generic secrets and session ticket keys through the API, publish and SDS", () => {
  let harness: Harness;
  let xds: TestClient;

  beforeAll(async () => {
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

  it("creates a generic secret and session ticket keys; reads say each value is set, its size and SHA-256, never the value", async () => {
    const api = harness.api();
    const created = await api.createSecret(generic("oauth-token", token));
    expect(created.values).toEqual([]);
    expect(created.valueSet).toBe(true);
    expect(created.valueInfos.map((v) => [v.sizeBytes, v.sha256])).toEqual([
      [token.length, sha256(token)],
    ]);
    await api.createSecret(generic("oauth-hmac", hmac));
    const keys = await api.createSecret(tickets("tickets", newest, older));
    expect(keys.type).toBe(SecretType.SESSION_TICKET_KEYS);
    expect(keys.valueInfos.map((v) => [v.sizeBytes, v.sha256])).toEqual([
      [80, sha256(newest)],
      [80, sha256(older)],
    ]);
    const shown = shownText([
      await api.getSecret({ name: "oauth-token" }),
      await api.listSecrets({}),
      await api.getEnvoyResource({ kind: ResourceKind.SECRET, name: "tickets" }),
      await api.listResources({ kind: ResourceKind.SECRET }),
    ]);
    expectNoValue(shown);
    expect(shown).toContain("session ticket keys");
  });

  it("shows a value's SHA-256 to admins only: a reader sees its size, not a digest that would let a guessable value be found offline", async () => {
    await createAccount(harness.baseUrl, "viewer", Role.VIEWER);
    const viewer = configClient(harness.baseUrl, [
      bearer(await tokenFor(harness.baseUrl, "viewer", USER_PASSWORD)),
    ]);
    const read = await viewer.getSecret({ name: "oauth-token" });
    expect(read.valueInfos.map((v) => [v.sizeBytes, v.sha256])).toEqual([[token.length, ""]]);
    const listed = (await viewer.listSecrets({})).secrets.find((s) => s.name === "oauth-token");
    expect(listed?.valueInfos.map((v) => v.sha256)).toEqual([""]);
    const digests = (await viewer.listSecrets({})).secrets.flatMap((s) =>
      s.valueInfos.map((v) => v.sha256),
    );
    expect(digests.length).toBeGreaterThan(0);
    expect(digests.every((digest) => digest === "")).toBe(true);
  });

  it("stores the values sealed: the rows hold no value bytes, only sealed texts naming the key id", async () => {
    const rows = await harness.app.prisma.$queryRawUnsafe<{ row: string }[]>(
      `SELECT row_to_json(s)::text AS row FROM "Secret" s WHERE type <> 'TLS_CERTIFICATE'`,
    );
    const text = rows.map((r) => r.row).join("\n");
    expect(rows).toHaveLength(3);
    expect(text).toContain(`sy2.${createKeyring({ t: "key", key: keyA, source: "env" }).keyId}.`);
    for (const value of VALUES) expect(text).not.toContain(value);
    expect(text).not.toContain("oauth client secret");
  });

  it("refuses a session ticket key that is not 80 bytes and an empty generic secret at the value, saying its size only", async () => {
    const api = harness.api();
    const short = new Uint8Array(randomBytes(48));
    const error = await refusal(api.createSecret(tickets("short", newest, short)));
    expect(error.code).toBe(Code.InvalidArgument);
    const [details] = error.findDetails(ValidationErrorsSchema);
    expect(details?.issues.map((i) => [i.path, i.message])).toEqual([
      [
        'secrets["short"].values[1]',
        'session ticket key 2 of secret "short" is 48 bytes: Envoy takes a session ticket key of exactly 80 bytes (make one with `openssl rand 80`)',
      ],
    ]);
    expect(shownText(error)).not.toContain(b64(short));
    const empty = await refusal(api.createSecret(generic("empty", new Uint8Array())));
    expect(empty.message).toContain('the value of secret "empty" is empty');
    const none = await refusal(api.createSecret(tickets("none")));
    expect(none.message).toContain("needs at least one key");
  });

  it("refuses values on a TLS certificate, and a private key on a generic secret", async () => {
    const api = harness.api();
    const values = await refusal(
      api.createSecret(
        create(SecretSchema, {
          name: "tls-with-values",
          type: SecretType.TLS_CERTIFICATE,
          certificateChain: edge.cert,
          privateKey: edge.key,
          values: [token],
        }),
      ),
    );
    expect(values.message).toContain("is a TLS certificate, which holds no values");
    const key = await refusal(
      api.createSecret(create(SecretSchema, { ...generic("g", token), privateKey: edge.key })),
    );
    expect(key.message).toContain("is a generic secret, which holds no private key");
  });

  it("publishes a listener whose OAuth2 filter and TLS context name them; a node of its group receives exactly those, as inline_bytes, and a node of another group none", async () => {
    const api = harness.api();
    await api.createSecret(
      create(SecretSchema, {
        name: "edge-cert",
        type: SecretType.TLS_CERTIFICATE,
        certificateChain: edge.cert,
        privateKey: edge.key,
      }),
    );
    await api.createSecret(generic("unused", hmac));
    await api.createCluster(edsCluster("backend", "10.0.0.1:8080"));
    await api.createCluster(edsCluster("auth", "10.0.0.2:443"));
    await api.createRouteConfiguration(
      catchAllRoutes("routes", "backend", { route: { matchKind: RouteMatchKind.PREFIX } }),
    );
    await api.createListener(edgeListener("tickets"));
    await api.createListener(portListener("plain", 8080, "routes"));
    await api.createNodeGroup({
      name: "edge",
      priority: 1,
      nodeIds: ["edge-node"],
      listeners: ["edge"],
      clusters: ["backend", "auth"],
    });
    await api.createNodeGroup({
      name: "plain",
      priority: 2,
      nodeIds: ["plain-node"],
      listeners: ["plain"],
      clusters: ["backend"],
    });
    expect((await api.getSecret({ name: "tickets" })).usedBy).toEqual(["listener/edge"]);
    expect((await api.getSecret({ name: "oauth-hmac" })).usedBy).toEqual(["listener/edge"]);
    await api.publish({ message: "oauth2 and ticket keys" });

    const wanted = ["edge-cert", "oauth-hmac", "oauth-token", "tickets", "unused"];
    const ofGroup = xds.open("ads", { node: { id: "edge-node", cluster: "edge" } });
    ofGroup.request(SDS, wanted);
    const got = await ofGroup.next(5000);
    expect(namesOf(got).sort()).toEqual(["edge-cert", "oauth-hmac", "oauth-token", "tickets"]);
    const byName = new Map(got.resources.map((r) => [envoySecret(r).name, envoySecret(r)]));
    expect(servedBytes(byName.get("tickets") as EnvoySecret)).toEqual([newest, older]);
    expect(servedBytes(byName.get("oauth-hmac") as EnvoySecret)).toEqual([hmac]);
    expect(servedBytes(byName.get("oauth-token") as EnvoySecret)).toEqual([token]);
    ofGroup.ack(got, wanted);
    ofGroup.close();

    const other = xds.open("ads", { node: { id: "plain-node", cluster: "plain" } });
    other.request(SDS, wanted);
    // Nothing it asks for is its group's: no Secret is sent to it at all.
    await other.expectNoResponse(1000);
    other.close();
  });

  it("a rotation of the ticket keys (a new key first) reaches the node as a new Secret only; an update without values keeps them", async () => {
    const api = harness.api();
    const sotw = xds.open("ads", { node: { id: "edge-node", cluster: "edge" } });
    sotw.request(TypeUrl.Listener, []);
    sotw.ack(await sotw.next(5000), []);
    sotw.request(SDS, ["tickets"]);
    sotw.ack(await sotw.next(5000), ["tickets"]);

    const stored = await api.getSecret({ name: "tickets" });
    const rotated = await api.updateSecret({
      ...tickets("tickets", newer, newest),
      updateTime: stored.updateTime,
    });
    expect(rotated.valueInfos.map((v) => v.sha256)).toEqual([sha256(newer), sha256(newest)]);
    const kept = await api.updateSecret(tickets("tickets"));
    expect(kept.valueInfos).toEqual(rotated.valueInfos);
    const diff = await api.diff({});
    expect(diff.changes.map((c) => [c.kind, c.name, c.change])).toEqual([
      [ResourceKind.SECRET, "tickets", ChangeType.MODIFIED],
    ]);
    expectNoValue(shownText(diff));
    await api.publish({ message: "rotate ticket keys" });

    const update = await sotw.next(5000);
    expect(update.typeUrl).toBe(SDS);
    expect(servedBytes(envoySecret(update.resources[0]))).toEqual([newer, newest]);
    sotw.ack(update, ["tickets"]);
    await sotw.expectNoResponse(500);
    sotw.close();
  });

  it("refuses to publish an OAuth2 token_secret naming session ticket keys, a secret of the wrong kind, at the field", async () => {
    const api = harness.api();
    const stored = await api.getListener({ name: "edge" });
    await api.updateListener({
      ...edgeListener("tickets", "tickets"),
      updateTime: stored.updateTime,
    });
    const error = await refusal(api.publish({ message: "wrong kind" }));
    expect(error.code).toBe(Code.InvalidArgument);
    const issues = error.findDetails(ValidationErrorsSchema)[0]?.issues ?? [];
    expect(issues.map((i) => [i.code, i.path, i.message])).toEqual([
      [
        "secret-type-mismatch",
        'listeners["edge"].filterChains[0].httpFilters[0].typedConfig.config.credentials.tokenSecret.name',
        'Listener "edge" takes a generic secret here, but SDS secret "tickets" is a set of session ticket keys',
      ],
    ]);
    await api.updateListener(edgeListener("tickets"));
  });

  it("refuses to delete a generic secret an HTTP filter of a listener names, naming the listener", async () => {
    const error = await refusal(harness.api().deleteSecret({ name: "oauth-token" }));
    expect(error.code).toBe(Code.FailedPrecondition);
    expect(error.message).toContain("listener/edge");
  });

  it("never shows a value in the export, the audit log or an import's answer", async () => {
    const api = harness.api();
    const { content } = await api.export({});
    expect(content).toContain("oauth-token");
    expectNoValue(content);
    const audit = await harness.app.prisma.$queryRawUnsafe<{ detail: string }[]>(
      `SELECT detail::text AS detail FROM "AuditEvent" WHERE target LIKE 'secret/%'`,
    );
    const text = audit.map((a) => a.detail).join("\n");
    expect(text).toContain("sealed value");
    expectNoValue(text);

    const imported = await api.import({
      filename: "bootstrap.yaml",
      content: `static_resources:
  secrets:
    - name: imported-hmac
      generic_secret: { secret: { inline_bytes: ${b64(hmac)} } }
    - name: imported-tickets
      session_ticket_keys: { keys: [{ inline_bytes: ${b64(older)} }] }
`,
    });
    expect(imported.changes.map((c) => [c.name, c.change])).toEqual([
      ["imported-hmac", ChangeType.ADDED],
      ["imported-tickets", ChangeType.ADDED],
    ]);
    expect(imported.issues.map((i) => i.message)).toContain(
      'stored as generic secret "imported-hmac" (32 bytes): the value is sealed at rest and never shown back (line 4, column 7)',
    );
    expectNoValue(shownText(imported));
    const read = await api.getSecret({ name: "imported-hmac" });
    expect(read.valueInfos.map((v) => v.sha256)).toEqual([sha256(hmac)]);

    const fromFile = await refusal(
      api.import({
        filename: "bootstrap.yaml",
        content:
          "static_resources:\n  secrets:\n    - name: f\n      generic_secret: { secret: { filename: /etc/envoy/token } }\n",
      }),
    );
    expect(fromFile.message).toContain(
      "upload it (switchyard secret create generic NAME --from-file FILE)",
    );
  });
});

describe("the secrets key and secret values", () => {
  it("without a secrets key: a generic secret and session ticket keys are refused, naming SWITCHYARD_SECRETS_KEY", async () => {
    const harness = await startHarness();
    try {
      for (const secret of [generic("g", token), tickets("t", newest)]) {
        const error = await refusal(harness.api().createSecret(secret));
        expect(error.code).toBe(Code.FailedPrecondition);
        expect(error.rawMessage).toBe(MISSING_SECRETS_KEY);
      }
    } finally {
      await harness.stop();
    }
  });

  it("rotating the secrets key seals the values again, in the draft and the published snapshot, and the node keeps receiving the same bytes", async () => {
    const keyB = new Uint8Array(randomBytes(32));
    const { xdsSecurity, headers } = xdsTokenAuth();
    const harness = await startHarness({
      app: { secretsKey: { t: "key", key: keyA, source: "env" }, xdsSecurity },
    });
    const sealedWith = async (app: Switchyard) => {
      const rows = await app.prisma.$queryRawUnsafe<{ text: string }[]>(
        `SELECT array_to_string("values", ' ') AS text FROM "Secret"
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
      await api.createSecret(generic("api-key", hmac));
      await api.createSecret(generic("oauth-hmac", hmac));
      await api.createSecret(tickets("tickets", newest));
      await api.createSecret(
        create(SecretSchema, {
          name: "edge-cert",
          type: SecretType.TLS_CERTIFICATE,
          certificateChain: edge.cert,
          privateKey: edge.key,
        }),
      );
      await api.createRouteConfiguration(catchAllRoutes("routes", "backend"));
      await api.createCluster(edsCluster("backend", "10.0.0.1:8080"));
      await api.createCluster(edsCluster("auth", "10.0.0.2:443"));
      // A secret is served only where something names it: the listener names these.
      await api.createListener(edgeListener("tickets", "api-key"));
      await api.publish({ message: "values" });
      const idA = createKeyring({ t: "key", key: keyA, source: "env" }).keyId;
      const idB = createKeyring({ t: "key", key: keyB, source: "env" }).keyId;
      expect(await sealedWith(harness.app)).toEqual(new Set([idA]));
      await harness.app.stop();

      const rotating = await startAppOn(harness.database.url, {
        app: { secretsKey: { t: "key", key: keyB, source: "env", previous: [keyA] }, xdsSecurity },
      });
      try {
        expect(await sealedWith(rotating)).toEqual(new Set([idB]));
        const xds = createTestClient(`http://127.0.0.1:${rotating.xdsPort}`, { headers });
        const stream = xds.open("ads", { node: { id: "after-rotation", cluster: "edge" } });
        stream.request(SDS, ["api-key", "tickets"]);
        const got = await stream.next(5000);
        const byName = new Map(got.resources.map((r) => [envoySecret(r).name, envoySecret(r)]));
        expect(servedBytes(byName.get("api-key") as EnvoySecret)).toEqual([hmac]);
        expect(servedBytes(byName.get("tickets") as EnvoySecret)).toEqual([newest]);
        stream.close();
        xds.close();
      } finally {
        await rotating.stop();
      }
    } finally {
      await harness.database.drop();
    }
  });
});
