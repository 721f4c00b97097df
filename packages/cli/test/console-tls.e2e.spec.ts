/**
 * The console port serving HTTPS itself (`serve --tls --tls-cert FILE --tls-key FILE`), for a
 * deployment with no TLS-terminating proxy in front: the session cookie is then `Secure`, the
 * port speaks nothing in clear, and the CLI reaches it with the CA in NODE_EXTRA_CA_CERTS.
 */
import * as fs from "node:fs";
import * as https from "node:https";
import * as os from "node:os";
import * as path from "node:path";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { ADMIN_PASSWORD } from "@switchyard/server/testing";
import { createTestCa, type TestCa } from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, type ServeProcess, startServe } from "./processes.js";

describe("switchyard serve --tls: the console over HTTPS", () => {
  let database: TestDatabase;
  let dir: string;
  let ca: TestCa;
  let serve: ServeProcess;
  const file = (name: string, content: string) => {
    const at = path.join(dir, name);
    fs.writeFileSync(at, content, { mode: 0o600 });
    return at;
  };

  /** The Strict-Transport-Security of every answer `post` had. */
  const hsts: string[] = [];
  /** A Connect JSON call over HTTPS trusting only the test CA: status, Set-Cookie and body. */
  const post = (method: string, body: unknown) =>
    new Promise<{ status: number; cookie: string; body: string }>((resolve, reject) => {
      const request = https.request(
        `${serve.baseUrl}/switchyard.v1.AccessService/${method}`,
        { method: "POST", ca: ca.cert, headers: { "content-type": "application/json" } },
        (response) => {
          hsts.push(String(response.headers["strict-transport-security"]));
          let text = "";
          response.on("data", (chunk) => {
            text += chunk;
          });
          response.on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              cookie: String(response.headers["set-cookie"] ?? ""),
              body: text,
            }),
          );
        },
      );
      request.on("error", reject);
      request.end(JSON.stringify(body));
    });

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-console-tls-"));
    ca = createTestCa();
    const server = ca.issueServer({
      commonName: "localhost",
      dns: ["localhost"],
      ips: ["127.0.0.1"],
    });
    serve = await startServe(
      [
        "--no-console",
        "--tls",
        "--tls-cert",
        file("console.crt", server.cert),
        "--tls-key",
        file("console.key", server.key),
      ],
      { DATABASE_URL: database.url },
    );
  }, 60_000);
  afterAll(async () => {
    await serve?.stop();
    await database?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("prints an https address, and a session made over it gets a Secure cookie", async () => {
    expect(serve.baseUrl).toMatch(/^https:\/\//);

    const login = await post("Login", { username: "admin", password: ADMIN_PASSWORD });

    expect(login.status).toBe(200);
    expect(login.cookie).toMatch(/^switchyard_session=[^;]+;.*\bSecure\b/);
    expect(login.cookie).toMatch(/HttpOnly/);
  });

  it("tells browsers to come back only over HTTPS for a year (HSTS), on every answer, including a refusal", async () => {
    hsts.length = 0;
    await post("Login", { username: "admin", password: ADMIN_PASSWORD });
    const refused = await post("WhoAmI", {});

    expect(refused.status).toBe(401);
    expect(hsts).toEqual(["max-age=31536000", "max-age=31536000"]);
  });

  it("answers nothing in clear on the console port", async () => {
    const clear = serve.baseUrl.replace(/^https:/, "http:");

    const answered = await fetch(`${clear}/switchyard.v1.AccessService/Login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: ADMIN_PASSWORD }),
    }).then(
      (response) => response.status,
      () => "no answer",
    );

    expect(answered).toBe("no answer");
  });

  it("the CLI reaches it when the CA is in NODE_EXTRA_CA_CERTS", async () => {
    const server = serve.baseUrl.replace("127.0.0.1", "localhost");
    const login = run(
      ["login", "--server", server, "--username", "admin", "--password-stdin"],
      { NODE_EXTRA_CA_CERTS: file("ca.crt", ca.cert), XDG_CONFIG_HOME: dir },
      `${ADMIN_PASSWORD}\n`,
    );

    expect(await login.exited, login.output()).toBe(0);
    const whoami = run(["whoami", "--server", server], {
      NODE_EXTRA_CA_CERTS: path.join(dir, "ca.crt"),
      XDG_CONFIG_HOME: dir,
    });
    expect(await whoami.exited, whoami.output()).toBe(0);
    expect(whoami.output()).toContain("admin");
  });

  it("refuses --tls without a certificate and key, naming the flags to give", async () => {
    const refused = run(["serve", "--no-console", "--http-port", "0", "--xds-port", "0", "--tls"], {
      DATABASE_URL: database.url,
    });

    expect(await refused.exited).not.toBe(0);
    expect(refused.output()).toContain("give --tls-cert FILE and --tls-key FILE");
  });

  it("refuses a key that is not the certificate's, naming both files", async () => {
    const other = ca.issueServer({ commonName: "other" });
    const cert = file("mismatch.crt", other.cert);
    const key = path.join(dir, "console.key");
    const refused = run(
      ["serve", "--no-console", "--http-port", "0", "--xds-port", "0"].concat([
        "--tls-cert",
        cert,
        "--tls-key",
        key,
      ]),
      { DATABASE_URL: database.url },
    );

    expect(await refused.exited).not.toBe(0);
    expect(refused.output()).toContain(`--tls-cert ${cert} and --tls-key ${key} are not`);
  });
});
