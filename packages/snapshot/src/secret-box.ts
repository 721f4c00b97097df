/**
 * Sealing of secret material (private keys, secret values) with a 32-byte secrets key, each
 * sealed text naming the key it was sealed with, so opening with another key fails with a message
 * saying so instead of garbage.
 *
 *   sealed = "sy2." keyId "." data                      (data: base64url of ciphertext ‖ tag)
 *   keyId  = first 12 hex digits of HMAC-SHA256(key, "switchyard secrets key id")
 *
 * AEAD_AES_256_GCM_SIV (RFC 8452) from @noble/ciphers, under a key derived from the secrets key
 * with HKDF-SHA256 (RFC 5869), with the fixed all-zero nonce and "sy2.<keyId>" as associated data.
 * Deterministic on purpose: GCM-SIV is a nonce-misuse-resistant AEAD whose only loss on a repeated
 * nonce is that equal plaintexts give equal ciphertexts (RFC 8452, sections 1 and 9), and that is
 * what lets a sealed key sit in a source object whose content hash must not change when nothing
 * changed (sources.ts): sealing one private key twice gives one text, revealing only that two
 * sealed keys are equal.
 *
 * Texts of the form before it ("sy1." keyId "." iv "." tag "." ciphertext: AES-256-GCM with an
 * HMAC of the plaintext as its IV, built here by hand) still open; nothing seals them any more, and
 * the server seals again what it stores of them whenever it writes it (isCurrentSeal).
 * secret-box.spec.ts pins both forms.
 */
import { createDecipheriv, createHash, createHmac, hkdfSync } from "node:crypto";
import { gcmsiv } from "@noble/ciphers/aes.js";

/** The form every text is sealed in. */
const CURRENT = "sy2";
/** The form before it: still opened, never sealed. */
const LEGACY = "sy1";
/** RFC 8452's nonce length; the nonce is fixed (see above). */
const NONCE = new Uint8Array(12);
/** RFC 8452's tag length: the shortest data a sealed text can hold. */
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

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
  /** `plaintext` sealed in the current form (sy2, AES-256-GCM-SIV). */
  seal(plaintext: string): string;
  /**
   * Opens a text of either form. Throws SecretBoxError when `sealed` was sealed with another key,
   * altered, truncated, or is not a sealed text at all.
   */
  open(sealed: string): string;
}

/** Opens sealed texts: what the compiler needs to put a private key into a Secret resource. */
export type SecretOpener = (sealed: string) => string;

/** The parts of a sealed text, by form; undefined when `value` does not have the form of one. */
function partsOf(value: string):
  | { readonly form: "sy2"; readonly keyId: string; readonly data: string }
  | {
      readonly form: "sy1";
      readonly keyId: string;
      readonly iv: string;
      readonly tag: string;
      readonly data: string;
    }
  | undefined {
  const parts = value.split(".");
  if (parts[0] === CURRENT && parts.length === 3) {
    const [, keyId = "", data = ""] = parts;
    return { form: CURRENT, keyId, data };
  }
  if (parts[0] === LEGACY && parts.length === 5) {
    const [, keyId = "", iv = "", tag = "", data = ""] = parts;
    return { form: LEGACY, keyId, iv, tag, data };
  }
  return undefined;
}

/** True when `value` has the form of a sealed text, either form (it may still fail to open). */
export function isSealed(value: string): boolean {
  return partsOf(value) !== undefined;
}

/**
 * True when `sealed` is in the form seal() makes now: a stored text that is not is sealed again
 * when it is next written (the server's keyring, reseal).
 */
export function isCurrentSeal(sealed: string): boolean {
  return partsOf(sealed)?.form === CURRENT;
}

/** The id of the key `sealed` was sealed with, or undefined when it is not a sealed text. */
export function sealedKeyId(sealed: string): string | undefined {
  return partsOf(sealed)?.keyId;
}

export function secretKeyId(key: Uint8Array): string {
  return createHmac("sha256", key).update("switchyard secrets key id").digest("hex").slice(0, 12);
}

function derive(key: Uint8Array, info: string): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", key, new Uint8Array(0), info, 32));
}

function bytesOf(part: string, what: string): Buffer {
  if (!BASE64URL.test(part))
    throw new SecretBoxError(`a sealed secret is malformed: its ${what} is not base64url`);
  return Buffer.from(part, "base64url");
}

export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.length !== 32) {
    throw new SecretBoxError(`a secrets key is 32 bytes; this one has ${key.length}`);
  }
  const keyId = secretKeyId(key);
  const sivKey = derive(key, "switchyard secrets aes-256-gcm-siv");
  const aad = new TextEncoder().encode(`${CURRENT}.${keyId}`);
  const legacy = {
    key: derive(key, "switchyard secrets aes-256-gcm"),
    aad: Buffer.from(`${LEGACY}.${keyId}`),
  };
  return {
    keyId,
    seal(plaintext) {
      const sealed = gcmsiv(sivKey, NONCE, aad).encrypt(new TextEncoder().encode(plaintext));
      return [CURRENT, keyId, Buffer.from(sealed).toString("base64url")].join(".");
    },
    open(sealed) {
      const parts = partsOf(sealed);
      if (parts === undefined) {
        throw new SecretBoxError(
          `not a sealed secret (expected ${CURRENT}.<key id>.<data>, or the older ${LEGACY}.<key id>.<iv>.<tag>.<data>)`,
        );
      }
      if (parts.keyId !== keyId) {
        throw new SecretBoxError(
          `sealed with secrets key ${parts.keyId}, but the configured secrets key is ${keyId}: configure the key it was sealed with`,
        );
      }
      if (parts.form === CURRENT) {
        const data = bytesOf(parts.data, "data");
        if (data.length < TAG_BYTES)
          throw new SecretBoxError(
            `a sealed secret is truncated: its data is ${data.length} bytes, shorter than the ${TAG_BYTES}-byte tag`,
          );
        try {
          return new TextDecoder("utf-8", { fatal: true }).decode(
            gcmsiv(sivKey, NONCE, aad).decrypt(data),
          );
        } catch (error) {
          throw new SecretBoxError("a sealed secret does not decrypt: it was altered", {
            cause: error,
          });
        }
      }
      const iv = bytesOf(parts.iv, "iv");
      const tag = bytesOf(parts.tag, "tag");
      const data = bytesOf(parts.data, "data");
      if (iv.length !== 12 || tag.length !== TAG_BYTES)
        throw new SecretBoxError(
          `a sealed secret is truncated: its iv is ${iv.length} bytes (12 expected), its tag ${tag.length} (${TAG_BYTES} expected)`,
        );
      try {
        const decipher = createDecipheriv("aes-256-gcm", legacy.key, iv);
        decipher.setAAD(legacy.aad);
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(data), decipher.final()]).toString("utf8");
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
