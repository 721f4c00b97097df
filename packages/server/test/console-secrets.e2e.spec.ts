import { createHash, randomBytes } from "node:crypto";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import type { Secret as EnvoySecret } from "@switchyard/proto/envoy/extensions/transport_sockets/tls/v3/secret_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { artifactPath, createTestCa, type TestBrowser } from "@switchyard/testing";
import { createTestClient, type TestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { portListener, routeConfiguration } from "../src/testing/api-objects.js";
import { startConsoleWorld } from "../src/testing/console-world.js";
import { type Harness, xdsTokenAuth } from "../src/testing/harness.js";

type Page = Awaited<ReturnType<TestBrowser["browser"]["newPage"]>>;

/*
 * The Secrets page in real Chromium: a TLS certificate uploaded from PEM files (a key of another
 * certificate refused at the key field), listed with its subject, expiry and fingerprint, picked
 * by a listener, published and received over SDS, then rotated from its page and received again,
 * with the listener not resent; a generic secret uploaded from a binary file and session ticket
 * keys from key files (one of the wrong size refused), listed with their size and SHA-256, and the
 * keys rotated from their page and received in order. The tests run in order and build on each
 * other.
 */
describe("secrets in the console", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let page: Page;
  let problems: string[] = [];
  let xds: TestClient;
  const ca = createTestCa("console CA");
  const first = ca.issueServer({ commonName: "shop.example", dns: ["shop.example"] });
  const second = ca.issueServer({ commonName: "shop.example", dns: ["shop.example"] });
  const other = ca.issueServer({ commonName: "other.example" });
  const file = (name: string, text: string) => ({
    name,
    mimeType: "application/x-pem-file",
    buffer: Buffer.from(text),
  });
  const binary = (name: string, bytes: Uint8Array) => ({
    name,
    mimeType: "application/octet-stream",
    buffer: Buffer.from(bytes),
  });
  const hmac = new Uint8Array(randomBytes(32));
  const [currentKey, nextKey] = [new Uint8Array(randomBytes(80)), new Uint8Array(randomBytes(80))];
  const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
  const keysOf = (body: unknown) => {
    const secret = anyUnpack(body as never, registry) as EnvoySecret;
    if (secret.type.case !== "sessionTicketKeys") throw new Error(`not keys: ${secret.type.case}`);
    return secret.type.value.keys.map((key) => key.specifier.value);
  };

  beforeAll(async () => {
    // The one refusal this file provokes on purpose (another certificate's key: a Connect
    // InvalidArgument is HTTP 400) is expected; anything else the browser logs is a problem.
    // Secrets go to authenticated clients only.
    const { xdsSecurity, headers } = xdsTokenAuth();
    ({ harness, chromium, page, problems } = await startConsoleWorld({
      app: {
        secretsKey: { t: "key", key: new Uint8Array(randomBytes(32)), source: "env" },
        xdsSecurity,
      },
      ignore: (text, from) =>
        text.includes("status of 400") &&
        from.endsWith("/switchyard.v1.ConfigService/CreateSecret"),
    }));
    xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`, { headers });
  });

  afterAll(async () => {
    xds?.close();
    await chromium?.close();
    await harness?.stop();
  });

  it("uploads a TLS certificate from PEM files, refusing another certificate's key at the key field", async () => {
    await page.goto(`${harness.baseUrl}/`);
    await page.getByRole("link", { name: "Secrets", exact: true }).first().click();
    await page.getByText("No secrets").waitFor({ timeout: 15_000 });
    await page.getByRole("link", { name: "Upload a secret" }).click();

    await page.getByLabel("Name", { exact: true }).fill("shop-cert");
    await page.getByLabel("Certificate chain file").setInputFiles(file("shop.crt", first.cert));
    await page.getByLabel("Private key file").setInputFiles(file("other.key", other.key));
    await page.getByRole("button", { name: "Create secret", exact: true }).click();

    const key = page.getByLabel("Private key (PEM)", { exact: true });
    await expect.poll(() => key.getAttribute("aria-invalid"), { timeout: 10_000 }).toBe("true");
    const errorId = await key.getAttribute("aria-describedby");
    expect(await page.locator(`[id="${errorId}"]`).innerText()).toContain(
      "does not match the certificate",
    );

    await page.getByLabel("Private key file").setInputFiles(file("shop.key", first.key));
    await page.getByRole("button", { name: "Create secret", exact: true }).click();
    await page.getByText("Secret “shop-cert” saved to the draft").first().waitFor({
      timeout: 10_000,
    });
    await page.waitForURL("**/secrets/shop-cert");
    // The key field starts empty: a stored key is never shown back.
    expect(await page.getByLabel("Private key (PEM)", { exact: true }).inputValue()).toBe("");
    expect(await page.content()).not.toContain("PRIVATE KEY-----\nMII");

    await page.getByRole("link", { name: "Secrets", exact: true }).first().click();
    const table = page.getByRole("table", { name: "Secrets" });
    await table.getByRole("link", { name: "shop-cert" }).waitFor({ timeout: 15_000 });
    const text = await table.innerText();
    expect(text).toContain("CN=shop.example");
    expect(text).toContain("DNS:shop.example");
    expect(text).toContain("in 0 days");
    expect(text).toContain("key set");
    await page.screenshot({ path: artifactPath("console-secrets.png"), fullPage: true });
  }, 90_000);

  it("publishes a listener presenting it, received over SDS; a rotation from the secret's page reaches the proxy without resending the listener", async () => {
    const api = harness.api();
    await api.createRouteConfiguration(routeConfiguration("routes", []));
    await api.createListener(portListener("shop", 8443, "routes", { tlsSecretName: "shop-cert" }));
    await api.publish({ message: "shop over TLS" });

    const stream = xds.open("ads", { node: { id: "console-sds", cluster: "edge" } });
    stream.request(TypeUrl.Listener, []);
    stream.ack(await stream.next(5000), []);
    stream.request(TypeUrl.Secret, ["shop-cert"]);
    const got = await stream.next(5000);
    const secret = (body: unknown) => anyUnpack(body as never, registry) as EnvoySecret;
    const chain = (s: EnvoySecret) =>
      s.type.case === "tlsCertificate" ? s.type.value.certificateChain?.specifier.value : undefined;
    expect(chain(secret(got.resources[0]))).toBe(first.cert);
    stream.ack(got, ["shop-cert"]);

    await page.goto(`${harness.baseUrl}/secrets/shop-cert`);
    expect(await page.getByText("Used by").first().innerText()).toContain("listener/shop");
    await page.getByLabel("Certificate chain file").setInputFiles(file("shop2.crt", second.cert));
    await page.getByLabel("Private key file").setInputFiles(file("shop2.key", second.key));
    await page.getByRole("button", { name: "Save to draft", exact: true }).click();
    await page.getByText("Secret “shop-cert” saved to the draft").first().waitFor({
      timeout: 10_000,
    });

    await page.goto(`${harness.baseUrl}/changes`);
    const card = page.getByRole("article", { name: "secret shop-cert" });
    await card.waitFor({ timeout: 15_000 });
    expect(await card.innerText()).not.toContain("PRIVATE KEY");
    await page.getByLabel("Message").fill("Rotate the shop certificate");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Version 2 published").waitFor({ timeout: 15_000 });
    await page.screenshot({ path: artifactPath("console-secrets-rotated.png"), fullPage: true });

    const rotated = await stream.next(5000);
    expect(rotated.typeUrl).toBe(TypeUrl.Secret);
    expect(chain(secret(rotated.resources[0]))).toBe(second.cert);
    stream.ack(rotated, ["shop-cert"]);
    await stream.expectNoResponse(500);
    stream.close();
  }, 90_000);

  it("uploads a generic secret from a binary file and session ticket keys from key files, refusing a key file that is not 80 bytes; the list shows type, size and SHA-256, never a value", async () => {
    await page.goto(`${harness.baseUrl}/secrets/new`);
    await page.getByLabel("Name", { exact: true }).fill("oauth-hmac");
    await page.getByLabel("Type", { exact: true }).selectOption("GENERIC_SECRET");
    await page.getByLabel("Value file").setInputFiles(binary("hmac.bin", hmac));
    await page.getByRole("button", { name: "Create secret", exact: true }).click();
    await page.getByText("Secret “oauth-hmac” saved to the draft").first().waitFor({
      timeout: 10_000,
    });
    await page.waitForURL("**/secrets/oauth-hmac");
    // The stored value shows as its size and SHA-256 once saved.
    await page.getByText(`32 bytes · SHA-256 ${sha256(hmac)}`).waitFor({ timeout: 10_000 });

    await page.goto(`${harness.baseUrl}/secrets/new`);
    await page.getByLabel("Name", { exact: true }).fill("shop-tickets");
    await page.getByLabel("Type", { exact: true }).selectOption("SESSION_TICKET_KEYS");
    await page.getByLabel("Key files").setInputFiles(binary("short.key", randomBytes(48)));
    await page.getByRole("button", { name: "Create secret", exact: true }).click();
    // At the field, and in the Save bar's summary.
    await page
      .getByText(
        "short.key is 48 bytes: a session ticket key is exactly 80 bytes, as Envoy requires",
      )
      .first()
      .waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Remove", exact: true }).click();
    await page.getByLabel("Key files").setInputFiles(binary("current.key", currentKey));
    await page.getByRole("button", { name: "Create secret", exact: true }).click();
    await page.getByText("Secret “shop-tickets” saved to the draft").first().waitFor({
      timeout: 10_000,
    });

    await page.getByRole("link", { name: "Secrets", exact: true }).first().click();
    const table = page.getByRole("table", { name: "Secrets" });
    await table.getByRole("link", { name: "shop-tickets" }).waitFor({ timeout: 15_000 });
    const row = (name: string) => table.getByRole("row").filter({ hasText: name });
    const hmacRow = await row("oauth-hmac").innerText();
    expect(hmacRow).toContain("Generic secret");
    expect(hmacRow).toContain("32 bytes");
    expect(hmacRow).toContain(sha256(hmac).slice(0, 23));
    const ticketsRow = await row("shop-tickets").innerText();
    expect(ticketsRow).toContain("Session ticket keys");
    expect(ticketsRow).toContain("1 × 80 bytes");
    const content = await page.content();
    for (const bytes of [hmac, currentKey]) {
      expect(content).not.toContain(Buffer.from(bytes).toString("base64"));
    }
    await page.screenshot({ path: artifactPath("console-secret-values.png"), fullPage: true });
  }, 90_000);

  it("rotates the session ticket keys from the secret's page (new key first, current after): the proxy receives both, in order, and the listener is not resent", async () => {
    const api = harness.api();
    const stored = await api.getListener({ name: "shop" });
    await api.updateListener({
      ...portListener("shop", 8443, "routes", {
        tlsSecretName: "shop-cert",
        extra: {
          transportSocket: {
            typedConfig: {
              "@type":
                "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext",
              sessionTicketKeysSdsSecretConfig: {
                name: "shop-tickets",
                sdsConfig: { ads: {}, resourceApiVersion: "V3" },
              },
            },
          },
        },
      }),
      updateTime: stored.updateTime,
    });
    await api.publish({ message: "resume shop sessions" });

    const stream = xds.open("ads", { node: { id: "console-tickets", cluster: "edge" } });
    stream.request(TypeUrl.Listener, []);
    stream.ack(await stream.next(5000), []);
    stream.request(TypeUrl.Secret, ["shop-tickets"]);
    const got = await stream.next(5000);
    expect(keysOf(got.resources[0])).toEqual([currentKey]);
    stream.ack(got, ["shop-tickets"]);

    await page.goto(`${harness.baseUrl}/secrets/shop-tickets`);
    expect(await page.getByText("Used by").first().innerText()).toContain("listener/shop");
    await page
      .getByLabel("Key files")
      .setInputFiles([binary("next.key", nextKey), binary("current.key", currentKey)]);
    await page.screenshot({ path: artifactPath("console-secret-ticket-keys.png"), fullPage: true });
    await page.getByRole("button", { name: "Save to draft", exact: true }).click();
    await page.getByText("Secret “shop-tickets” saved to the draft").first().waitFor({
      timeout: 10_000,
    });
    await page.goto(`${harness.baseUrl}/changes`);
    await page.getByRole("article", { name: "secret shop-tickets" }).waitFor({ timeout: 15_000 });
    await page.getByLabel("Message").fill("Rotate the shop ticket keys");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Version 4 published").waitFor({ timeout: 15_000 });

    const rotated = await stream.next(5000);
    expect(rotated.typeUrl).toBe(TypeUrl.Secret);
    expect(keysOf(rotated.resources[0])).toEqual([nextKey, currentKey]);
    stream.ack(rotated, ["shop-tickets"]);
    await stream.expectNoResponse(500);
    stream.close();
  }, 90_000);

  it("no page logged an error or warning in the browser console", () => {
    expect(problems).toEqual([]);
  });
});
