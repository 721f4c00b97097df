import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { toJson } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { type Harness, startHarness } from "@switchyard/server/testing";
import {
  canonicalJson,
  type EnvoyResource,
  normalizeEnvoyResources,
  parseEnvoyConfig,
  resourceName,
  resourceSchema,
} from "@switchyard/snapshot";
import { createTestCa } from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "..", "bin", "switchyard.js");
const corpus = path.join(here, "..", "..", "snapshot", "test", "corpus");

interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function decoded(text: string, filename: string): Map<string, EnvoyResource> {
  const parsed = parseEnvoyConfig(text, { filename });
  if ("errors" in parsed)
    throw new Error(parsed.errors.map((e) => `${e.path}: ${e.message}`).join("\n"));
  const { resources } = normalizeEnvoyResources(parsed.resources);
  return new Map(resources.map((r) => [`${r.typeUrl} ${resourceName(r)}`, r]));
}

describe("the switchyard CLI against a running server", () => {
  let harness: Harness;
  const work = mkdtempSync(path.join(os.tmpdir(), "switchyard-cli-config-"));

  const cli = async (...args: string[]): Promise<Result> =>
    runCli(harness.baseUrl, await harness.token(), ...args);

  beforeAll(async () => {
    harness = await startHarness({
      app: { secretsKey: { t: "key", key: new Uint8Array(randomBytes(32)), source: "env" } },
    });
  });

  /** PEM files made at test time: a CA, and server certificates with their keys. */
  const ca = createTestCa("cli test CA");
  const pem = (name: string, text: string): string => {
    const file = path.join(work, name);
    writeFileSync(file, text, { mode: 0o600 });
    return file;
  };
  const issued = (name: string) => {
    const pair = ca.issueServer({ commonName: name, dns: [name] });
    return { cert: pem(`${name}.crt`, pair.cert), key: pem(`${name}.key`, pair.key), pair };
  };

  it("creates the secrets edge-proxy.yaml names with `secret create` and publishes them (version 1)", async () => {
    const www = issued("www.example.com");
    const api = issued("api.example.com");
    const created = await cli(
      "secret",
      "create",
      "tls",
      "www-example-com",
      "--cert",
      www.cert,
      "--key",
      www.key,
    );
    expect(created.stderr).toBe("");
    expect(created.stdout).toMatch(
      /^created secret www-example-com \(tls: CN=www.example.com, expires \d{4}-\d\d-\d\d \(in 0 days\), private key set/,
    );
    expect(created.stdout).toMatch(/saved to the draft/);
    expect(
      (
        await cli(
          "secret",
          "create",
          "tls",
          "api-example-com",
          "--cert",
          api.cert,
          "--key",
          api.key,
        )
      ).code,
    ).toBe(0);
    const validation = await cli(
      "secret",
      "create",
      "validation",
      "internal-ca",
      "--ca",
      pem("ca.crt", ca.cert),
      "--match-san",
      "api.internal",
      "--publish",
      "certificates",
    );
    expect(validation.stderr).toBe("");
    expect(validation.stdout).toMatch(/published version 1/);
  });

  afterAll(async () => {
    await harness?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("applies an existing Envoy YAML, shows it through get, and exports it back equal", async () => {
    const file = path.join(corpus, "edge-proxy.yaml");
    const applied = await cli("apply", "-f", file);
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/published version 2/);

    const clusters = await cli("get", "clusters");
    expect(clusters.code).toBe(0);
    const input = decoded(readFileSync(file, "utf8"), "edge-proxy.yaml");
    for (const resource of input.values()) {
      if (resource.typeUrl.endsWith(".Cluster"))
        expect(clusters.stdout).toContain(resourceName(resource));
    }
    const [firstListener] = [...input.values()].filter((r) => r.typeUrl.endsWith(".Listener"));
    const one = await cli(
      "get",
      "listener",
      resourceName(firstListener as EnvoyResource),
      "-o",
      "yaml",
    );
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(
      /^['"]@type['"]: type.googleapis.com\/envoy.config.listener.v3.Listener\nname: /,
    );

    const exported = await cli("export", "-o", "json");
    expect(exported.code).toBe(0);
    const output = decoded(exported.stdout, "export.json");
    expect([...output.keys()].sort()).toEqual([...input.keys()].sort());
    // Equal as Envoy reads them: JSON object keys (Struct fields) are unordered.
    const json = (r: EnvoyResource) =>
      canonicalJson(toJson(resourceSchema(r.typeUrl), r.message, { registry }));
    for (const [key, resource] of input) {
      const back = output.get(key);
      expect(back && json(back), key).toBe(json(resource));
    }
  });

  it("refuses an invalid file with the path and the reason, and changes nothing", async () => {
    const before = await cli("export", "-o", "json");
    const bad = path.join(work, "bad.yaml");
    writeFileSync(
      bad,
      [
        "- '@type': type.googleapis.com/envoy.config.cluster.v3.Cluster",
        "  name: typo",
        "  connect_timeout: 1s",
        "  lb_policy: ROUND_ROBBIN",
        "  conect_timeout: 2s",
        "",
      ].join("\n"),
    );
    const refused = await cli("apply", "-f", bad);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/resources?\[0\]\.lb_policy|\[0\]\.lb_policy/);
    expect(refused.stderr).toMatch(/ROUND_ROBBIN/);
    expect(refused.stderr).toMatch(/conect_timeout/);
    expect((await cli("export", "-o", "json")).stdout).toBe(before.stdout);
    expect((await cli("history")).stdout).not.toMatch(/^\s*3\s/m);
  });

  it("stages with --draft, shows the diff, publishes it, lists the history and rolls back", async () => {
    const file = path.join(work, "grpc.json");
    writeFileSync(file, readFileSync(path.join(corpus, "grpc-proxyless.json"), "utf8"));
    const staged = await cli("apply", "-f", file, "--draft");
    expect(staged.code).toBe(0);
    expect(staged.stdout).toMatch(/saved to the draft/);

    const diff = await cli("diff");
    expect(diff.code).toBe(0);
    expect(diff.stdout).toMatch(/version 2 → the draft: \d+ added, 0 modified, 0 removed/);
    expect(diff.stdout).toMatch(/^\+\+\+ b\/cluster\//m);

    // Its api_listener has an RBAC filter and a direct response, which proxyless gRPC clients
    // would reject: a publish says so and needs --accept-warnings.
    const refused = await cli("publish", "-m", "add the gRPC services");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("validation predicts 2 rejection(s)");
    const published = await cli("publish", "-m", "add the gRPC services", "--accept-warnings");
    expect(published.code).toBe(0);
    expect(published.stdout).toMatch(/published version 3/);

    const nothing = await cli("publish", "-m", "again");
    expect(nothing.code).not.toBe(0);
    expect(nothing.stderr).toMatch(/nothing to publish/);

    const history = await cli("history");
    expect(history.stdout).toMatch(/^3\s.*add the gRPC services/m);
    expect(history.stdout).toMatch(/^2\s.*apply edge-proxy\.yaml/m);

    const rolledBack = await cli("rollback", "2");
    expect(rolledBack.code).toBe(0);
    expect(rolledBack.stdout).toMatch(/published version 4: the content of version 2/);
    expect((await cli("diff", "--from", "2", "--to", "4")).stdout).toMatch(
      /no changes between version 2 and version 4/,
    );
  });

  it("lists secrets with get secrets, prints one without its key, rotates one in a step, and refuses to delete one in use", async () => {
    const list = await cli("get", "secrets");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^NAME\s+TYPE\s+SUBJECT\s+SIZE\s+EXPIRES\s+SHA-256 FINGERPRINT\s+USED BY/m,
    );
    expect(list.stdout).toMatch(/^www-example-com\s+tls\s+CN=www.example.com\s+.*listener\/https/m);
    expect(list.stdout).toMatch(/^internal-ca\s+validation\s+CN=cli test CA\s+.*cluster\/api/m);

    const one = await cli("get", "secret", "www-example-com", "-o", "yaml");
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^name: www-example-com\ntype: SECRET_TYPE_TLS_CERTIFICATE\n/);
    expect(one.stdout).toMatch(/privateKeySet: true/);
    expect(one.stdout).not.toContain("PRIVATE KEY");

    const renewed = issued("www.example.com");
    const rotated = await cli(
      "secret",
      "rotate",
      "www-example-com",
      "--cert",
      renewed.cert,
      "--key",
      renewed.key,
      "--publish",
      "rotate www",
    );
    expect(rotated.stderr).toBe("");
    expect(rotated.stdout).toMatch(/^rotated secret www-example-com/);
    expect(rotated.stdout).toMatch(/published version \d+: 0 added, 1 modified, 0 removed/);
    expect(rotated.stdout).toMatch(/modified\s+secret www-example-com/);
    expect(rotated.stdout).not.toMatch(/listener /);

    const other = issued("other.example.com");
    const wrongKey = await cli("secret", "rotate", "www-example-com", "--cert", other.cert);
    expect(wrongKey.code).not.toBe(0);
    expect(wrongKey.stderr).toMatch(
      /is for another key than the stored one: upload its private key with it/,
    );

    const inUse = await cli("delete", "secret", "www-example-com");
    expect(inUse.code).not.toBe(0);
    expect(inUse.stderr).toMatch(/secret "www-example-com" is used by listener\/https/);
  });

  it("applies Runtime resources, lists them with get runtimes, prints one with get runtime NAME -o yaml, and deletes one", async () => {
    const file = path.join(work, "runtime.yaml");
    writeFileSync(
      file,
      [
        "- '@type': type.googleapis.com/envoy.service.runtime.v3.Runtime",
        "  name: faults",
        "  layer:",
        "    fault.http.abort.abort_percent: 10",
        "    envoy.reloadable_features.example: true",
        "",
      ].join("\n"),
    );
    const applied = await cli("apply", "-f", file);
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/published version \d+/);

    const list = await cli("get", "runtimes");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^faults\s+2 keys/m);

    const one = await cli("get", "runtime", "faults", "-o", "yaml");
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(
      /^['"]@type['"]: type.googleapis.com\/envoy.service.runtime.v3.Runtime\nname: faults\nlayer:\n/,
    );
    expect(one.stdout).toContain("fault.http.abort.abort_percent: 10");

    const deleted = await cli("delete", "runtime", "faults");
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toMatch(/deleted runtime layer faults from the draft/);
    expect((await cli("get", "runtimes")).stdout).toMatch(/no runtime layers stored/);
  });

  it("creates a generic secret and session ticket keys from files, shows their size and SHA-256 but never a value, and rotates the keys in a step", async () => {
    const value = randomBytes(32);
    const [newKey, oldKey, newest] = [randomBytes(80), randomBytes(80), randomBytes(80)];
    const file = (name: string, bytes: Buffer) => {
      const at = path.join(work, name);
      writeFileSync(at, bytes, { mode: 0o600 });
      return at;
    };
    const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
    const shown = (text: string) => {
      for (const bytes of [value, newKey, oldKey, newest]) {
        expect(text).not.toContain(bytes.toString("base64"));
      }
      expect(text).not.toMatch(/sy[12]\./);
    };

    const generic = await cli(
      "secret",
      "create",
      "generic",
      "api-key",
      "--from-file",
      file("api.key", value),
    );
    expect(generic.stderr).toBe("");
    expect(generic.stdout).toMatch(
      new RegExp(
        `^created secret api-key \\(generic: 32 bytes, sha256 ${sha(value).slice(0, 16)}…\\)`,
      ),
    );
    const keys = await cli(
      "secret",
      "create",
      "session-ticket-keys",
      "tickets",
      "--from-file",
      file("new.key", newKey),
      file("old.key", oldKey),
    );
    expect(keys.stderr).toBe("");
    expect(keys.stdout).toContain(
      `(session-ticket-keys: key 1: 80 bytes, sha256 ${sha(newKey).slice(0, 16)}…; key 2: 80 bytes, sha256 ${sha(oldKey).slice(0, 16)}…)`,
    );

    const short = await cli(
      "secret",
      "create",
      "session-ticket-keys",
      "short",
      "--from-file",
      file("short.key", randomBytes(32)),
    );
    expect(short.code).not.toBe(0);
    expect(short.stderr).toMatch(
      /short\.key is 32 bytes: a session ticket key is exactly 80 bytes, as Envoy requires \(make one with: openssl rand 80 > /,
    );
    const huge = await cli(
      "secret",
      "create",
      "generic",
      "huge",
      "--from-file",
      file("huge.bin", randomBytes(64 * 1024 + 1)),
    );
    expect(huge.code).not.toBe(0);
    expect(huge.stderr).toMatch(
      /huge\.bin is 65537 bytes, above the 64 KiB a generic secret may hold/,
    );

    const list = await cli("get", "secrets");
    expect(list.stdout).toMatch(
      new RegExp(`^api-key\\s+generic\\s+32 bytes\\s+${sha(value).slice(0, 23)}`, "m"),
    );
    expect(list.stdout).toMatch(/^tickets\s+session-ticket-keys\s+2 keys, 80 bytes each\s+/m);
    shown(list.stdout);

    const one = await cli("get", "secret", "tickets", "-o", "yaml");
    expect(one.stdout).toMatch(/^name: tickets\ntype: SECRET_TYPE_SESSION_TICKET_KEYS\n/);
    expect(one.stdout).toContain("valueSet: true");
    expect(one.stdout).toContain(`sha256: ${sha(newKey)}`);
    expect(one.stdout).toContain("sizeBytes: 80");
    shown(one.stdout);

    expect((await cli("publish", "-m", "value secrets")).code).toBe(0);
    const rotated = await cli(
      "secret",
      "rotate",
      "tickets",
      "--from-file",
      file("newest.key", newest),
      file("new-again.key", newKey),
      "--publish",
      "rotate ticket keys",
    );
    expect(rotated.stderr).toBe("");
    expect(rotated.stdout).toMatch(
      /^rotated secret tickets \(session-ticket-keys: key 1: 80 bytes/,
    );
    expect(rotated.stdout).toMatch(/published version \d+: 0 added, 1 modified, 0 removed/);
    shown(rotated.stdout);
    const after = await cli("get", "secret", "tickets", "-o", "json");
    expect(JSON.parse(after.stdout).valueInfos.map((v: { sha256: string }) => v.sha256)).toEqual([
      sha(newest),
      sha(newKey),
    ]);
  });

  it("takes a reader that stops early (| head) as the end of its output: exit 0, no EPIPE trace", async () => {
    const token = await harness.token();
    const result = await new Promise<Result>((resolve) => {
      const child = spawn(process.execPath, [bin, "--server", harness.baseUrl, "history"], {
        env: { ...process.env, SWITCHYARD_TOKEN: token },
        stdio: ["ignore", "pipe", "pipe"],
      });
      // The reader is gone before the command writes a line, as `head` is after its lines.
      child.stdout.destroy();
      let stderr = "";
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      child.on("exit", (code) => resolve({ code, stdout: "", stderr }));
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("explains an unreachable server in one line and exits non-zero", async () => {
    const result = await new Promise<Result>((resolve) => {
      const child = spawn(process.execPath, [bin, "--server", "http://127.0.0.1:9", "history"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      child.on("exit", (code) => resolve({ code, stdout: "", stderr }));
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/cannot reach the Switchyard server at http:\/\/127\.0\.0\.1:9/);
  });
});
