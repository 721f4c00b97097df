/**
 * Secrets (SDS): each holds what its type needs, and nothing of another type; every secret a
 * cluster or filter chain names exists and has the type its TLS context takes.
 *
 * - A TLS certificate and a validation context: PEM that parses. Whether a private key matches its
 *   certificate needs the key in the clear: the API checks it when the key is written
 *   (secret-pem.ts checkPrivateKey), before sealing; here the key is sealed.
 * - A generic secret: exactly one sealed value, not empty, at most 64 KiB; session ticket keys: at
 *   least one sealed key, each exactly 80 bytes as Envoy requires (secret-values.ts). Sizes need
 *   the values in the clear: checked when the caller gives an opener (ValidateOptions.openSecret),
 *   as the API does when a value is written and the server does at publish.
 *
 * A filter chain presents a TLS certificate (DownstreamTlsContext tls_certificate_sds_secret_configs);
 * a cluster checks its upstreams against a validation context (UpstreamTlsContext
 * validation_context_sds_secret_config), envoy-json.ts. Envoy would accept another type on the
 * wire and then fail the handshake, so a mismatch is refused here; the kinds other fields take
 * (ticket keys, OAuth2 secrets, ...) are in envoy-secret-fields.ts, checked in validate-envoy.ts.
 */

import { quotedInput } from "../bounded-text.js";
import type { CompiledConfig } from "../compile.js";
import { secretTypeAt } from "../envoy/envoy-secret-fields.js";
import type { SecretSpec, SecretType } from "../model.js";
import { nth } from "../nth.js";
import { isSealed } from "../secret-box.js";
import { parseCertificates } from "../secret-pem.js";
import { holdsValues, openValue, type ValueSecretType, valueProblems } from "../secret-values.js";
import { didYouMean, type ValidationContext } from "./validate-context.js";
import { clusterPath, filterChainPath, listenerPath, secretPath } from "./validate-path.js";
import { NameSuggester } from "./validate-syntax.js";

/** A name or value as a message quotes it: cut when long (bounded-text.ts quotedInput). */
const quote = quotedInput;

/** How messages name each type: "secret x is a generic secret". */
export const SECRET_TYPE_WORDS: Readonly<Record<SecretType, string>> = {
  TLS_CERTIFICATE: "a TLS certificate",
  VALIDATION_CONTEXT: "a validation context",
  GENERIC_SECRET: "a generic secret",
  SESSION_TICKET_KEYS: "a set of session ticket keys",
};
const TYPE_WORDS = SECRET_TYPE_WORDS;

type MaterialField =
  | "certificateChain"
  | "privateKey"
  | "trustedCa"
  | "matchSubjectAltNames"
  | "values";

/** Whether each material field is set; a set field the type does not hold is an error. */
const IS_SET: Readonly<Record<MaterialField, (secret: SecretSpec) => boolean>> = {
  certificateChain: (s) => s.certificateChain !== "",
  privateKey: (s) => s.privateKey !== null,
  trustedCa: (s) => s.trustedCa !== "",
  matchSubjectAltNames: (s) => s.matchSubjectAltNames.length > 0,
  values: (s) => s.values.length > 0,
};

/** The material fields each type holds. */
const FIELDS_OF: Readonly<Record<SecretType, readonly MaterialField[]>> = {
  TLS_CERTIFICATE: ["certificateChain", "privateKey"],
  VALIDATION_CONTEXT: ["trustedCa", "matchSubjectAltNames"],
  GENERIC_SECRET: ["values"],
  SESSION_TICKET_KEYS: ["values"],
};

/** The structure of each secret: what its type needs, and no field of another type. */
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
          `certificate ${nth(index)} (${certificate.subject}) of secret ${quote(secret.name)} expired at ${certificate.notAfter}`,
          "rotate the secret: upload a current certificate under the same name",
        );
      });
    };
    const held = FIELDS_OF[secret.type] ?? [];
    for (const field of Object.keys(IS_SET) as MaterialField[]) {
      if (held.includes(field) || !IS_SET[field](secret)) continue;
      ctx.issues.add(
        "secret-field-for-other-type",
        `${path}.${field}`,
        `secret ${quote(secret.name)} is ${TYPE_WORDS[secret.type]}, which has no ${field}`,
        "clear the field, or change the secret's type",
      );
    }
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
    } else if (secret.type === "VALIDATION_CONTEXT") {
      pem("trustedCa", "trusted CA bundle");
      secret.matchSubjectAltNames.forEach((san, index) => {
        if (san !== "" && !/[\s\p{Cc}]/u.test(san)) return;
        ctx.issues.add(
          "invalid-subject-alt-name",
          `${path}.matchSubjectAltNames[${index}]`,
          `SAN ${quote(san)} to match in secret ${quote(secret.name)} is empty or holds whitespace`,
          "write a DNS name such as backend.internal",
        );
      });
    } else if (holdsValues(secret.type)) {
      checkValues(ctx, secret, secret.type, path);
    }
  }
}

const UPLOAD_HINT: Readonly<Record<ValueSecretType, string>> = {
  GENERIC_SECRET: "upload its value (switchyard secret create generic NAME --from-file FILE)",
  SESSION_TICKET_KEYS:
    "upload the keys, 80 random bytes each (switchyard secret create session-ticket-keys NAME --from-file FILE...)",
};

/**
 * A generic secret's one value, or the ticket keys: present and sealed; with an opener, of the
 * sizes Envoy takes. Messages say sizes, never a value.
 */
function checkValues(
  ctx: ValidationContext,
  secret: SecretSpec,
  type: ValueSecretType,
  path: string,
): void {
  const what = TYPE_WORDS[type];
  if (secret.values.length === 0) {
    ctx.issues.add(
      "missing-secret-value",
      `${path}.values`,
      `secret ${quote(secret.name)} is ${what} and holds no ${type === "GENERIC_SECRET" ? "value" : "key"}`,
      UPLOAD_HINT[type],
    );
    return;
  }
  if (type === "GENERIC_SECRET" && secret.values.length > 1) {
    ctx.issues.add(
      "invalid-secret-value",
      `${path}.values[1]`,
      `generic secret ${quote(secret.name)} holds ${secret.values.length} values: it holds exactly one`,
      "keep one value (make a secret of its own for each other one)",
    );
    return;
  }
  const unsealed = secret.values.findIndex((value) => !isSealed(value));
  if (unsealed >= 0) {
    ctx.issues.add(
      "missing-secret-value",
      `${path}.values[${unsealed}]`,
      `value ${unsealed} of secret ${quote(secret.name)} is not sealed with the secrets key`,
      UPLOAD_HINT[type],
    );
    return;
  }
  const open = ctx.openSecret;
  if (!open) return;
  let opened: Uint8Array[];
  try {
    opened = secret.values.map((value) => openValue(open, value));
  } catch {
    return; // The compiler reports a value it cannot open, at the value (compile.ts).
  }
  for (const { index, problem } of valueProblems(type, opened)) {
    ctx.issues.add(
      "invalid-secret-value",
      `${path}.values[${index}]`,
      type === "GENERIC_SECRET"
        ? `the value of generic secret ${quote(secret.name)} ${problem}`
        : `session ticket key ${nth(index)} of secret ${quote(secret.name)} ${problem}`,
      UPLOAD_HINT[type],
    );
  }
}

const TLS = "envoy.extensions.transport_sockets.tls.v3";
/** A cluster's tlsSecretName compiles to its UpstreamTlsContext's validation context (envoy-json.ts). */
const CLUSTER_TAKES = secretTypeAt(
  `${TLS}.CommonTlsContext`,
  "validation_context_sds_secret_config",
);
/** A filter chain's tlsSecretName compiles to the certificate its DownstreamTlsContext presents. */
const FILTER_CHAIN_TAKES = secretTypeAt(
  `${TLS}.CommonTlsContext`,
  "tls_certificate_sds_secret_configs",
);

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
        `create a secret named ${quote(name)} that is ${TYPE_WORDS[wanted]}, or name an existing one`,
      );
    } else if (secret.type !== wanted) {
      ctx.issues.add(
        "secret-type-mismatch",
        path,
        `${user} ${use} secret ${quote(name)}, which is ${TYPE_WORDS[secret.type]}, not ${TYPE_WORDS[wanted]}`,
        `name a secret that is ${TYPE_WORDS[wanted]}`,
      );
    }
  };
  for (const cluster of ctx.spec.clusters) {
    if (cluster.tlsSecretName === null) continue;
    check(
      cluster.tlsSecretName,
      `${clusterPath(cluster.name)}.tlsSecretName`,
      `cluster ${quote(cluster.name)}`,
      CLUSTER_TAKES,
      "checks its upstreams' certificates with",
    );
  }
  for (const listener of ctx.spec.listeners) {
    listener.filterChains.forEach((chain, index) => {
      if (chain.tlsSecretName === null) return;
      check(
        chain.tlsSecretName,
        `${filterChainPath(listener.name, index)}.tlsSecretName`,
        `filter chain ${nth(index)} of listener ${quote(listener.name)}`,
        FILTER_CHAIN_TAKES,
        "presents the certificate of",
      );
    });
  }
}

/**
 * A team's cluster that names a secret its team may not use gets no node the secret for it
 * (compile.ts, CompileOptions.maySecretServe): it would wait for a secret that never comes.
 */
export function checkWithheldSecrets(ctx: ValidationContext, compiled: CompiledConfig): void {
  for (const { secret, referrer } of compiled.withheldSecrets ?? []) {
    const path =
      referrer.kind === "cluster" ? clusterPath(referrer.name) : listenerPath(referrer.name);
    ctx.issues.add(
      "secret-not-entitled",
      path,
      `${referrer.kind} ${quote(referrer.name)} names secret ${quote(secret)}, which its team may not use: no node gets the secret for it, so its TLS never becomes ready`,
      `an admin makes the secret usable by the team (switchyard share secret ${secret} --team TEAM), or name one of the team's own secrets`,
    );
  }
}
