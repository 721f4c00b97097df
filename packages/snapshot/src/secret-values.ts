/**
 * The values of generic secrets and session ticket keys (model.ts SecretSpec.values): how they
 * are sealed, what is shown of them instead (size and SHA-256), and the rules they must follow.
 *
 * A value is bytes (a generic secret may be a binary file; a ticket key is 80 random bytes),
 * and a SecretBox seals text, so a value is sealed as its base64: one representation throughout,
 * which is also what proto3 JSON writes for the `inline_bytes` Envoy receives (envoy-json.ts
 * secretJson), and which a change of secrets key seals again unchanged, as it does private keys.
 */
import { createHash } from "node:crypto";
import type { SecretType } from "./model.js";
import type { SecretOpener } from "./secret-box.js";

/**
 * Envoy's size of a session ticket key: a 16-byte key name, a 32-byte HMAC key and a 32-byte AES
 * key (ServerContextConfigImpl::getSessionTicketKey in Envoy's
 * source/common/tls/server_context_config_impl.cc refuses any other length: "Incorrect TLS session
 * ticket key length. Length N, expected length 80."; TlsSessionTicketKeys.keys in
 * envoy/extensions/transport_sockets/tls/v3/common.proto: "Each key must contain exactly 80 bytes
 * of cryptographically-secure random data. For example, the output of `openssl rand 80`").
 */
export const SESSION_TICKET_KEY_BYTES = 80;

/**
 * The largest generic secret taken: a token, a password, an HMAC key or a credentials file is a
 * few hundred bytes; anything near this is a file chosen by mistake. Every proxy that uses it
 * holds it in memory, and it travels in every SDS response that carries it.
 */
export const MAX_GENERIC_SECRET_BYTES = 64 * 1024;

/** The value kinds: the secret types whose material is `values`. */
export type ValueSecretType = Extract<SecretType, "GENERIC_SECRET" | "SESSION_TICKET_KEYS">;

export function holdsValues(type: SecretType): type is ValueSecretType {
  return type === "GENERIC_SECRET" || type === "SESSION_TICKET_KEYS";
}

/** `bytes` sealed with `seal` (a SecretBox's or a keyring's): the form SecretSpec.values holds. */
export function sealValue(seal: (plaintext: string) => string, bytes: Uint8Array): string {
  return seal(Buffer.from(bytes).toString("base64"));
}

/** The bytes of a sealed value; throws as `open` does (another key, altered, no key). */
export function openValue(open: SecretOpener, sealed: string): Uint8Array {
  return new Uint8Array(Buffer.from(open(sealed), "base64"));
}

/** What is shown of a value instead of it: its size and its SHA-256 (hex). */
export interface ValueInfo {
  readonly sizeBytes: number;
  readonly sha256: string;
}

export function valueInfo(bytes: Uint8Array): ValueInfo {
  return { sizeBytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/** One value that breaks a rule of its secret type: which one (its index) and why. */
export interface ValueProblem {
  readonly index: number;
  readonly problem: string;
}

/**
 * Why the values of a `type` secret cannot be served, each problem at its value, or none. What
 * Envoy would refuse on the proxy (a ticket key of another length, no key at all) is refused here,
 * before a publish; so is an empty or oversized generic secret.
 */
export function valueProblems(
  type: ValueSecretType,
  values: readonly Uint8Array[],
): ValueProblem[] {
  const problems: ValueProblem[] = [];
  if (type === "GENERIC_SECRET") {
    if (values.length !== 1) {
      problems.push({
        index: 0,
        problem: `a generic secret holds exactly one value, not ${values.length}`,
      });
      return problems;
    }
    const size = (values[0] as Uint8Array).length;
    if (size === 0) problems.push({ index: 0, problem: "is empty" });
    else if (size > MAX_GENERIC_SECRET_BYTES) {
      problems.push({
        index: 0,
        problem: `is ${size} bytes, above the ${MAX_GENERIC_SECRET_BYTES / 1024} KiB a generic secret may hold`,
      });
    }
    return problems;
  }
  // TlsSessionTicketKeys.keys: `(validate.rules).repeated = {min_items: 1}`.
  if (values.length === 0) {
    problems.push({ index: 0, problem: "holds no key: give at least one (Envoy requires one)" });
  }
  values.forEach((key, index) => {
    if (key.length === SESSION_TICKET_KEY_BYTES) return;
    problems.push({
      index,
      problem: `is ${key.length} bytes: Envoy takes a session ticket key of exactly ${SESSION_TICKET_KEY_BYTES} bytes (make one with \`openssl rand 80\`)`,
    });
  });
  return problems;
}
