/**
 * Issue 44, point 8: the console port answers only at IP addresses, localhost and the names in
 * SWITCHYARD_CONSOLE_HOSTS (DNS rebinding; the rules are pinned in @switchyard/server's
 * console-hosts.e2e.spec.ts). Here: the address `serve` prints is one it answers at, the variable
 * and the flag reach the port, and a port bound beyond loopback with no names says what to set;
 * such a port names the xDS address it tells proxies by the name the console was reached by.
 */
import * as http from "node:http";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { adminToken } from "@switchyard/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServe, waitFor } from "./processes.js";

/**
 * Where WhoAmI says proxies reach the xDS port, asked on `port` as a caller that reached the
 * console by `host`.
 */
const xdsAddressFor = (port: string, host: string, token: string) =>
  new Promise<string>((resolve, reject) => {
    const request = http.request(`http://127.0.0.1:${port}/switchyard.v1.AccessService/WhoAmI`, {
      method: "POST",
      headers: { host, "content-type": "application/json", authorization: `Bearer ${token}` },
    });
    request.on("response", (response) => {
      let body = "";
      response.on("data", (chunk) => {
        body += chunk;
      });
      response.on("end", () =>
        resolve(
          (JSON.parse(body) as { server?: { xdsAddress?: string } }).server?.xdsAddress ?? "",
        ),
      );
    });
    request.on("error", reject);
    request.end("{}");
  });

/** GET `path` on `port` of this machine, as a browser that reached it by `host` sends it. */
const get = (port: string, host: string, path = "/metrics") =>
  new Promise<number>((resolve, reject) => {
    const request = http.request(`http://127.0.0.1:${port}${path}`, { headers: { host } });
    request.on("response", (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
    request.end();
  });

describe("switchyard serve: the host names the console port answers to", () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("answers at the address it prints (localhost), as `npm start` opens it", async () => {
    const serve = await startServe(["--no-console"], { DATABASE_URL: database.url });
    try {
      const [, printed] = /API:\s+(http:\/\/\S+)/.exec(serve.output()) ?? [];
      expect(printed).toMatch(/^http:\/\/localhost:\d+$/);
      const url = new URL(printed ?? "");

      expect(await get(url.port, url.host)).toBe(200);
      expect(await get(url.port, "rebind.attacker.example")).toBe(421);
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });

  it("bound to all interfaces with no names, warns to set SWITCHYARD_CONSOLE_HOSTS, and refuses a name", async () => {
    const serve = await startServe(["--no-console", "--host", "0.0.0.0", "--insecure"], {
      DATABASE_URL: database.url,
    });
    try {
      await waitFor(
        () => serve.output().includes("set SWITCHYARD_CONSOLE_HOSTS"),
        "the warning",
        10_000,
      );
      const port = new URL(serve.baseUrl).port;

      expect(await get(port, "switchyard.example.com")).toBe(421);
      expect(await get(port, `127.0.0.1:${port}`)).toBe(200);
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });

  it.each([
    [
      "SWITCHYARD_CONSOLE_HOSTS",
      [],
      { SWITCHYARD_CONSOLE_HOSTS: "switchyard.example.com, ops.example" },
    ],
    ["--console-hosts", ["--console-hosts", "switchyard.example.com,ops.example"], {}],
  ])("answers the names in %s, and warns no more", async (_, args, env) => {
    const serve = await startServe(["--no-console", "--host", "0.0.0.0", "--insecure", ...args], {
      DATABASE_URL: database.url,
      ...env,
    });
    try {
      const port = new URL(serve.baseUrl).port;

      expect(await get(port, `switchyard.example.com:${port}`)).toBe(200);
      expect(await get(port, "ops.example")).toBe(200);
      expect(await get(port, "rebind.attacker.example")).toBe(421);
      expect(serve.output()).not.toContain("SWITCHYARD_CONSOLE_HOSTS");
      // Bound to all interfaces, the xDS port is named as the console was reached (issue 46).
      const token = await adminToken(serve.baseUrl);
      expect(await xdsAddressFor(port, `switchyard.example.com:${port}`, token)).toBe(
        `switchyard.example.com:${serve.xdsPort}`,
      );
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });
});
