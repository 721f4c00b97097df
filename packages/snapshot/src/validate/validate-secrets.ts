/**
 * Secrets (SDS): each holds what its type needs, as PEM that parses, and every secret a cluster or
 * filter chain names exists and has the type its TLS context takes.
 *
 * A filter chain presents a TLS certificate (DownstreamTlsContext tls_certificate_sds_secret_configs);
 * a cluster checks its upstreams against a validation context (UpstreamTlsContext
 * validation_context_sds_secret_config), envoy-json.ts. Envoy would accept the other type on the
 * wire and then fail the handshake, so a mismatch is refused here.
 *
 * Whether a private key matches its certificate needs the key in the clear: the API checks it when
 * the key is written (secret-pem.ts checkPrivateKey), before sealing; here the key is sealed.
 */
import type { SecretSpec } from "../model.js";
import { isSealed } from "../secret-box.js";
import { parseCertificates } from "../secret-pem.js";
import { didYouMean, type ValidationContext } from "./validate-context.js";
import { clusterPath, filterChainPath, secretPath } from "./validate-path.js";
import { NameSuggester } from "./validate-syntax.js";

const quote = JSON.stringify;

const TYPE_WORDS = {
  TLS_CERTIFICATE: "a TLS certificate",
  VALIDATION_CONTEXT: "a validation context",
} as const;

/** The structure of each secret: its PEM, and no field of the other type. */
export function checkSecrets(ctx: ValidationContext): void {
  const now = ctx.now;
  for (const secret of ctx.spec.secrets) {
    const path = secretPath(secret.name);
    const pem = (field: "certificateChain" | "trustedCa", what: string) => {
      const parsed = parseCertificates(secret[field]);
      if (parsed.t === "problem") {
        ctx.issues.add(
          "invalid-certificate",
          `${path}.${field}`,
          `the ${what} of secret ${quote(secret.name)} ${parsed.problem}`,
          "paste PEM certificates (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)",
        );
        return;
      }
      parsed.certificates.forEach((certificate, index) => {
        if (Date.parse(certificate.notAfter) > now) return;
        ctx.issues.add(
          "expired-certificate",
          `${path}.${field}`,
          `certificate ${index} (${certificate.subject}) of secret ${quote(secret.name)} expired at ${certificate.notAfter}`,
          "rotate the secret: upload a current certificate under the same name",
        );
      });
    };
    const notFor = (field: keyof SecretSpec) =>
      ctx.issues.add(
        "secret-field-for-other-type",
        `${path}.${field}`,
        `secret ${quote(secret.name)} is ${TYPE_WORDS[secret.type]}, which has no ${field}`,
        "clear the field, or change the secret's type",
      );
    if (secret.type === "TLS_CERTIFICATE") {
      pem("certificateChain", "certificate chain");
      if (secret.privateKey === null || !isSealed(secret.privateKey)) {
        ctx.issues.add(
          "missing-private-key",
          `${path}.privateKey`,
          `TLS certificate secret ${quote(secret.name)} has no private key`,
          "upload the certificate's private key with it",
        );
      }
      if (secret.trustedCa !== "") notFor("trustedCa");
      if (secret.matchSubjectAltNames.length > 0) notFor("matchSubjectAltNames");
    } else {
      pem("trustedCa", "trusted CA bundle");
      if (secret.certificateChain !== "") notFor("certificateChain");
      if (secret.privateKey !== null) notFor("privateKey");
      secret.matchSubjectAltNames.forEach((san, index) => {
        if (san !== "" && !/[\s\p{Cc}]/u.test(san)) return;
        ctx.issues.add(
          "invalid-subject-alt-name",
          `${path}.matchSubjectAltNames[${index}]`,
          `SAN ${quote(san)} to match in secret ${quote(secret.name)} is empty or holds whitespace`,
          "write a DNS name such as backend.internal",
        );
      });
    }
  }
}

/** Every secret a cluster or filter chain names exists, with the type its TLS context takes. */
export function checkSecretReferences(ctx: ValidationContext): void {
  const secrets = new Map<string, SecretSpec>();
  for (const secret of ctx.spec.secrets)
    if (!secrets.has(secret.name)) secrets.set(secret.name, secret);
  let suggester: NameSuggester | undefined;
  const suggest = (name: string) => {
    suggester ??= new NameSuggester(secrets.keys());
    return suggester.suggest(name);
  };
  const check = (
    name: string,
    path: string,
    user: string,
    wanted: SecretSpec["type"],
    use: string,
  ) => {
    const secret = secrets.get(name);
    if (!secret) {
      ctx.issues.add(
        "dangling-secret-reference",
        path,
        `${user} ${use} secret ${quote(name)}, which does not exist${didYouMean(suggest(name))}`,
        `create ${TYPE_WORDS[wanted]} secret named ${quote(name)}, or name an existing one`,
      );
    } else if (secret.type !== wanted) {
      ctx.issues.add(
        "secret-type-mismatch",
        path,
        `${user} ${use} secret ${quote(name)}, which is ${TYPE_WORDS[secret.type]}, not ${TYPE_WORDS[wanted]}`,
        `name ${TYPE_WORDS[wanted]} secret`,
      );
    }
  };
  for (const cluster of ctx.spec.clusters) {
    if (cluster.tlsSecretName === null) continue;
    check(
      cluster.tlsSecretName,
      `${clusterPath(cluster.name)}.tlsSecretName`,
      `cluster ${quote(cluster.name)}`,
      "VALIDATION_CONTEXT",
      "checks its upstreams' certificates with",
    );
  }
  for (const listener of ctx.spec.listeners) {
    listener.filterChains.forEach((chain, index) => {
      if (chain.tlsSecretName === null) return;
      check(
        chain.tlsSecretName,
        `${filterChainPath(listener.name, index)}.tlsSecretName`,
        `filter chain ${index} of listener ${quote(listener.name)}`,
        "TLS_CERTIFICATE",
        "presents the certificate of",
      );
    });
  }
}
