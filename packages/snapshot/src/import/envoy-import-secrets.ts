/**
 * Normalization 11 (envoy-import.ts): a TLS certificate written inline in a listener's or a
 * cluster's TLS context (`common_tls_context.tls_certificates` with an inline `private_key`, as
 * Envoy's front-proxy example does) is moved into an SDS secret, and the context names the secret
 * instead (`tls_certificate_sds_secret_configs: [{ name, sds_config: { ads: {} } }]`).
 *
 * Why: a private key stored in a listener would be shown back by every read of it (export, get,
 * a diff, the audit log). A Secret's key is sealed at rest with the server's secrets key and never
 * shown (model.ts SecretSpec), and Envoy receives the same certificate over SDS, warming the
 * listener or cluster until it arrives (the "Secret discovery service" docs).
 *
 * Normalization 14: a certificate whose private key Envoy's config dump redacted ("[redacted]")
 * has no key to seal. It is replaced by the same SDS reference, and a warning names the secret
 * to upload; the redacted text is never stored.
 *
 * Pure: this stage only rewrites the JSON and collects the certificates with their keys in the
 * clear; `sealCertificates` checks each key against its chain and seals it with the function the
 * server gives, so the clear key lives only in memory, for the length of one import.
 */
import { registry } from "@switchyard/proto";
import { REDACTED } from "../envoy/envoy-data-sources.js";
import { ADS_CONFIG_SOURCE as ADS } from "../envoy/envoy-json.js";
import { mapMessages } from "../envoy/envoy-proto-json.js";
import type { JsonObject, JsonValue, SecretSpec } from "../model.js";
import { checkPrivateKey } from "../secret-pem.js";
import type { ImportSeverity } from "./envoy-import-issue.js";
import { asArray, asObject, isObject, type Segment } from "./envoy-import-json.js";

const COMMON_TLS_CONTEXT = "envoy.extensions.transport_sockets.tls.v3.CommonTlsContext";

/** A certificate moved out of a resource, its key still in the clear (see the top of this file). */
export interface InlineCertificate {
  /** The SDS secret it becomes. */
  readonly name: string;
  /** Where it was, in the resource: for notes and errors. */
  readonly at: readonly Segment[];
  readonly certificateChain: string;
  readonly privateKey: string;
  readonly passphrase: string | undefined;
}

export interface MovedCertificates {
  readonly json: JsonObject;
  readonly certificates: readonly InlineCertificate[];
  readonly notes: readonly {
    readonly at: readonly Segment[];
    readonly severity: ImportSeverity;
    readonly message: string;
  }[];
}

/** The PEM an inline DataSource holds; undefined for a file, an environment variable or none. */
function inlineText(source: JsonValue | undefined): string | undefined {
  if (!isObject(source)) return undefined;
  if (typeof source.inlineString === "string") return source.inlineString;
  if (typeof source.inlineBytes === "string") {
    return Buffer.from(source.inlineBytes, "base64").toString("utf8");
  }
  return undefined;
}

const REDACTED_BYTES = Buffer.from(REDACTED).toString("base64");

/**
 * Whether a DataSource (canonical JSON) holds what Envoy's config dump shows in place of a
 * private key: "[redacted]" as its text, its bytes, or its file or variable name.
 */
function isRedacted(source: JsonValue | undefined): boolean {
  return (
    isObject(source) &&
    Object.values(source).some((value) => value === REDACTED || value === REDACTED_BYTES)
  );
}

/** Fields of a TlsCertificate a Secret holds; any other makes the certificate stay inline. */
const MOVABLE = new Set(["certificateChain", "privateKey", "password"]);

/**
 * `json` (a Listener or Cluster, normalized) with every inline certificate whose private key is
 * inline moved to an SDS secret named after the resource (`<name>-tls`, then `-tls-2`, ... in
 * document order), each name not in `taken` (which grows).
 */
export function moveInlineCertificates(
  typeName: string,
  resourceName: string,
  json: JsonObject,
  taken: Set<string>,
): MovedCertificates {
  const desc = registry.getMessage(typeName);
  const certificates: InlineCertificate[] = [];
  const notes: MovedCertificates["notes"][number][] = [];
  if (!desc) return { json, certificates, notes };
  const nextName = () => {
    let name = `${resourceName}-tls`;
    for (let i = 2; taken.has(name); i++) name = `${resourceName}-tls-${i}`;
    taken.add(name);
    return name;
  };
  const moved = mapMessages(desc, json, (message, context, at) => {
    if (message.typeName !== COMMON_TLS_CONTEXT) return context;
    const kept: JsonValue[] = [];
    const sds: JsonValue[] = [];
    asArray(context.tlsCertificates).forEach((entry, index) => {
      const certificate = asObject(entry);
      const here = [...at, "tlsCertificates", index];
      if (isRedacted(certificate.privateKey)) {
        // Normalization 14: a config dump's certificate, its key redacted. The key is not there
        // to seal: the context names the SDS secret instead, for the user to upload.
        const name = nextName();
        sds.push({ name, sdsConfig: ADS });
        notes.push({
          at: here,
          severity: "warning",
          message: `the private key is redacted (as Envoy's config dump shows it): the certificate is named over SDS as secret "${name}" instead, which is not imported. Upload it: switchyard secret create tls ${name} --cert FILE --key FILE`,
        });
        return;
      }
      const privateKey = inlineText(certificate.privateKey);
      if (privateKey === undefined) {
        kept.push(entry);
        return;
      }
      const certificateChain = inlineText(certificate.certificateChain);
      const other = Object.keys(certificate).find((key) => !MOVABLE.has(key));
      if (certificateChain === undefined || other !== undefined) {
        notes.push({
          at: other === undefined ? [...here, "certificateChain"] : [...here, other],
          severity: "error",
          message:
            other === undefined
              ? "an inline private key goes into an SDS secret, sealed, with its certificate chain: give the chain inline too (or both as files)"
              : `an inline private key goes into an SDS secret, which holds a certificate chain and its key: ${other} cannot move with it (give the key as a file, or drop ${other})`,
        });
        kept.push(entry);
        return;
      }
      const name = nextName();
      certificates.push({
        name,
        at: here,
        certificateChain,
        privateKey,
        passphrase: inlineText(certificate.password),
      });
      sds.push({ name, sdsConfig: ADS });
      notes.push({
        at: here,
        severity: "info",
        message: `the inline certificate and private key are moved to SDS secret "${name}": its key is sealed at rest and never shown back, and the proxy receives the same certificate over SDS`,
      });
    });
    if (sds.length === 0) return context;
    const { tlsCertificates: _, ...rest } = context;
    return {
      ...rest,
      ...(kept.length > 0 ? { tlsCertificates: kept } : {}),
      tlsCertificateSdsSecretConfigs: [...asArray(context.tlsCertificateSdsSecretConfigs), ...sds],
    };
  });
  return { json: moved as JsonObject, certificates, notes };
}

/** A problem with one certificate, at its path in its resource. */
export interface CertificateProblem {
  readonly certificate: InlineCertificate;
  readonly at: readonly Segment[];
  readonly message: string;
}

/**
 * The secrets the moved certificates become, each key checked against its chain (a key that does
 * not parse, is encrypted without its password, or is not the leaf certificate's is a problem at
 * its field) and sealed with `seal`. Without `seal` (no secrets key), every one is a problem.
 */
export function sealCertificates(
  certificates: readonly InlineCertificate[],
  seal: ((pkcs8Pem: string) => string) | undefined,
): { readonly secrets: SecretSpec[]; readonly problems: CertificateProblem[] } {
  const secrets: SecretSpec[] = [];
  const problems: CertificateProblem[] = [];
  for (const certificate of certificates) {
    if (!seal) {
      problems.push({
        certificate,
        at: [...certificate.at, "privateKey"],
        message:
          "an inline private key is moved to an SDS secret sealed with the server's secrets key, and none was given here: import it through the server (switchyard apply, the console's Import page)",
      });
      continue;
    }
    const checked = checkPrivateKey(
      certificate.privateKey,
      certificate.certificateChain,
      certificate.passphrase,
    );
    if (checked.t === "problem") {
      problems.push({
        certificate,
        at: [...certificate.at, checked.field],
        message: `the ${checked.field === "privateKey" ? "private key" : "certificate chain"} ${checked.problem}`,
      });
      continue;
    }
    secrets.push({
      name: certificate.name,
      type: "TLS_CERTIFICATE",
      certificateChain: certificate.certificateChain,
      privateKey: seal(checked.pkcs8),
      trustedCa: "",
      matchSubjectAltNames: [],
      values: [],
    });
  }
  return { secrets, problems };
}
