import { createHash, randomBytes } from "node:crypto";

/** 32 random bytes as base64url (43 characters): a session cookie's or token's secret. */
export function randomSecret(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Hex sha256: how secrets are stored and looked up. A plain hash (no salt, no stretching) is
 * enough for 256-bit random secrets, and lets a lookup be one indexed equality.
 */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
