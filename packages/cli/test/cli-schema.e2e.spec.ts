/**
 * `switchyard schema add FILE [--name NAME]`, `schema list` and `schema remove NAME` against a
 * real server: a newer Envoy API loaded, listed with what it adds, then removed; a file that is
 * no descriptor set refused with why. Reads a descriptor set of a current Envoy API where it lies
 * (shared/schemas beside the repository, or SWITCHYARD_ENVOY_SCHEMA); never copied into it.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { type Harness, startHarness } from "@switchyard/server/testing";
import { envoySchemaFile } from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

describe("switchyard schema", () => {
  let harness: Harness;
  let token: string;
  let work: string;
  const cli = (...args: string[]) => runCli(harness.baseUrl, token, ...args);

  beforeAll(async () => {
    harness = await startHarness();
    token = await harness.token();
    work = mkdtempSync(path.join(tmpdir(), "switchyard-schema-"));
  });
  afterAll(async () => {
    await harness?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("lists none at first, naming the bundled API in use", async () => {
    const listed = await cli("schema", "list");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      /^no newer Envoy API loaded: the Envoy API bundled with Switchyard/,
    );
  });

  it("refuses a file that is no descriptor set, saying why, and one it cannot read", async () => {
    const bad = path.join(work, "bad.binpb");
    writeFileSync(bad, "not a descriptor set");
    const refused = await cli("schema", "add", bad);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      /descriptor_set is not taken as a newer Envoy API: it is no FileDescriptorSet/,
    );
    const missing = await cli("schema", "add", path.join(work, "missing.binpb"));
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/cannot read the descriptor set .*missing\.binpb/);
  });

  it("adds one under its file name, lists it with what it adds, and removes it", async () => {
    const file = path.join(work, "envoy-1.37.binpb");
    copyFileSync(envoySchemaFile(), file);
    const added = await cli("schema", "add", file);
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(
      /^Envoy API "envoy-1\.37" loaded \(sha256 [0-9a-f]{12}, \d+ files\): \d+ messages and \d+ fields the bundled Envoy API lacks\n$/,
    );
    const listed = await cli("schema", "list");
    expect(listed.stdout).toMatch(
      /NAME\s+SHA-256\s+FILES\s+NEW MESSAGES\s+NEW FIELDS\s+ADDED BY\s+ADDED/,
    );
    expect(listed.stdout).toMatch(/envoy-1\.37\s+[0-9a-f]{12}\s+\d+\s+\d+\s+\d+\s+admin/);
    const json = JSON.parse((await cli("schema", "list", "-o", "json")).stdout) as {
      name: string;
    }[];
    expect(json.map((s) => s.name)).toEqual(["envoy-1.37"]);
    const removed = await cli("schema", "remove", "envoy-1.37");
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe('Envoy API "envoy-1.37" removed\n');
    const unknown = await cli("schema", "remove", "envoy-1.37");
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/no Envoy API is loaded as "envoy-1\.37"/);
  });
});
