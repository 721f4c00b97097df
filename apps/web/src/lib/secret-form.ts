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
 *
 * A generic secret's value and session ticket keys are write-only too: a stored secret's form
 * starts with none (`valueSet` says they are stored), and saving without new ones keeps them. A
 * value is bytes: an uploaded file is held as its base64 (so a binary file survives), a pasted
 * value as the text's UTF-8. The size rules are checked here as the server checks them
 * (snapshot secret-values.ts: at most 64 KiB; each ticket key exactly 80 bytes).
 */

/** The secret types, in proto order (config.proto), without UNSPECIFIED. */
export type SecretFormType = EnumValueName<typeof SecretType>;
export const SECRET_TYPES = enumValueNames(SecretTypeSchema, SecretType);

const CERTIFICATE = "-----BEGIN CERTIFICATE-----";

/** The largest generic secret the server takes (snapshot secret-values.ts). */
export const MAX_GENERIC_SECRET_BYTES = 64 * 1024;
/** The one size of a session ticket key Envoy takes (snapshot secret-values.ts). */
export const SESSION_TICKET_KEY_BYTES = 80;

/** An uploaded file: its name (to show), its size and its bytes as base64. */
const uploadedFile = z.object({ name: z.string(), size: z.number(), base64: z.string() });
export type UploadedFile = z.infer<typeof uploadedFile>;

const utf8Length = (text: string) => new TextEncoder().encode(text).length;
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
    /** GENERIC_SECRET: the value as uploaded (wins over `genericText`). */
    genericFile: uploadedFile.nullable(),
    /** GENERIC_SECRET: the value pasted as text. */
    genericText: z.string(),
    /** SESSION_TICKET_KEYS: the key files, in order: the first encrypts new tickets. */
    ticketKeys: z.array(uploadedFile),
    /** A value or keys are stored (editing): saving without new ones keeps them. */
    valueSet: z.boolean(),
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
    if (form.type === "GENERIC_SECRET") {
      const size = form.genericFile ? form.genericFile.size : utf8Length(form.genericText);
      const field = form.genericFile ? "genericFile" : "genericText";
      if (size > MAX_GENERIC_SECRET_BYTES)
        issue(
          field,
          `The value is ${size} bytes, above the ${MAX_GENERIC_SECRET_BYTES / 1024} KiB a generic secret may hold`,
        );
      else if (form.genericFile && size === 0) issue(field, "The file is empty");
      else if (size === 0 && !form.valueSet) issue(field, "Upload a file or paste the value");
      return;
    }
    if (form.type === "SESSION_TICKET_KEYS") {
      if (form.ticketKeys.length === 0 && !form.valueSet)
        issue(
          "ticketKeys",
          "Upload one or more key files of 80 random bytes each (openssl rand 80)",
        );
      const wrong = form.ticketKeys.find((key) => key.size !== SESSION_TICKET_KEY_BYTES);
      if (wrong)
        issue(
          "ticketKeys",
          `${wrong.name} is ${wrong.size} bytes: a session ticket key is exactly ${SESSION_TICKET_KEY_BYTES} bytes, as Envoy requires`,
        );
      return;
    }
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
  genericFile: null,
  genericText: "",
  ticketKeys: [],
  valueSet: false,
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
    genericFile: null,
    genericText: "",
    ticketKeys: [],
    valueSet: secret.valueSet,
  };
}

/** Bytes as base64, and back: how the form holds an uploaded file. */
export function bytesToBase64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

function base64ToBytes(base64: string): Uint8Array {
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

/** What a form's value fields send: none when nothing new was given (the stored ones are kept). */
function valuesOf(form: SecretForm): Uint8Array[] {
  if (form.type === "GENERIC_SECRET") {
    if (form.genericFile) return [base64ToBytes(form.genericFile.base64)];
    return form.genericText === "" ? [] : [new TextEncoder().encode(form.genericText)];
  }
  if (form.type === "SESSION_TICKET_KEYS")
    return form.ticketKeys.map((k) => base64ToBytes(k.base64));
  return [];
}

export function secretOfForm(form: SecretForm): Secret {
  const tls = form.type === "TLS_CERTIFICATE";
  const ca = form.type === "VALIDATION_CONTEXT";
  return create(SecretSchema, {
    name: form.name.trim(),
    type: SecretType[form.type],
    certificateChain: tls ? form.certificateChain : "",
    privateKey: tls ? form.privateKey : "",
    privateKeyPassphrase: tls ? form.passphrase : "",
    trustedCa: ca ? form.trustedCa : "",
    matchSubjectAltNames: ca
      ? form.matchSans
          .split(/[\s,]+/)
          .map((s) => s.trim())
          .filter((s) => s !== "")
      : [],
    values: valuesOf(form),
  });
}

/** The server's `values[i]` issues go to the one place each value type shows its errors. */
export const secretFieldMap: FieldMap = {
  fields: ["name", "type", "certificateChain", "privateKey", "trustedCa", "matchSans", "values"],
  aliases: {
    matchSubjectAltNames: "matchSans",
    "matchSubjectAltNames.*": "matchSans",
    "values.*": "values",
  },
};

/** "32 bytes", "2 × 80 bytes": a stored value secret's size, for lists. */
export function valueSizeOf(secret: Secret): string | undefined {
  if (!secret.valueSet) return undefined;
  if (secret.type === SecretType.GENERIC_SECRET) {
    const size = secret.valueInfos[0]?.sizeBytes ?? 0;
    return `${size} byte${size === 1 ? "" : "s"}`;
  }
  return `${secret.valueInfos.length} × ${SESSION_TICKET_KEY_BYTES} bytes`;
}

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
