import { randomBytes } from "node:crypto";
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
 * with the listener not resent. The tests run in order and build on each other.
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

  it("no page logged an error or warning in the browser console", () => {
    expect(problems).toEqual([]);
  });
});
