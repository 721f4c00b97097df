/**
 * Issue 44, point 7: secrets were sealed with a scheme built here (AES-256-GCM whose IV was an
 * HMAC of the plaintext, "sy1."). They are now sealed with AES-256-GCM-SIV from @noble/ciphers
 * ("sy2.", @switchyard/snapshot secret-box.ts). A database written before the change still opens
 * and serves, and each stored secret is sealed in the new form when it is next written.
 *
 * The old form is made the way the old code made it (legacySealed, pinned against texts the old
 * code sealed in secret-box.spec.ts) and written into the rows and published blobs, as a database
 * from before the change holds it.
 */
import { randomBytes } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import type { Secret as EnvoySecret } from "@switchyard/proto/envoy/extensions/transport_sockets/tls/v3/secret_pb";
import { SecretSchema, SecretType } from "@switchyard/proto/switchyard/v1/config_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { legacySealed } from "@switchyard/snapshot/fixtures";
import { createTestCa } from "@switchyard/testing";
import { createTestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Switchyard } from "../src/app.js";
import { createKeyring, type SecretsKey } from "../src/secrets-key.js";
import { portListener, routeConfiguration } from "../src/testing/api-objects.js";
import { bearer, configClient } from "../src/testing/auth.js";
import { type Harness, startAppOn, startHarness, xdsTokenAuth } from "../src/testing/harness.js";

const ca = createTestCa("secret sealing e2e CA");
const edge = ca.issueServer({ commonName: "edge.example", dns: ["edge.example"] });
const key = new Uint8Array(randomBytes(32));
const secretsKey: SecretsKey = { t: "key", key, source: "env" };
const keyring = createKeyring(secretsKey);
const hmac = new Uint8Array(randomBytes(32));

/** Every sealed text in `text`, by form: "sy1" or "sy2". */
const sealedForms = (text: string) =>
  [...text.matchAll(/\b(sy[12])\.[0-9a-f]{12}\./g)].map((m) => m[1]);

/** `text` with every sealed text in it sealed again the old way (the same plaintext). */
const toOldForm = (text: string) =>
  text.replace(/sy2\.[0-9a-f]{12}\.[A-Za-z0-9_-]+/g, (sealed) =>
    legacySealed(key, keyring.open(sealed)),
  );

describe("secrets sealed the old way (sy1) after the change to AES-GCM-SIV (sy2)", () => {
  const { xdsSecurity, headers } = xdsTokenAuth();
  let harness: Harness;
  let app: Switchyard;

  /** The sealed forms in the draft's rows (privateKey and values) of `name`. */
  const storedForms = async (name: string) => {
    const row = await app.prisma.secret.findUniqueOrThrow({ where: { name } });
    return sealedForms([row.privateKey ?? "", ...row.values].join(" "));
  };

  /** What an authenticated ADS client of the listener's group receives of `name`. */
  const served = async (name: string) => {
    const xds = createTestClient(`http://127.0.0.1:${app.xdsPort}`, { headers });
    try {
      const stream = xds.open("ads", { node: { id: `sds-${name}`, cluster: "edge" } });
      stream.request(TypeUrl.Secret, [name]);
      const got = await stream.next(5000);
      stream.close();
      return anyUnpack(got.resources[0] as never, registry) as EnvoySecret;
    } finally {
      xds.close();
    }
  };

  beforeAll(async () => {
    harness = await startHarness({ app: { secretsKey, xdsSecurity } });
    const api = harness.api();
    await api.createSecret(
      create(SecretSchema, {
        name: "edge-cert",
        type: SecretType.TLS_CERTIFICATE,
        certificateChain: edge.cert,
        privateKey: edge.key,
      }),
    );
    await api.createSecret(
      create(SecretSchema, { name: "hmac", type: SecretType.GENERIC_SECRET, values: [hmac] }),
    );
    await api.createRouteConfiguration(routeConfiguration("routes", []));
    await api.createListener(portListener("edge", 8443, "routes", { tlsSecretName: "edge-cert" }));
    await api.publish({ message: "tls" });
    await harness.app.stop();

    // The database as the server before the change left it: every sealed text in the old form.
    const db = harness.database.prisma;
    for (const row of await db.secret.findMany())
      await db.secret.update({
        where: { id: row.id },
        data: {
          privateKey: row.privateKey === null ? null : toOldForm(row.privateKey),
          values: row.values.map(toOldForm),
        },
      });
    for (const blob of await db.snapshotBlob.findMany()) {
      const text = Buffer.from(blob.body).toString("latin1");
      if (text.includes("sy2."))
        await db.snapshotBlob.update({
          where: { key: blob.key },
          data: { body: Buffer.from(toOldForm(text), "latin1") },
        });
    }
    app = await startAppOn(harness.database.url, { app: { secretsKey, xdsSecurity } });
  });

  afterAll(async () => {
    await app?.stop();
    await harness?.database.drop();
  });

  it("the server starts on them and serves the private key they hold", async () => {
    expect(await storedForms("edge-cert")).toEqual(["sy1"]);
    const blobs = await app.prisma.snapshotBlob.findMany();
    const forms = sealedForms(blobs.map((b) => Buffer.from(b.body).toString("latin1")).join(" "));
    expect(new Set(forms)).toEqual(new Set(["sy1"]));

    const secret = await served("edge-cert");
    expect(secret.type.case).toBe("tlsCertificate");
    const tls = secret.type.case === "tlsCertificate" ? secret.type.value : undefined;
    expect(tls?.privateKey?.specifier.value).toContain("PRIVATE KEY");
  });

  it("a write that keeps the stored key or values seals them again in the new form, opening to the same bytes", async () => {
    const api = configClient(`http://127.0.0.1:${app.httpPort}`, [bearer(await harness.token())]);
    const { publicKeySha256 } = await api.getSecret({ name: "edge-cert" });
    const before = keyring.open(
      (await app.prisma.secret.findUniqueOrThrow({ where: { name: "edge-cert" } })).privateKey ??
        "",
    );
    // Neither update gives the key or the value: both keep what is stored.
    await api.updateSecret(
      create(SecretSchema, {
        name: "edge-cert",
        type: SecretType.TLS_CERTIFICATE,
        certificateChain: edge.cert,
      }),
    );
    await api.updateSecret(
      create(SecretSchema, { name: "hmac", type: SecretType.GENERIC_SECRET, values: [] }),
    );

    expect(await storedForms("edge-cert")).toEqual(["sy2"]);
    expect(await storedForms("hmac")).toEqual(["sy2"]);
    const rows = await app.prisma.secret.findMany({ orderBy: { name: "asc" } });
    expect(keyring.open(rows[0]?.privateKey ?? "")).toBe(before);
    expect(Buffer.from(keyring.open(rows[1]?.values[0] ?? ""), "base64")).toEqual(
      Buffer.from(hmac),
    );
    const shown = await api.getSecret({ name: "edge-cert" });
    expect(shown.privateKeySet).toBe(true);
    expect(shown.publicKeySha256).toBe(publicKeySha256);
    expect(shown.privateKey).toBe("");
  });
});
