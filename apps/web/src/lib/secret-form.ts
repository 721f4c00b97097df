import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  type Secret,
  SecretSchema,
  SecretType,
  SecretTypeSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { z } from "zod";
import { type EnumValueName, enumName, enumValueNames, objectName } from "./form-values";
import type { FieldMap } from "./issue-path";

/**
 * The secret form's values, and how they become a `switchyard.v1.Secret` and back. The private
 * key is write-only: a stored secret's form starts with an empty key field (`keySet` says one is
 * stored), and an empty key on save keeps the stored one, which the server allows only when the
 * certificate is still for it (packages/server secret-handlers.ts). The PEM checks here are the
 * quick ones (the right kind of PEM block in the right field); the server parses everything.
 */

/** The secret types, in proto order (config.proto), without UNSPECIFIED. */
export type SecretFormType = EnumValueName<typeof SecretType>;
export const SECRET_TYPES = enumValueNames(SecretTypeSchema, SecretType);

const CERTIFICATE = "-----BEGIN CERTIFICATE-----";
const PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;

export const secretFormSchema = z
  .object({
    name: objectName("secret"),
    type: z.enum(SECRET_TYPES),
    certificateChain: z.string(),
    privateKey: z.string(),
    passphrase: z.string(),
    trustedCa: z.string(),
    /** DNS SANs, one per line or comma-separated. */
    matchSans: z.string(),
    /** A private key is stored (editing a TLS certificate): an empty key field keeps it. */
    keySet: z.boolean(),
  })
  .superRefine((form, ctx) => {
    const issue = (path: string, message: string) =>
      ctx.addIssue({ code: "custom", message, path: [path] });
    const pem = (field: "certificateChain" | "trustedCa", what: string) => {
      const text = form[field];
      if (PRIVATE_KEY.test(text))
        issue(
          field,
          `This holds a private key: paste only ${what} here (the key has its own field)`,
        );
      else if (!text.includes(CERTIFICATE))
        issue(field, `Paste or load ${what} (PEM: ${CERTIFICATE} …)`);
    };
    if (form.type === "TLS_CERTIFICATE") {
      pem("certificateChain", "the certificate chain");
      if (form.privateKey.trim() === "") {
        if (!form.keySet) issue("privateKey", "Paste or load the certificate’s private key (PEM)");
      } else if (!PRIVATE_KEY.test(form.privateKey))
        issue("privateKey", "Paste or load a PEM private key (-----BEGIN PRIVATE KEY----- …)");
    } else {
      pem("trustedCa", "the trusted CA certificates");
    }
  });

export type SecretForm = z.infer<typeof secretFormSchema>;

export const emptySecretForm = (): SecretForm => ({
  name: "",
  type: "TLS_CERTIFICATE",
  certificateChain: "",
  privateKey: "",
  passphrase: "",
  trustedCa: "",
  matchSans: "",
  keySet: false,
});

export function secretFormOf(secret: Secret): SecretForm {
  return {
    name: secret.name,
    type: enumName(SecretType, secret.type, SECRET_TYPES, "TLS_CERTIFICATE"),
    certificateChain: secret.certificateChain,
    privateKey: "",
    passphrase: "",
    trustedCa: secret.trustedCa,
    matchSans: secret.matchSubjectAltNames.join("\n"),
    keySet: secret.privateKeySet,
  };
}

export function secretOfForm(form: SecretForm): Secret {
  const tls = form.type === "TLS_CERTIFICATE";
  return create(SecretSchema, {
    name: form.name.trim(),
    type: SecretType[form.type],
    certificateChain: tls ? form.certificateChain : "",
    privateKey: tls ? form.privateKey : "",
    privateKeyPassphrase: tls ? form.passphrase : "",
    trustedCa: tls ? "" : form.trustedCa,
    matchSubjectAltNames: tls
      ? []
      : form.matchSans
          .split(/[\s,]+/)
          .map((s) => s.trim())
          .filter((s) => s !== ""),
  });
}

export const secretFieldMap: FieldMap = {
  fields: ["name", "type", "certificateChain", "privateKey", "trustedCa", "matchSans"],
  aliases: { matchSubjectAltNames: "matchSans", "matchSubjectAltNames.*": "matchSans" },
};

const DAY_MS = 24 * 3600_000;

export type Expiry =
  | { readonly t: "none" }
  | { readonly t: "expired"; readonly at: Date }
  | { readonly t: "soon"; readonly at: Date; readonly days: number }
  | { readonly t: "ok"; readonly at: Date; readonly days: number };

/** How close the first certificate's notAfter is: "soon" within 30 days. */
export function expiryOf(secret: Secret, now: number = Date.now()): Expiry {
  const notAfter = secret.certificates[0]?.notAfter;
  if (!notAfter) return { t: "none" };
  const at = timestampDate(notAfter);
  const days = Math.floor((at.getTime() - now) / DAY_MS);
  if (at.getTime() <= now) return { t: "expired", at };
  return days < 30 ? { t: "soon", at, days } : { t: "ok", at, days };
}
