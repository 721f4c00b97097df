/**
 * Which kind of secret each field that names one over SDS takes. Every such field holds an
 * `envoy.extensions.transport_sockets.tls.v3.SdsSecretConfig` (envoy-references.ts finds its
 * name); the field it sits in says what Envoy reads from the Secret it fetches, and Envoy reads
 * only that member of the Secret's `type` oneof: a TLS context that names a generic secret, or
 * an OAuth2 filter that names a TLS certificate, waits for a secret that never comes, or fails
 * when the proxy applies it. So a reference to a secret of another kind is refused before a
 * publish (validate-secrets.ts, validate-envoy.ts: `secret-type-mismatch`).
 *
 * The table is by message type and field, each row citing the Envoy field (its page in the Envoy
 * API reference: envoy_v3_api_field_<type>.<field>). envoy-secret-fields.spec.ts checks that
 * every SdsSecretConfig field of the registry has a row, so a field new protos add is not missed.
 */
import type { DescField } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import type { SecretType } from "../model.js";

export const SDS_SECRET_CONFIG = "envoy.extensions.transport_sockets.tls.v3.SdsSecretConfig";

export interface SecretFieldRow {
  /** The message type holding the SdsSecretConfig. */
  readonly type: string;
  /** The field holding it (proto name): a message, or a list of them. */
  readonly field: string;
  readonly takes: SecretType;
}

const TLS = "envoy.extensions.transport_sockets.tls.v3";

export const SECRET_FIELD_ROWS: readonly SecretFieldRow[] = [
  // CommonTlsContext.tls_certificate_sds_secret_configs: "Configs for fetching TLS certificates
  // via SDS API" (what a DownstreamTlsContext presents, or an UpstreamTlsContext's client
  // certificate).
  {
    type: `${TLS}.CommonTlsContext`,
    field: "tls_certificate_sds_secret_configs",
    takes: "TLS_CERTIFICATE",
  },
  // CommonTlsContext.validation_context_sds_secret_config: "Config for fetching validation context
  // via SDS API".
  {
    type: `${TLS}.CommonTlsContext`,
    field: "validation_context_sds_secret_config",
    takes: "VALIDATION_CONTEXT",
  },
  // CommonTlsContext.CombinedCertificateValidationContext.validation_context_sds_secret_config:
  // "Config for fetching validation context via SDS API", beside default_validation_context.
  {
    type: `${TLS}.CommonTlsContext.CombinedCertificateValidationContext`,
    field: "validation_context_sds_secret_config",
    takes: "VALIDATION_CONTEXT",
  },
  // DownstreamTlsContext.session_ticket_keys_sds_secret_config: "Config for fetching TLS session
  // ticket keys via SDS API".
  {
    type: `${TLS}.DownstreamTlsContext`,
    field: "session_ticket_keys_sds_secret_config",
    takes: "SESSION_TICKET_KEYS",
  },
  // filters.http.oauth2.v3.OAuth2Credentials.token_secret: "The secret used to retrieve the
  // access token" (Envoy's OAuth2 filter reads it as a generic secret).
  {
    type: "envoy.extensions.filters.http.oauth2.v3.OAuth2Credentials",
    field: "token_secret",
    takes: "GENERIC_SECRET",
  },
  // OAuth2Credentials.hmac_secret: "If present, the secret token will be a HMAC using the
  // provided secret" (read as a generic secret).
  {
    type: "envoy.extensions.filters.http.oauth2.v3.OAuth2Credentials",
    field: "hmac_secret",
    takes: "GENERIC_SECRET",
  },
  // http.injected_credentials.generic.v3.Generic.credential: "The SDS configuration for the
  // credential that will be injected to the specified HTTP request header. It must be a generic
  // secret."
  {
    type: "envoy.extensions.http.injected_credentials.generic.v3.Generic",
    field: "credential",
    takes: "GENERIC_SECRET",
  },
  // http.injected_credentials.oauth2.v3.OAuth2.ClientCredentials.client_secret: "Client secret"
  // (the credential injector reads it as a generic secret, as it does Generic.credential).
  {
    type: "envoy.extensions.http.injected_credentials.oauth2.v3.OAuth2.ClientCredentials",
    field: "client_secret",
    takes: "GENERIC_SECRET",
  },
  // quic.connection_id_generator.quic_lb.v3.Config.encryption_parameters: a generic secret (its
  // newer `secrets` map, keyed by what QUIC-LB reads). Newer Envoy: this row finds nothing while
  // the registry's protos lack the extension.
  {
    type: "envoy.extensions.quic.connection_id_generator.quic_lb.v3.Config",
    field: "encryption_parameters",
    takes: "GENERIC_SECRET",
  },
];

const byField = new Map<string, SecretType>(
  SECRET_FIELD_ROWS.map((row) => [`${row.type}.${row.field}`, row.takes]),
);

/**
 * The kind of secret the SdsSecretConfig held by `field` names, or undefined for a field the
 * table lacks (its reference is still checked for existence, not for kind).
 */
export function secretTypeOfField(field: DescField): SecretType | undefined {
  return byField.get(`${field.parent.typeName}.${field.name}`);
}

/** The kind a row of the table says, by message type and field: what the modelled fields compile to. */
export function secretTypeAt(type: string, field: string): SecretType {
  const takes = byField.get(`${type}.${field}`);
  if (takes === undefined) throw new Error(`no secret field row for ${type}.${field}`);
  return takes;
}

/** Every field of the registry that holds an SdsSecretConfig (a message, or a list of them). */
export function sdsSecretFields(): readonly DescField[] {
  sdsFields ??= [...registry].flatMap((type) =>
    type.kind !== "message"
      ? []
      : type.fields.filter(
          (field) =>
            field.fieldKind !== "scalar" &&
            field.fieldKind !== "enum" &&
            field.message?.typeName === SDS_SECRET_CONFIG,
        ),
  );
  return sdsFields;
}
let sdsFields: readonly DescField[] | undefined;

/**
 * The JSON keys (proto3 JSON names and proto names) of every field that can name a secret over
 * SDS: stored Envoy JSON without any of them names no secret, so a search for the users of secrets
 * reads only the rows that hold one (the server's secret-handlers.ts).
 */
export function sdsSecretJsonKeys(): readonly string[] {
  return [...new Set(sdsSecretFields().flatMap((field) => [field.jsonName, field.name]))].sort();
}
