/**
 * The secrets key: what seals TLS private keys at rest (AES-256-GCM-SIV, @switchyard/snapshot
 * secret-box.ts). It comes from SWITCHYARD_SECRETS_KEY (env.ts), or, for the embedded database
 * only, from a key file made on first start in the data folder: a zero-setup `npm start` keeps
 * working across restarts. With an external DATABASE_URL and no key, writing a secret and
 * publishing a config that holds one are refused, saying which variable to set: a key generated
 * on one replica would leave the others unable to open what it sealed.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  createSecretBox,
  isCurrentSeal,
  type SecretBox,
  type SecretOpener,
  sealedKeyId,
} from "@switchyard/snapshot/secret-box";

export const SECRETS_KEY_VARIABLE = "SWITCHYARD_SECRETS_KEY";

export const MISSING_SECRETS_KEY = `no secrets key is configured: set ${SECRETS_KEY_VARIABLE} to the base64 of 32 random bytes (openssl rand -base64 32), the same on every replica; it encrypts TLS private keys at rest`;

/**
 * Where the key came from, for the startup banner; `none`: secrets cannot be written. `previous`
 * (SWITCHYARD_SECRETS_KEY_PREVIOUS) are keys being rotated out: they still open what they sealed,
 * never seal, and at startup everything they sealed is sealed again with `key` (reseal.ts).
 */
export type SecretsKey =
  | {
      readonly t: "key";
      readonly key: Uint8Array;
      readonly source: "env" | "file";
      readonly previous?: readonly Uint8Array[];
    }
  | { readonly t: "none" };

/** Seals and opens private keys with the configured key; refuses clearly without one. */
export interface SecretKeyring {
  /** The key's id (stored in every sealed text), or undefined without a key. */
  readonly keyId: string | undefined;
  /** The ids of the previous keys (SWITCHYARD_SECRETS_KEY_PREVIOUS), which open but never seal. */
  readonly previousKeyIds: readonly string[];
  /** Throws ConnectError FAILED_PRECONDITION without a key. */
  seal(plaintext: string): string;
  /** Throws an Error saying what to set (without a key) or which key sealed it (another key). */
  readonly open: SecretOpener;
  /**
   * `sealed` as it is to be stored now: sealed again with the current key, in the current form,
   * when a previous key or the older form (sy1) sealed it; else unchanged. What every write of a
   * stored sealed text goes through, so old texts go as they are written. Throws as open does.
   */
  reseal(sealed: string): string;
}

export function createKeyring(key: SecretsKey): SecretKeyring {
  const box: SecretBox | undefined = key.t === "key" ? createSecretBox(key.key) : undefined;
  const previous = new Map(
    (key.t === "key" ? (key.previous ?? []) : []).map((k) => {
      const old = createSecretBox(k);
      return [old.keyId, old] as const;
    }),
  );
  const seal = (plaintext: string) => {
    if (!box) throw new ConnectError(MISSING_SECRETS_KEY, Code.FailedPrecondition);
    return box.seal(plaintext);
  };
  const open = (sealed: string) => {
    if (!box) throw new Error(MISSING_SECRETS_KEY);
    const old = previous.get(sealedKeyId(sealed) ?? "");
    return (old ?? box).open(sealed);
  };
  return {
    keyId: box?.keyId,
    previousKeyIds: [...previous.keys()],
    seal,
    open,
    reseal: (sealed) =>
      box && isCurrentSeal(sealed) && sealedKeyId(sealed) === box.keyId
        ? sealed
        : seal(open(sealed)),
  };
}

/** The 32 bytes of a base64 key, or why not (env.ts validates the variable with this). */
export function decodeSecretsKey(text: string): Uint8Array | string {
  const bytes = Buffer.from(text.trim(), "base64");
  if (bytes.length !== 32 || bytes.toString("base64") !== text.trim()) {
    return `must be the base64 of exactly 32 bytes (openssl rand -base64 32); this decodes to ${bytes.length} bytes`;
  }
  return new Uint8Array(bytes);
}

/**
 * The embedded database's key file (`<dataDir>/secrets.key`, mode 0600, base64): read, or made
 * on first start. Kept beside the database it protects, so that moving the data folder moves
 * both; an operator who wants the key elsewhere sets SWITCHYARD_SECRETS_KEY instead.
 */
export async function embeddedSecretsKey(dataDir: string): Promise<SecretsKey> {
  const file = path.join(dataDir, "secrets.key");
  try {
    const decoded = decodeSecretsKey(await readFile(file, "utf8"));
    if (typeof decoded === "string") throw new Error(`${file} ${decoded}`);
    return { t: "key", key: decoded, source: "file" };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32);
  await writeFile(file, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  await chmod(file, 0o600);
  return { t: "key", key: new Uint8Array(key), source: "file" };
}
