/**
 * Sealing of secret material (private keys, secret values) with a 32-byte secrets key:
 * AES-256-GCM, each sealed text naming the key it was sealed with, so opening with another key
 * fails with a message saying so instead of garbage.
 *
 *   sealed = "sy1." keyId "." iv "." tag "." ciphertext        (base64url parts)
 *   keyId  = first 12 hex digits of HMAC-SHA256(key, "switchyard secrets key id")
 *
 * Deterministic (a synthetic IV, as AES-GCM-SIV and RFC 5297 do): the IV is an HMAC of the
 * plaintext under a key derived from the secrets key, so sealing one private key twice gives one
 * text. That is what lets a sealed key sit in a source object whose content hash must not change
 * when nothing changed (sources.ts); what it reveals is only that two sealed keys are equal. A
 * GCM IV repeats only for equal plaintexts, which is the one case where repeating it is harmless.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync } from "node:crypto";

const PREFIX = "sy1";

/** A sealed text could not be opened: another key sealed it, it was altered, or it is not one. */
export class SecretBoxError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SecretBoxError";
  }
}

export interface SecretBox {
  /** Identifies the key (not secret): stored in every sealed text. */
  readonly keyId: string;
  seal(plaintext: string): string;
  /** Throws SecretBoxError when `sealed` was sealed with another key, or altered. */
  open(sealed: string): string;
}

/** Opens sealed texts: what the compiler needs to put a private key into a Secret resource. */
export type SecretOpener = (sealed: string) => string;

/** True when `value` has the form of a sealed text (it may still fail to open). */
export function isSealed(value: string): boolean {
  return value.startsWith(`${PREFIX}.`) && value.split(".").length === 5;
}

/** The id of the key `sealed` was sealed with, or undefined when it is not a sealed text. */
export function sealedKeyId(sealed: string): string | undefined {
  return isSealed(sealed) ? sealed.split(".")[1] : undefined;
}

export function secretKeyId(key: Uint8Array): string {
  return createHmac("sha256", key).update("switchyard secrets key id").digest("hex").slice(0, 12);
}

function derive(key: Uint8Array, info: string): Buffer {
  return Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), info, 32));
}

export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.length !== 32) {
    throw new SecretBoxError(`a secrets key is 32 bytes; this one has ${key.length}`);
  }
  const keyId = secretKeyId(key);
  const encryptionKey = derive(key, "switchyard secrets aes-256-gcm");
  const ivKey = derive(key, "switchyard secrets synthetic iv");
  const aad = Buffer.from(`${PREFIX}.${keyId}`);
  return {
    keyId,
    seal(plaintext) {
      const data = Buffer.from(plaintext, "utf8");
      const iv = createHmac("sha256", ivKey).update(data).digest().subarray(0, 12);
      const cipher = createCipheriv("aes-256-gcm", encryptionKey, iv);
      cipher.setAAD(aad);
      const ciphertext = Buffer.concat([cipher.update(data), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString("base64url"));
      return [PREFIX, keyId, ...parts].join(".");
    },
    open(sealed) {
      const parts = sealed.split(".");
      if (parts.length !== 5 || parts[0] !== PREFIX) {
        throw new SecretBoxError("not a sealed secret (expected sy1.<key id>.<iv>.<tag>.<data>)");
      }
      const [, sealedWith, iv, tag, data] = parts as [string, string, string, string, string];
      if (sealedWith !== keyId) {
        throw new SecretBoxError(
          `sealed with secrets key ${sealedWith}, but the configured secrets key is ${keyId}: configure the key it was sealed with`,
        );
      }
      try {
        const decipher = createDecipheriv(
          "aes-256-gcm",
          encryptionKey,
          Buffer.from(iv, "base64url"),
        );
        decipher.setAAD(aad);
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([
          decipher.update(Buffer.from(data, "base64url")),
          decipher.final(),
        ]).toString("utf8");
      } catch (error) {
        throw new SecretBoxError("a sealed secret does not decrypt: it was altered", {
          cause: error,
        });
      }
    },
  };
}

/**
 * What is shown in place of a sealed private key or value (audit log, anything a person reads):
 * which sealed text it is, so a change shows, and nothing of the plaintext or its ciphertext.
 */
export function sealedMarker(
  sealed: string,
  what: "private key" | "value" = "private key",
): string {
  return `(sealed ${what} ${createHash("sha256").update(sealed).digest("hex").slice(0, 16)})`;
}
