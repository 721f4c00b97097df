/**
 * Reading the PEM a secret holds: certificates (shown back, with what an operator checks: subject,
 * SANs, validity, fingerprint) and private keys (never shown back; checked against the
 * certificate they go with). node:crypto parses both, as OpenSSL would for Envoy.
 */

import {
  createHash,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  X509Certificate,
} from "node:crypto";
import { SecretSchema } from "@switchyard/proto/envoy/extensions/transport_sockets/tls/v3/secret_pb";
import { envoyFromBinary } from "./envoy/envoy-proto-json.js";

/** What is shown of a certificate. Dates are ISO 8601 (UTC). */
export interface CertificateInfo {
  readonly subject: string;
  readonly issuer: string;
  /** "DNS:a.example", "IP Address:10.0.0.1", "URI:spiffe://..." as OpenSSL prints them. */
  readonly subjectAltNames: readonly string[];
  readonly notBefore: string;
  readonly notAfter: string;
  /** SHA-256 of the DER, colon-separated hex, as `openssl x509 -fingerprint -sha256` prints it. */
  readonly fingerprintSha256: string;
  readonly isCa: boolean;
}

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const PRIVATE_KEY_MARKER = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;

/** True when `text` holds a PEM private key (which must never sit in a field shown back). */
export function holdsPrivateKey(text: string): boolean {
  return PRIVATE_KEY_MARKER.test(text);
}

function info(certificate: X509Certificate): CertificateInfo {
  return {
    subject: certificate.subject.replaceAll("\n", ", "),
    issuer: certificate.issuer.replaceAll("\n", ", "),
    subjectAltNames: certificate.subjectAltName
      ? certificate.subjectAltName.split(", ").filter((s) => s !== "")
      : [],
    notBefore: new Date(certificate.validFrom).toISOString(),
    notAfter: new Date(certificate.validTo).toISOString(),
    fingerprintSha256: certificate.fingerprint256,
    isCa: certificate.ca,
  };
}

export type ParsedCertificates =
  | { readonly t: "ok"; readonly certificates: readonly CertificateInfo[] }
  | { readonly t: "problem"; readonly problem: string };

function parseX509(pem: string): X509Certificate[] | string {
  if (holdsPrivateKey(pem)) {
    return "holds a private key: certificates only here (a private key goes in its own field, which is never shown back)";
  }
  const blocks = pem.match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) return "holds no PEM certificate (-----BEGIN CERTIFICATE-----)";
  const outside = pem.replace(CERTIFICATE_BLOCK, "").trim();
  if (outside !== "") return "holds text outside its PEM certificate blocks";
  const parsed: X509Certificate[] = [];
  for (const [index, block] of blocks.entries()) {
    try {
      parsed.push(new X509Certificate(block));
    } catch (error) {
      return `certificate ${index + 1} does not parse: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return parsed;
}

/** The certificates of a PEM bundle, in order, or why it is not one. */
export function parseCertificates(pem: string): ParsedCertificates {
  const parsed = parseX509(pem);
  return typeof parsed === "string"
    ? { t: "problem", problem: parsed }
    : { t: "ok", certificates: parsed.map(info) };
}

/** SHA-256 of a key's public half (SPKI DER), hex: shows which key is set without showing it. */
export function publicKeyFingerprint(key: KeyObject): string {
  const publicKey = key.type === "public" ? key : createPublicKey(key);
  const spki = publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(spki).digest("hex");
}

export type CheckedPrivateKey =
  | {
      readonly t: "ok";
      /** The key as unencrypted PKCS#8 PEM: what is sealed and what Envoy receives. */
      readonly pkcs8: string;
      readonly publicKeyFingerprint: string;
    }
  | {
      readonly t: "problem";
      readonly field: "privateKey" | "certificateChain";
      readonly problem: string;
    };

/**
 * Checks a private key against the leaf (first) certificate of `certificateChain`: it parses (with
 * `passphrase` when encrypted) and its public key is the certificate's. Envoy would refuse the
 * Secret otherwise, and refuse it only on the node, at the worst time.
 */
export function checkPrivateKey(
  privateKeyPem: string,
  certificateChain: string,
  passphrase?: string,
): CheckedPrivateKey {
  let key: KeyObject;
  try {
    key = createPrivateKey(
      passphrase
        ? { key: privateKeyPem, format: "pem", passphrase }
        : { key: privateKeyPem, format: "pem" },
    );
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    const encrypted = /ENCRYPTED|passphrase|bad decrypt/i.test(`${privateKeyPem} ${text}`);
    return {
      t: "problem",
      field: "privateKey",
      problem: encrypted
        ? passphrase
          ? "is encrypted, and the passphrase given does not decrypt it"
          : "is encrypted: give its passphrase"
        : "is not a PEM private key",
    };
  }
  const certificates = parseX509(certificateChain);
  if (typeof certificates === "string") {
    return { t: "problem", field: "certificateChain", problem: certificates };
  }
  const leaf = certificates[0] as X509Certificate;
  if (!leaf.checkPrivateKey(key)) {
    return {
      t: "problem",
      field: "privateKey",
      problem: `does not match the certificate (${leaf.subject.replaceAll("\n", ", ")}): it is the private key of another certificate`,
    };
  }
  return {
    t: "ok",
    pkcs8: key.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyFingerprint: publicKeyFingerprint(key),
  };
}

/** The leaf certificate's public key fingerprint (to compare with a stored key's), or undefined. */
export function certificatePublicKeyFingerprint(certificateChain: string): string | undefined {
  const certificates = parseX509(certificateChain);
  if (typeof certificates === "string") return undefined;
  return publicKeyFingerprint((certificates[0] as X509Certificate).publicKey);
}

/**
 * When the certificates an encoded Secret resource carries stop being valid: the earliest
 * `notAfter` of its chain (a chain fails when any link expires) or CA bundle, as ms since the
 * epoch; undefined when it carries none that parse. For expiry alerts on what proxies are served.
 */
export function secretResourceExpiry(body: Uint8Array): number | undefined {
  const secret = envoyFromBinary(SecretSchema, body);
  const source =
    secret.type.case === "tlsCertificate"
      ? secret.type.value.certificateChain
      : secret.type.case === "validationContext"
        ? secret.type.value.trustedCa
        : undefined;
  if (source?.specifier.case !== "inlineString") return undefined;
  const parsed = parseCertificates(source.specifier.value);
  if (parsed.t !== "ok" || parsed.certificates.length === 0) return undefined;
  return Math.min(...parsed.certificates.map((c) => Date.parse(c.notAfter)));
}
