import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEnv } from "./env.js";
import { type HttpServer, startHttpServer } from "./http-server.js";
import { createMetrics } from "./metrics.js";
import { requireMetricsToken } from "./metrics-token.js";

const TOKEN = "a-scrape-token-of-32-characters!";
const env = (token: string) =>
  ({ NODE_ENV: "test", SWITCHYARD_METRICS_TOKEN: token }) as NodeJS.ProcessEnv;

describe("/metrics behind SWITCHYARD_METRICS_TOKEN", () => {
  let server: HttpServer;
  let url: string;

  beforeAll(async () => {
    const metrics = createMetrics();
    metrics.onPublished(7);
    server = await startHttpServer({
      port: 0,
      host: "127.0.0.1",
      routes: () => {},
      extraRoutes: { "/metrics": requireMetricsToken(metrics.handler, TOKEN) },
      fallback: (_request, response) => {
        response.writeHead(404).end();
      },
    });
    url = `http://127.0.0.1:${server.port}/metrics`;
  });

  afterAll(async () => {
    await server?.close();
  });

  const scrape = (authorization?: string) =>
    fetch(url, authorization === undefined ? {} : { headers: { authorization } });

  it("serves the metrics to a scrape sending the token as a bearer token", async () => {
    const response = await scrape(`Bearer ${TOKEN}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/^switchyard_publish_total 1$/m);
  });

  it("answers 401 without the token, with a wrong one, or with it in another scheme, showing no metric and never the token", async () => {
    for (const authorization of [
      undefined,
      "Bearer not-the-token-but-long-enough",
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Basic ${Buffer.from(`prometheus:${TOKEN}`).toString("base64")}`,
      TOKEN,
    ]) {
      const response = await scrape(authorization);
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="switchyard-metrics"');
      const text = await response.text();
      expect(text).toMatch(/^\/metrics(:| needs)/);
      expect(text).not.toContain("switchyard_");
      expect(text).not.toContain(TOKEN.slice(0, 8));
    }
  });

  it("refuses a token too short or with characters a header cannot carry, without quoting it", () => {
    expect(() => readEnv(env("secret"))).toThrow(
      "invalid environment: SWITCHYARD_METRICS_TOKEN: is 6 characters long; use at least 16 (e.g. openssl rand -hex 32)",
    );
    expect(() => readEnv(env("sixteen chars ok"))).toThrow(
      "invalid environment: SWITCHYARD_METRICS_TOKEN: has a character outside visible ASCII at position 8; use letters, digits and punctuation",
    );
    expect(readEnv(env(TOKEN)).SWITCHYARD_METRICS_TOKEN).toBe(TOKEN);
    expect(readEnv(env("")).SWITCHYARD_METRICS_TOKEN).toBeUndefined();
  });
});
