import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { SecretType } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import {
  emptySecretForm,
  expiryOf,
  type SecretForm,
  secretFormOf,
  secretFormSchema,
  secretOfForm,
} from "./secret-form";

const CERT = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const KEY = "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n";

const problems = (form: SecretForm) => {
  const result = secretFormSchema.safeParse(form);
  return result.success ? [] : result.error.issues.map((i) => [i.path.join("."), i.message]);
};

describe("the secret form", () => {
  it("asks a new TLS certificate for its chain and its key", () => {
    expect(problems({ ...emptySecretForm(), name: "edge" }).map(([p]) => p)).toEqual([
      "certificateChain",
      "privateKey",
    ]);
    expect(
      problems({ ...emptySecretForm(), name: "edge", certificateChain: CERT, privateKey: KEY }),
    ).toEqual([]);
  });

  it("keeps a stored key when the key field is left empty", () => {
    expect(
      problems({ ...emptySecretForm(), name: "edge", certificateChain: CERT, keySet: true }),
    ).toEqual([]);
  });

  it("refuses a private key pasted into the certificate field", () => {
    expect(
      problems({
        ...emptySecretForm(),
        name: "edge",
        certificateChain: `${CERT}${KEY}`,
        privateKey: KEY,
      })[0]?.[1],
    ).toMatch(/holds a private key/);
  });

  it("sends a validation context's CA and SANs, and no key", () => {
    const secret = secretOfForm({
      ...emptySecretForm(),
      name: "ca",
      type: "VALIDATION_CONTEXT",
      trustedCa: CERT,
      privateKey: KEY,
      matchSans: "a.internal, b.internal\nc.internal",
    });
    expect(secret.type).toBe(SecretType.VALIDATION_CONTEXT);
    expect(secret.privateKey).toBe("");
    expect(secret.matchSubjectAltNames).toEqual(["a.internal", "b.internal", "c.internal"]);
  });

  it("starts an edit with an empty key field and says a key is set", () => {
    const form = secretFormOf(
      secretOfForm({ ...emptySecretForm(), name: "edge", certificateChain: CERT, privateKey: KEY }),
    );
    expect(form.privateKey).toBe("");
  });

  it("calls a certificate within 30 days of its notAfter soon, and one past it expired", () => {
    const now = Date.parse("2026-11-21T00:00:00Z");
    const at = (iso: string) =>
      expiryOf({ certificates: [{ notAfter: timestampFromDate(new Date(iso)) }] } as never, now).t;
    expect(at("2026-11-20T00:00:00Z")).toBe("expired");
    expect(at("2026-12-01T00:00:00Z")).toBe("soon");
    expect(at("2027-06-01T00:00:00Z")).toBe("ok");
  });
});
