/**
 * Secret resources in imported config (`static_resources.secrets` of a bootstrap, or a resource
 * with "@type" envoy.extensions.transport_sockets.tls.v3.Secret) become stored secrets, of each of
 * the four kinds Envoy's Secret holds (model.ts SecretType):
 *
 *   tls_certificate      its certificate_chain and private_key (with its password, if any): the
 *                        key checked against the chain, then sealed (envoy-import-secrets.ts);
 *   validation_context   its trusted_ca and DNS SANs to match exactly;
 *   generic_secret       its one value, bytes, sealed;
 *   session_ticket_keys  its keys, in order, each exactly 80 bytes, sealed.
 *
 * Only material given inline can be stored: a `filename` or an `environment_variable` names data
 * on the proxy's own host, which Switchyard cannot read. Such a field is refused, saying to upload
 * the data (`switchyard secret create ...`). Any other field of a Secret is refused at the field
 * rather than dropped. A value is never echoed back: notes name the secret and its size only.
 *
 * Pure: values leave here sealed with the function the caller gives (the server's secrets key),
 * or, without one, each is an error.
 */
import type { JsonObject, JsonValue, SecretSpec } from "../model.js";
import { sealValue, valueProblems } from "../secret-values.js";
import type { ImportSeverity } from "./envoy-import-issue.js";
import { asArray, asObject, asString, isObject, type Segment } from "./envoy-import-json.js";
import type { InlineCertificate } from "./envoy-import-secrets.js";

/** A note or an error about one Secret resource, at a path of it. */
export interface SecretNote {
  readonly at: readonly Segment[];
  readonly severity: ImportSeverity;
  readonly message: string;
}

/**
 * What a Secret resource becomes: a stored secret (values sealed), a TLS certificate whose key is
 * still to be checked and sealed (sealCertificates), or nothing, with the notes saying why.
 */
export interface ImportedSecret {
  readonly secret?: SecretSpec;
  readonly certificate?: InlineCertificate;
  readonly notes: readonly SecretNote[];
}

const KINDS = ["tlsCertificate", "validationContext", "genericSecret", "sessionTicketKeys"];

const CREATE_COMMAND: Readonly<Record<string, string>> = {
  tlsCertificate: "switchyard secret create tls NAME --cert FILE --key FILE",
  validationContext: "switchyard secret create validation NAME --ca FILE",
  genericSecret: "switchyard secret create generic NAME --from-file FILE",
  sessionTicketKeys: "switchyard secret create session-ticket-keys NAME --from-file FILE...",
};

type Read =
  | { readonly t: "bytes"; readonly bytes: Uint8Array }
  | { readonly t: "local"; readonly field: string }
  | { readonly t: "none" };

/** The bytes a DataSource gives inline, or that it reads the proxy's host, or that it is unset. */
function dataSource(source: JsonValue | undefined): Read {
  if (!isObject(source)) return { t: "none" };
  if (typeof source.inlineBytes === "string") {
    return { t: "bytes", bytes: new Uint8Array(Buffer.from(source.inlineBytes, "base64")) };
  }
  if (typeof source.inlineString === "string") {
    return { t: "bytes", bytes: new Uint8Array(Buffer.from(source.inlineString, "utf8")) };
  }
  if (typeof source.filename === "string") return { t: "local", field: "filename" };
  if (typeof source.environmentVariable === "string") {
    return { t: "local", field: "environmentVariable" };
  }
  return { t: "none" };
}

/**
 * The stored secret of one Secret resource (`json`, canonical proto3 JSON), its values sealed with
 * `seal`, or the notes saying why it cannot be stored.
 */
export function importSecretResource(
  json: JsonObject,
  seal: ((plaintext: string) => string) | undefined,
): ImportedSecret {
  const notes: SecretNote[] = [];
  const error = (at: readonly Segment[], message: string): ImportedSecret => ({
    notes: [...notes, { at, severity: "error", message }],
  });
  const name = asString(json.name);
  if (name === "") return error(["name"], "a Secret needs a name: proxies fetch it by name");
  const kind = KINDS.find((key) => json[key] !== undefined);
  if (kind === undefined) {
    return error(
      [],
      "the Secret holds none of tls_certificate, validation_context, generic_secret or session_ticket_keys",
    );
  }
  const body = asObject(json[kind]);
  const upload = (what: string) =>
    `${what} is read from the proxy's own host, which Switchyard cannot store as a value: upload it (${CREATE_COMMAND[kind]}) and name it over SDS`;
  /** A field of the kind's message the stored secret does not hold: refused, never dropped. */
  const other = (allowed: readonly string[]) => Object.keys(body).find((k) => !allowed.includes(k));

  if (kind === "tlsCertificate") {
    const extra = other(["certificateChain", "privateKey", "password"]);
    if (extra !== undefined) {
      return error(
        [kind, extra],
        `a TLS certificate secret holds a certificate chain and its private key: ${extra} cannot be stored with them`,
      );
    }
    const read: Record<string, string | undefined> = {};
    for (const field of ["certificateChain", "privateKey", "password"]) {
      const source = dataSource(body[field]);
      if (source.t === "local") {
        return error([kind, field, source.field], upload(`the ${field}`));
      }
      if (source.t === "bytes") read[field] = Buffer.from(source.bytes).toString("utf8");
    }
    if (read.certificateChain === undefined || read.privateKey === undefined) {
      return error(
        [kind, read.certificateChain === undefined ? "certificateChain" : "privateKey"],
        "a TLS certificate secret needs its certificate chain and private key, inline",
      );
    }
    // Checked against its chain and sealed with the inline certificates (sealCertificates).
    return {
      notes,
      certificate: {
        name,
        at: [kind],
        certificateChain: read.certificateChain,
        privateKey: read.privateKey,
        passphrase: read.password,
      },
    };
  }

  if (kind === "validationContext") {
    const extra = other(["trustedCa", "matchTypedSubjectAltNames"]);
    if (extra !== undefined) {
      return error(
        [kind, extra],
        `a validation context secret holds trusted CAs and DNS SANs to match exactly: ${extra} cannot be stored with them (keep it in the TLS context of the cluster or listener)`,
      );
    }
    const ca = dataSource(body.trustedCa);
    if (ca.t === "local") return error([kind, "trustedCa", ca.field], upload("the trusted CA"));
    if (ca.t === "none")
      return error(
        [kind, "trustedCa"],
        "a validation context secret is stored as the CAs it trusts: give trusted_ca (other validation settings belong in the TLS context that names the secret)",
      );
    const sans: string[] = [];
    for (const [index, entry] of asArray(body.matchTypedSubjectAltNames).entries()) {
      const matcher = asObject(asObject(entry).matcher);
      const exact = matcher.exact;
      if (
        asObject(entry).sanType !== "DNS" ||
        typeof exact !== "string" ||
        Object.keys(matcher).length !== 1 ||
        Object.keys(asObject(entry)).length !== 2
      ) {
        return error(
          [kind, "matchTypedSubjectAltNames", index],
          "a stored validation context matches DNS SANs exactly ({ san_type: DNS, matcher: { exact: NAME } }); another matcher cannot be stored",
        );
      }
      sans.push(exact);
    }
    return {
      notes,
      secret: {
        name,
        type: "VALIDATION_CONTEXT",
        certificateChain: "",
        privateKey: null,
        trustedCa: Buffer.from(ca.bytes).toString("utf8"),
        matchSubjectAltNames: sans,
        values: [],
      },
    };
  }

  // A generic secret or session ticket keys: values, sealed.
  const generic = kind === "genericSecret";
  const extra = other(generic ? ["secret"] : ["keys"]);
  if (extra !== undefined) {
    return error(
      [kind, extra],
      `${extra} cannot be stored in a ${generic ? "generic secret" : "set of session ticket keys"}`,
    );
  }
  const sources: readonly { at: readonly Segment[]; source: JsonValue | undefined }[] = generic
    ? [{ at: [kind, "secret"], source: body.secret }]
    : asArray(body.keys).map((source, index) => ({ at: [kind, "keys", index], source }));
  const values: Uint8Array[] = [];
  for (const { at, source } of sources) {
    const read = dataSource(source);
    if (read.t === "local") {
      return error([...at, read.field], upload(generic ? "the value" : "the key"));
    }
    if (read.t === "none")
      return error(at, generic ? "the generic secret holds no value" : "the key holds no value");
    values.push(read.bytes);
  }
  const problems = valueProblems(generic ? "GENERIC_SECRET" : "SESSION_TICKET_KEYS", values);
  const [first] = problems;
  if (first !== undefined) {
    const at = sources[first.index]?.at ?? [kind];
    return error(
      at,
      `${generic ? "the value" : `session ticket key ${first.index}`} ${first.problem}`,
    );
  }
  if (!seal) {
    return error(
      [kind],
      "a secret value is sealed with the server's secrets key, and none was given here: import it through the server (switchyard apply, the console's Import page)",
    );
  }
  const size = values.reduce((sum, value) => sum + value.length, 0);
  return {
    notes: [
      {
        at: [kind],
        severity: "info",
        message: generic
          ? `stored as generic secret "${name}" (${size} bytes): the value is sealed at rest and never shown back`
          : `stored as session ticket keys "${name}" (${values.length} key${values.length === 1 ? "" : "s"}, the first encrypts new tickets): the keys are sealed at rest and never shown back`,
      },
    ],
    secret: {
      name,
      type: generic ? "GENERIC_SECRET" : "SESSION_TICKET_KEYS",
      certificateChain: "",
      privateKey: null,
      trustedCa: "",
      matchSubjectAltNames: [],
      values: values.map((value) => sealValue(seal, value)),
    },
  };
}
