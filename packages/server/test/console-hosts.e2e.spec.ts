/**
 * Issue 44, point 8: the console port answered any Host, so a web page on a name its author
 * controls could make that name resolve to the console (DNS rebinding) and read /metrics, the
 * console and, with a signed-in user's cookie gone astray, more, as its own origin. Now the port
 * answers only at IP addresses, localhost and the names in SWITCHYARD_CONSOLE_HOSTS, as the xDS
 * port's REST-JSON discovery does (@switchyard/xds host-check.ts).
 */
import * as http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "../src/testing/harness.js";

describe("the console port answers only to the hosts it is known by (DNS rebinding)", () => {
  let harness: Harness;
  let credentials: Record<string, string>;

  /** A request to the console port as a browser sends it to `host` (none: no Host at all). */
  const request = (host: string | undefined, path: string, method = "GET") =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const sent = http.request(`http://127.0.0.1:${harness.app.httpPort}${path}`, {
        method,
        setHost: false,
        headers: {
          ...credentials,
          ...(host === undefined ? {} : { host }),
          ...(method === "POST" ? { "content-type": "application/json" } : {}),
        },
      });
      sent.on("response", (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      });
      sent.on("error", reject);
      sent.end(method === "POST" ? "{}" : undefined);
    });

  beforeAll(async () => {
    harness = await startHarness({
      webConsole: true,
      app: { consoleHosts: ["switchyard.example.com"] },
    });
    // The page's requests carry the signed-in user's credentials: they do not help.
    credentials = {
      cookie: await harness.sessionCookie(),
      authorization: `Bearer ${await harness.token()}`,
    };
  });

  afterAll(async () => {
    await harness?.stop();
  });

  it.each([
    ["GET", "/metrics"],
    ["GET", "/"],
    ["GET", "/login"],
    ["GET", "/api/audit/export?format=ndjson"],
    ["POST", "/switchyard.v1.AccessService/WhoAmI"],
    ["POST", "/switchyard.v1.ConfigService/ListClusters"],
  ])(
    "%s %s naming a host it does not know is refused 421, saying which variable to set, with nothing of the answer",
    async (method, path) => {
      for (const host of [
        "rebind.attacker.example",
        `rebind.attacker.example:${harness.app.httpPort}`,
        "switchyard.example.com.attacker.example",
        "localhost.attacker.example",
      ]) {
        const answer = await request(host, path, method);

        expect(answer.status, host).toBe(421);
        expect(answer.text).toContain(`does not answer to host "${host.split(":")[0]}"`);
        expect(answer.text).toContain("SWITCHYARD_CONSOLE_HOSTS");
        expect(answer.text).not.toMatch(/switchyard_|admin|<html/);
      }
    },
  );

  it("a request with an empty Host, or one naming a user or a path, is refused 421", async () => {
    // (A request with no Host header at all Node refuses 400 itself: requireHostHeader.)
    for (const host of ["", "evil.example@127.0.0.1", "127.0.0.1/evil.example"]) {
      const answer = await request(host, "/metrics");

      expect(answer.status, String(host)).toBe(421);
      expect(answer.text).toContain("does not answer to no valid Host");
    }
  });

  it("answers at IP addresses, localhost and the names in SWITCHYARD_CONSOLE_HOSTS, in any case and with a trailing dot", async () => {
    const port = harness.app.httpPort;
    for (const host of [
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      `localhost:${port}`,
      `switchyard.example.com:${port}`,
      "Switchyard.Example.COM.",
    ]) {
      const metrics = await request(host, "/metrics");
      const whoami = await request(host, "/switchyard.v1.AccessService/WhoAmI", "POST");

      expect(metrics.status, host).toBe(200);
      expect(metrics.text).toContain("switchyard_");
      expect(whoami.status, host).toBe(200);
      expect(JSON.parse(whoami.text)).toMatchObject({ user: { username: "admin" } });
    }
  });
});
