import { fromJson } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { describe, expect, it } from "vitest";
import { findReferences } from "./envoy-references.js";
import {
  SECRET_FIELD_ROWS,
  sdsSecretFields,
  sdsSecretJsonKeys,
  secretTypeOfField,
} from "./envoy-secret-fields.js";

describe("the kinds of secret each SDS field takes", () => {
  it("has a row for every field of the registry that holds an SdsSecretConfig", () => {
    const fields = sdsSecretFields().map((field) => `${field.parent.typeName}.${field.name}`);
    expect(fields.length).toBeGreaterThanOrEqual(8);
    const missing = sdsSecretFields().filter((field) => secretTypeOfField(field) === undefined);
    expect(missing.map((field) => `${field.parent.typeName}.${field.name}`)).toEqual([]);
  });

  it("names in each row a field that holds an SdsSecretConfig, where the registry has its message", () => {
    for (const row of SECRET_FIELD_ROWS) {
      const desc = registry.getMessage(row.type);
      if (!desc) continue; // newer Envoy (the row says so)
      const field = desc.fields.find((f) => f.name === row.field);
      expect(field, `${row.type}.${row.field}`).toBeDefined();
      expect(sdsSecretFields()).toContain(field);
    }
  });

  it("lists the JSON keys of those fields in both spellings, for finding the rows that name secrets", () => {
    const keys = sdsSecretJsonKeys();
    for (const key of [
      "tlsCertificateSdsSecretConfigs",
      "tls_certificate_sds_secret_configs",
      "sessionTicketKeysSdsSecretConfig",
      "tokenSecret",
      "hmac_secret",
      "credential",
      "clientSecret",
    ])
      expect(keys).toContain(key);
  });

  it("marks each secret reference with the kind its field takes, in a typed config and in a list", () => {
    const desc = registry.getMessage(
      "envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext",
    );
    if (!desc) throw new Error("no DownstreamTlsContext");
    const context = fromJson(
      desc,
      {
        commonTlsContext: {
          tlsCertificateSdsSecretConfigs: [{ name: "a" }, { name: "b" }],
          combinedValidationContext: {
            defaultValidationContext: {},
            validationContextSdsSecretConfig: { name: "ca" },
          },
        },
        sessionTicketKeysSdsSecretConfig: { name: "tickets" },
      },
      { registry },
    );
    expect(findReferences(desc, context).map((r) => [r.name, r.secretType])).toEqual([
      ["a", "TLS_CERTIFICATE"],
      ["b", "TLS_CERTIFICATE"],
      ["ca", "VALIDATION_CONTEXT"],
      ["tickets", "SESSION_TICKET_KEYS"],
    ]);
  });
});
