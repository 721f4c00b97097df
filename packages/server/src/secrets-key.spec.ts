import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ConnectError } from "@connectrpc/connect";
import { legacySealed } from "@switchyard/snapshot/fixtures";
import { afterEach, describe, expect, it } from "vitest";
import { readEnv } from "./env.js";
import {
  createKeyring,
  decodeSecretsKey,
  embeddedSecretsKey,
  MISSING_SECRETS_KEY,
} from "./secrets-key.js";

/** An environment holding only `variables` (NODE_ENV is typed as required). */
const env = (variables: Record<string, string>) =>
  ({ NODE_ENV: "test", ...variables }) as NodeJS.ProcessEnv;

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "switchyard-secrets-key-"));
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("the secrets key", () => {
  it("reads SWITCHYARD_SECRETS_KEY as base64 of 32 bytes", () => {
    const key = randomBytes(32);
    expect(
      readEnv(env({ SWITCHYARD_SECRETS_KEY: key.toString("base64") })).SWITCHYARD_SECRETS_KEY,
    ).toEqual(new Uint8Array(key));
  });

  it("refuses a SWITCHYARD_SECRETS_KEY that is not 32 bytes, saying how to make one", () => {
    expect(() =>
      readEnv(env({ SWITCHYARD_SECRETS_KEY: randomBytes(16).toString("base64") })),
    ).toThrow(
      /SWITCHYARD_SECRETS_KEY: must be the base64 of exactly 32 bytes \(openssl rand -base64 32\); this decodes to 16 bytes/,
    );
    expect(typeof decodeSecretsKey("not base64!")).toBe("string");
  });

  it("reads SWITCHYARD_SECRETS_KEY_PREVIOUS as comma-separated keys, naming a bad one by position", () => {
    const [a, b] = [randomBytes(32), randomBytes(32)];
    expect(
      readEnv(
        env({ SWITCHYARD_SECRETS_KEY_PREVIOUS: `${a.toString("base64")},${b.toString("base64")}` }),
      ).SWITCHYARD_SECRETS_KEY_PREVIOUS,
    ).toEqual([new Uint8Array(a), new Uint8Array(b)]);
    expect(() =>
      readEnv(env({ SWITCHYARD_SECRETS_KEY_PREVIOUS: `${a.toString("base64")},nope` })),
    ).toThrow(/SWITCHYARD_SECRETS_KEY_PREVIOUS: key 2 must be the base64/);
  });

  it("opens with a previous key what it sealed, and seals only with the current key", () => {
    const [oldKey, newKey] = [new Uint8Array(randomBytes(32)), new Uint8Array(randomBytes(32))];
    const before = createKeyring({ t: "key", key: oldKey, source: "env" });
    const sealed = before.seal("the key");
    const after = createKeyring({ t: "key", key: newKey, source: "env", previous: [oldKey] });
    expect(after.previousKeyIds).toEqual([before.keyId]);
    expect(after.open(sealed)).toBe("the key");
    expect(after.seal("the key").split(".")[1]).toBe(after.keyId);
  });

  it("makes the embedded database's key file once, mode 0600, and reads the same key after", async () => {
    const dir = await tempDir();
    const made = await embeddedSecretsKey(dir);
    const file = path.join(dir, "secrets.key");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const again = await embeddedSecretsKey(dir);
    expect(again).toEqual(made);
    expect(made).toMatchObject({ t: "key", source: "file" });
  });

  it("refuses a key file that holds no 32-byte key instead of making a new one", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "secrets.key"), "short\n");
    await expect(embeddedSecretsKey(dir)).rejects.toThrow(/secrets.key must be the base64/);
    expect(await readFile(path.join(dir, "secrets.key"), "utf8")).toBe("short\n");
  });

  it("without a key: sealing is refused with FAILED_PRECONDITION naming the variable, opening with the same words", () => {
    const keyring = createKeyring({ t: "none" });
    expect(keyring.keyId).toBeUndefined();
    expect(() => keyring.seal("x")).toThrow(ConnectError);
    expect(() => keyring.seal("x")).toThrow(MISSING_SECRETS_KEY);
    expect(() => keyring.open("sy1.a.b.c.d")).toThrow(MISSING_SECRETS_KEY);
  });

  it("a stored text is written back sealed in the current form with the current key: an older form or a previous key's is sealed again, a current one kept as it is", () => {
    const key = new Uint8Array(randomBytes(32));
    const old = new Uint8Array(randomBytes(32));
    const keyring = createKeyring({ t: "key", key, source: "env", previous: [old] });
    const current = keyring.seal("a private key");

    expect(keyring.reseal(current)).toBe(current);
    for (const stored of [
      legacySealed(key, "a private key"),
      legacySealed(old, "a private key"),
      createKeyring({ t: "key", key: old, source: "env" }).seal("a private key"),
    ])
      expect(keyring.reseal(stored)).toBe(current);
    expect(() => keyring.reseal(legacySealed(new Uint8Array(32), "x"))).toThrow(
      "but the configured secrets key is",
    );
  });
});
