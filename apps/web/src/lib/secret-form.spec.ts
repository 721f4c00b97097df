import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { SecretType } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import {
  bytesToBase64,
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

  const upload = (name: string, bytes: Uint8Array) => ({
    name,
    size: bytes.length,
    base64: bytesToBase64(bytes),
  });
  const generic = { ...emptySecretForm(), name: "hmac", type: "GENERIC_SECRET" as const };
  const tickets = { ...emptySecretForm(), name: "tickets", type: "SESSION_TICKET_KEYS" as const };

  it("asks a new generic secret for its value, and keeps a stored one when none is given", () => {
    expect(problems(generic)).toEqual([["genericText", "Upload a file or paste the value"]]);
    expect(problems({ ...generic, valueSet: true })).toEqual([]);
    expect(secretOfForm({ ...generic, valueSet: true }).values).toEqual([]);
  });

  it("sends an uploaded file's bytes as they are (binary included), and pasted text as UTF-8", () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const fromFile = secretOfForm({ ...generic, genericFile: upload("hmac.bin", bytes) });
    expect(fromFile.type).toBe(SecretType.GENERIC_SECRET);
    expect(fromFile.values).toEqual([bytes]);
    expect(secretOfForm({ ...generic, genericText: "pässword" }).values).toEqual([
      new TextEncoder().encode("pässword"),
    ]);
  });

  it("refuses a generic value above 64 KiB", () => {
    expect(
      problems({ ...generic, genericFile: upload("big.bin", new Uint8Array(64 * 1024 + 1)) }),
    ).toEqual([
      ["genericFile", "The value is 65537 bytes, above the 64 KiB a generic secret may hold"],
    ]);
  });

  it("refuses a ticket key file that is not 80 bytes, naming it; sends the keys in the order added", () => {
    const [a, b] = [new Uint8Array(80).fill(1), new Uint8Array(80).fill(2)];
    expect(problems(tickets)[0]?.[0]).toBe("ticketKeys");
    expect(problems({ ...tickets, ticketKeys: [upload("short.key", new Uint8Array(48))] })).toEqual(
      [
        [
          "ticketKeys",
          "short.key is 48 bytes: a session ticket key is exactly 80 bytes, as Envoy requires",
        ],
      ],
    );
    const form = { ...tickets, ticketKeys: [upload("new.key", a), upload("old.key", b)] };
    expect(problems(form)).toEqual([]);
    expect(secretOfForm(form).values).toEqual([a, b]);
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
