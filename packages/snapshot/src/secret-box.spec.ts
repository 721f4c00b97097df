import { hkdfSync, randomBytes } from "node:crypto";
import { gcmsiv } from "@noble/ciphers/aes.js";
import { describe, expect, it } from "vitest";
import { legacySealed } from "./fixtures.js";
import {
  createSecretBox,
  isCurrentSeal,
  isSealed,
  SecretBoxError,
  sealedKeyId,
} from "./secret-box.js";

const hex = (text: string) => new Uint8Array(Buffer.from(text, "hex"));
/** A fixed secrets key, so that texts sealed by the code before sy2 can be kept here. */
const KEY = new Uint8Array(32).fill(7);
const box = createSecretBox(KEY);

/** Sealed with KEY by secret-box.ts as it was before AES-GCM-SIV (the sy1 form). */
const SEALED_BEFORE = [
  [
    "sy1.c425d7ea2c61.PgWknKYeR0hMKVi0._qry2XsWAjPALDN_2QYX9g.dguJ0rkZokiFSxr5WMYIsbvy",
    "an old private key",
  ],
  ["sy1.c425d7ea2c61.kGqe_fVYVWaYRN5U.GHTJW9kZj_4qGbXGEM9NVA.", ""],
] as const;

describe("the sealed texts of before (sy1: AES-256-GCM with an HMAC of the plaintext as IV)", () => {
  it.each(SEALED_BEFORE)("%s still opens, to %j", (sealed, plaintext) => {
    expect(isSealed(sealed)).toBe(true);
    expect(isCurrentSeal(sealed)).toBe(false);
    expect(sealedKeyId(sealed)).toBe(box.keyId);
    expect(box.open(sealed)).toBe(plaintext);
  });

  it("the test fixture seals exactly as the old code did", () => {
    for (const [sealed, plaintext] of SEALED_BEFORE)
      expect(legacySealed(KEY, plaintext)).toBe(sealed);
  });

  it("an altered or truncated one is refused, saying so", () => {
    const [sealed] = SEALED_BEFORE[0];
    const parts = sealed.split(".");
    const flipped = [...parts.slice(0, 4), `${parts[4]?.slice(0, -1)}A`].join(".");
    expect(() => box.open(flipped)).toThrow("a sealed secret does not decrypt: it was altered");
    const shortTag = [...parts.slice(0, 3), "AAAA", parts[4]].join(".");
    expect(() => box.open(shortTag)).toThrow("a sealed secret is truncated: its iv is 12 bytes");
    expect(() => box.open(parts.slice(0, 4).join("."))).toThrow("not a sealed secret");
  });
});

describe("sealing now (sy2: AEAD_AES_256_GCM_SIV, RFC 8452, from @noble/ciphers)", () => {
  it("the AES-GCM-SIV used gives RFC 8452's AES-256 test vectors (appendix C.2)", () => {
    const key = hex(`01${"00".repeat(31)}`);
    const nonce = hex(`03${"00".repeat(11)}`);
    for (const [plaintext, aad, result] of [
      ["", "", "07f5f4169bbf55a8400cd47ea6fd400f"],
      ["0100000000000000", "", "c2ef328e5c71c83b843122130f7364b761e0b97427e3df28"],
      ["0200000000000000", "01", "1de22967237a813291213f267e3b452f02d01ae33e4ec854"],
    ] as const) {
      const cipher = gcmsiv(key, nonce, hex(aad));
      expect(Buffer.from(cipher.encrypt(hex(plaintext))).toString("hex")).toBe(result);
      expect(Buffer.from(gcmsiv(key, nonce, hex(aad)).decrypt(hex(result))).toString("hex")).toBe(
        plaintext,
      );
    }
  });

  it("a sealed text is sy2.<key id>.<AES-256-GCM-SIV of the plaintext>, under the key HKDF derives from the secrets key, nonce zero, the text's prefix as associated data", () => {
    const sealed = box.seal("a private key");
    const sivKey = new Uint8Array(
      hkdfSync("sha256", KEY, new Uint8Array(0), "switchyard secrets aes-256-gcm-siv", 32),
    );
    const expected = gcmsiv(sivKey, new Uint8Array(12), Buffer.from(`sy2.${box.keyId}`)).encrypt(
      Buffer.from("a private key"),
    );

    expect(sealed).toBe(`sy2.${box.keyId}.${Buffer.from(expected).toString("base64url")}`);
    expect(isSealed(sealed)).toBe(true);
    expect(isCurrentSeal(sealed)).toBe(true);
    expect(box.open(sealed)).toBe("a private key");
  });

  it("is deterministic: one plaintext seals to one text, another to another, under each key", () => {
    const other = createSecretBox(new Uint8Array(randomBytes(32)));

    expect(box.seal("a")).toBe(box.seal("a"));
    expect(box.seal("a")).not.toBe(box.seal("b"));
    expect(other.seal("a")).not.toBe(box.seal("a"));
    expect(box.open(box.seal(""))).toBe("");
  });

  it("refuses a tampered text: a flipped bit, another key's text relabelled", () => {
    const sealed = box.seal("a private key");
    const [, keyId, data = ""] = sealed.split(".");
    const bytes = Buffer.from(data, "base64url");
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    const other = createSecretBox(new Uint8Array(randomBytes(32)));

    for (const tampered of [
      `sy2.${keyId}.${bytes.toString("base64url")}`,
      // Sealed under another key, relabelled as this key's: the associated data no longer fits.
      `sy2.${keyId}.${other.seal("a private key").split(".")[2]}`,
    ])
      expect(() => box.open(tampered)).toThrow(
        new SecretBoxError("a sealed secret does not decrypt: it was altered"),
      );
  });

  it("refuses a truncated or malformed text with a clear error, never garbage", () => {
    const sealed = box.seal("a private key");
    const data = sealed.split(".")[2] ?? "";

    expect(() => box.open(sealed.slice(0, -2))).toThrow("it was altered");
    expect(() => box.open(`sy2.${box.keyId}.${data.slice(0, 20)}`)).toThrow(
      "a sealed secret is truncated: its data is 15 bytes, shorter than the 16-byte tag",
    );
    expect(() => box.open(`sy2.${box.keyId}.`)).toThrow("is truncated: its data is 0 bytes");
    expect(() => box.open(`sy2.${box.keyId}.${data.slice(0, -1)}=`)).toThrow(
      "its data is not base64url",
    );
    expect(() => box.open(`sy2.${box.keyId}`)).toThrow(
      "not a sealed secret (expected sy2.<key id>.<data>",
    );
    expect(() => box.open("a private key")).toThrow("not a sealed secret");
  });

  it("refuses to open another key's text, naming both key ids", () => {
    const other = createSecretBox(new Uint8Array(randomBytes(32)));

    expect(() => box.open(other.seal("x"))).toThrow(
      `sealed with secrets key ${other.keyId}, but the configured secrets key is ${box.keyId}`,
    );
    expect(() => box.open(legacySealed(new Uint8Array(32), "x"))).toThrow(
      "but the configured secrets key is",
    );
  });
});
