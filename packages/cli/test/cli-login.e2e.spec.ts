import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ADMIN_PASSWORD, type Harness, startHarness } from "@switchyard/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli as runInProcess } from "./run-cli.js";

describe("switchyard login, whoami and logout", () => {
  let harness: Harness;
  const config = mkdtempSync(path.join(os.tmpdir(), "switchyard-login-"));

  /** The real CLI with its own config dir and no SWITCHYARD_TOKEN; `stdin` is piped in. */
  const cli = (args: string[], stdin = "") =>
    runInProcess(["--server", harness.baseUrl, ...args], {
      env: { XDG_CONFIG_HOME: config, SWITCHYARD_TOKEN: "" },
      stdin,
    });

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness?.stop();
    rmSync(config, { recursive: true, force: true });
  });

  it("without credentials a command says how to log in; login stores a token readable by the user only, and every command then uses it; logout revokes it", async () => {
    const before = await cli(["history"]);
    expect(before.code).not.toBe(0);
    expect(before.output).toContain(
      `not logged in: run \`switchyard login --server ${harness.baseUrl}\` or set SWITCHYARD_TOKEN`,
    );

    const wrong = await cli(["login", "--username", "admin", "--password-stdin"], "nope\n");
    expect(wrong.code).not.toBe(0);
    expect(wrong.output).toContain("wrong username or password");

    const login = await cli(
      ["login", "--username", "admin", "--password-stdin"],
      `${ADMIN_PASSWORD}\n`,
    );
    expect(login.output).toContain("Logged in");
    expect(login.code).toBe(0);
    const file = path.join(config, "switchyard", "credentials.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, "utf8")) as {
      servers: Record<string, { token: string }>;
    };
    const token = stored.servers[harness.baseUrl]?.token ?? "";
    expect(token).toMatch(/^sy_/);

    const who = await cli(["whoami"]);
    expect(who.output).toContain("admin (admin) via token");
    expect((await cli(["history"])).code).toBe(0);

    expect((await cli(["logout"])).code).toBe(0);
    const revoked = await fetch(`${harness.baseUrl}/switchyard.v1.AccessService/WhoAmI`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: "{}",
    });
    expect(revoked.status).toBe(401);
    expect((await cli(["history"])).output).toContain("not logged in");
  }, 60_000);

  it("a login the server refuses (revoked, expired, or another server at that address now) says which login it was and to log in again", async () => {
    const login = await cli(
      ["login", "--username", "admin", "--password-stdin"],
      `${ADMIN_PASSWORD}\n`,
    );
    expect(login.code).toBe(0);
    const file = path.join(config, "switchyard", "credentials.json");
    const stored = JSON.parse(readFileSync(file, "utf8")) as {
      servers: Record<string, { token: string }>;
    };
    const own = stored.servers[harness.baseUrl];
    if (own === undefined) throw new Error(`no login stored for ${harness.baseUrl}`);
    own.token = "sy_not-a-token-this-server-made";
    writeFileSync(file, JSON.stringify(stored));

    const refused = await cli(["history"]);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(
      `the server at ${harness.baseUrl} refuses the login stored for it (admin, logged in `,
    );
    expect(refused.output).toContain(`run \`switchyard login --server ${harness.baseUrl}\` again`);
  }, 60_000);
});
