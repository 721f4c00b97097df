import { randomBytes } from "node:crypto";
import { fromBinary } from "@bufbuild/protobuf";
import { SecretSchema } from "@switchyard/proto/envoy/extensions/transport_sockets/tls/v3/secret_pb";
import { createTestCa } from "@switchyard/testing";
import { describe, expect, it } from "vitest";
import { compile } from "./compile.js";
import { exportEnvoyConfig } from "./envoy/envoy-export.js";
import { envoyForm } from "./envoy/envoy-form.js";
import {
  clusterSpec,
  configSpec,
  endpointSpec,
  filterChainSpec,
  nodeGroupSpec,
  routeConfigurationSpec,
  socketListenerSpec,
  tlsSecretSpec,
  validationSecretSpec,
} from "./fixtures.js";
import type { ConfigSpec, SecretSpec } from "./model.js";
import { createSecretBox, SecretBoxError } from "./secret-box.js";
import {
  certificatePublicKeyFingerprint,
  checkPrivateKey,
  parseCertificates,
  secretResourceExpiry,
} from "./secret-pem.js";
import { planUpdate } from "./serving/plan.js";
import { TypeUrl } from "./serving/resource-snapshot.js";
import { diffManifests, sourceManifest, sourceObjects, specFromSources } from "./sources.js";
import { validate } from "./validate/validate.js";

const box = createSecretBox(randomBytes(32));
const ca = createTestCa("secrets spec CA");
const edge = ca.issueServer({ commonName: "edge.example", dns: ["edge.example"] });
const rotated = ca.issueServer({ commonName: "edge.example", dns: ["edge.example"] });
const other = ca.issueServer({ commonName: "other.example" });

const edgeCert = (pair = edge) => tlsSecretSpec("edge-cert", pair.cert, box.seal(pair.key));
const backendCa = validationSecretSpec("backend-ca", ca.cert, ["backend.internal"]);

/** A TLS listener presenting `edge-cert` and a cluster checking upstreams with `backend-ca`. */
function world(secrets: readonly SecretSpec[] = [edgeCert(), backendCa]): ConfigSpec {
  return configSpec({
    clusters: [
      clusterSpec("backend", [endpointSpec("10.0.0.1", 8443)], { tlsSecretName: "backend-ca" }),
      clusterSpec("plain", [endpointSpec("10.0.0.2", 8080)]),
    ],
    routeConfigurations: [routeConfigurationSpec("routes", "backend")],
    listeners: [
      socketListenerSpec("tls", 8443, "routes", {
        filterChains: [
          filterChainSpec({ rdsRouteConfigName: "routes", tlsSecretName: "edge-cert" }),
        ],
      }),
      socketListenerSpec("plain", 8080, "routes"),
    ],
    secrets,
  });
}

function defaultSnapshot(spec: ConfigSpec) {
  const compiled = compile(spec, { openSecret: box.open });
  expect(compiled.issues).toEqual([]);
  const group = compiled.groups.find((g) => g.isDefault);
  if (!group) throw new Error("no default group");
  return group.snapshot;
}

describe("sealing private keys", () => {
  it("opens what it sealed, and seals one key to one text (so an unchanged key is no change)", () => {
    const sealed = box.seal(edge.key);
    expect(sealed).not.toContain("PRIVATE KEY");
    expect(box.open(sealed)).toBe(edge.key);
    expect(box.seal(edge.key)).toBe(sealed);
    expect(box.seal(other.key)).not.toBe(sealed);
  });

  it("refuses to open with another key, naming both key ids instead of returning garbage", () => {
    const sealed = box.seal(edge.key);
    const another = createSecretBox(randomBytes(32));
    expect(() => another.open(sealed)).toThrow(SecretBoxError);
    expect(() => another.open(sealed)).toThrow(
      `sealed with secrets key ${box.keyId}, but the configured secrets key is ${another.keyId}`,
    );
  });

  it("refuses an altered sealed text", () => {
    const parts = box.seal(edge.key).split(".");
    parts[2] = Buffer.from("tampered, and longer than a tag").toString("base64url");
    expect(() => box.open(parts.join("."))).toThrow("it was altered");
  });

  it("refuses a secrets key that is not 32 bytes", () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow("a secrets key is 32 bytes");
  });
});

describe("reading PEM", () => {
  it("shows a certificate's subject, SANs, validity and SHA-256 fingerprint", () => {
    const parsed = parseCertificates(edge.cert);
    if (parsed.t !== "ok") throw new Error(parsed.problem);
    const [leaf] = parsed.certificates;
    expect(leaf?.subject).toBe("CN=edge.example");
    expect(leaf?.subjectAltNames).toEqual(["DNS:edge.example"]);
    expect(leaf?.fingerprintSha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(Date.parse(leaf?.notAfter ?? "")).toBeGreaterThan(Date.now());
  });

  it("accepts a private key that matches the certificate, as unencrypted PKCS#8", () => {
    const checked = checkPrivateKey(edge.key, edge.cert);
    expect(checked.t).toBe("ok");
    if (checked.t === "ok") expect(checked.pkcs8).toContain("-----BEGIN PRIVATE KEY-----");
  });

  it("refuses a private key of another certificate", () => {
    const checked = checkPrivateKey(other.key, edge.cert);
    expect(checked).toMatchObject({ t: "problem", field: "privateKey" });
    if (checked.t === "problem")
      expect(checked.problem).toContain("does not match the certificate");
  });

  it("gives a certificate and its private key the same public key fingerprint", () => {
    const checked = checkPrivateKey(edge.key, edge.cert);
    if (checked.t !== "ok") throw new Error(checked.problem);
    expect(certificatePublicKeyFingerprint(edge.cert)).toBe(checked.publicKeyFingerprint);
    expect(certificatePublicKeyFingerprint(other.cert)).not.toBe(checked.publicKeyFingerprint);
  });

  it("refuses text that is not a key", () => {
    expect(checkPrivateKey("not a key", edge.cert)).toMatchObject({
      t: "problem",
      field: "privateKey",
      problem: "is not a PEM private key",
    });
  });
});

describe("compiling secrets", () => {
  it("compiles a TLS certificate to envoy.extensions.transport_sockets.tls.v3.Secret with the opened key", () => {
    const resource = defaultSnapshot(world()).get(TypeUrl.Secret, "edge-cert");
    const secret = fromBinary(SecretSchema, resource?.body ?? new Uint8Array());
    expect(secret.name).toBe("edge-cert");
    if (secret.type.case !== "tlsCertificate") throw new Error(secret.type.case);
    const tls = secret.type.value;
    expect(tls.certificateChain?.specifier).toEqual({ case: "inlineString", value: edge.cert });
    expect(tls.privateKey?.specifier).toEqual({ case: "inlineString", value: edge.key });
  });

  it("compiles a validation context with its trusted CA and the DNS SANs to match", () => {
    const resource = defaultSnapshot(world()).get(TypeUrl.Secret, "backend-ca");
    const secret = fromBinary(SecretSchema, resource?.body ?? new Uint8Array());
    if (secret.type.case !== "validationContext") throw new Error(secret.type.case);
    expect(secret.type.value.trustedCa?.specifier).toEqual({
      case: "inlineString",
      value: ca.cert,
    });
    expect(
      secret.type.value.matchTypedSubjectAltNames.map((m) => [m.sanType, m.matcher?.matchPattern]),
    ).toEqual([[2, { case: "exact", value: "backend.internal" }]]);
  });

  it("leaves a TLS certificate out, with an issue at its private key, when no key opens it", () => {
    const compiled = compile(world());
    expect(compiled.issues).toEqual([
      {
        path: 'secrets["edge-cert"].privateKey',
        message: "the private key is sealed and no secrets key was given to open it",
      },
    ]);
    const wrong = compile(world(), { openSecret: createSecretBox(randomBytes(32)).open });
    expect(wrong.issues[0]?.message).toContain("the private key cannot be opened: sealed with");
  });

  it("reads when a served Secret's certificates stop being valid (the earliest notAfter)", () => {
    const snapshot = defaultSnapshot(world());
    const expiry = (name: string) =>
      secretResourceExpiry(snapshot.get(TypeUrl.Secret, name)?.body ?? new Uint8Array());
    const leaf = parseCertificates(edge.cert);
    if (leaf.t !== "ok") throw new Error(leaf.problem);
    expect(expiry("edge-cert")).toBe(Date.parse(leaf.certificates[0]?.notAfter ?? ""));
    expect(expiry("backend-ca")).toBeGreaterThan(Date.now());
  });

  it("gives a named node group only the secrets its own listeners and clusters name", () => {
    const compiled = compile(
      {
        ...world(),
        nodeGroups: [
          nodeGroupSpec("plain-only", { listeners: ["plain"], clusters: ["backend", "plain"] }),
          nodeGroupSpec("tls", { listeners: ["tls"], clusters: ["plain"], priority: 200 }),
        ],
      },
      { openSecret: box.open },
    );
    const names = (group: string) => secretNames(compiled, group);
    expect(names("plain-only")).toEqual(["backend-ca"]);
    expect(names("tls")).toEqual(["edge-cert"]);
    expect(names("default")).toEqual(["backend-ca", "edge-cert"]);
  });

  it("serves no secret that nothing names, not even to the default group", () => {
    const compiled = compile(
      world([edgeCert(), backendCa, validationSecretSpec("unused", ca.cert)]),
      { openSecret: box.open },
    );
    expect(secretNames(compiled, "default")).toEqual(["backend-ca", "edge-cert"]);
  });

  it("serves a secret for a cluster only when the cluster may use it, to its node group and the default group alike, and validation warns of the one withheld", () => {
    const spec: ConfigSpec = {
      ...world(),
      nodeGroups: [
        nodeGroupSpec("backend", { listeners: ["plain"], clusters: ["backend", "plain"] }),
      ],
    };
    const maySecretServe = (secret: string, referrer: { kind: string; name: string }) =>
      !(referrer.kind === "cluster" && secret === "backend-ca");
    const compiled = compile(spec, { openSecret: box.open, maySecretServe });
    expect(secretNames(compiled, "backend")).toEqual([]);
    expect(secretNames(compiled, "default")).toEqual(["edge-cert"]);
    expect(compiled.withheldSecrets).toEqual([
      { secret: "backend-ca", referrer: { kind: "cluster", name: "backend" } },
    ]);
    const warnings = validate(spec, { compiled, openSecret: box.open }).issues.filter(
      (i) => i.code === "secret-not-entitled",
    );
    expect(warnings.map((w) => [w.severity, w.path])).toEqual([["warning", 'clusters["backend"]']]);
    // The same secret named by a listener (an admin's object, which may use any) is served.
    const listened = compile(
      {
        ...spec,
        listeners: spec.listeners.map((l) =>
          l.name === "plain"
            ? {
                ...l,
                filterChains: [
                  filterChainSpec({ rdsRouteConfigName: "routes", tlsSecretName: "backend-ca" }),
                ],
              }
            : l,
        ),
      },
      { openSecret: box.open, maySecretServe },
    );
    expect(secretNames(listened, "backend")).toEqual(["backend-ca"]);
  });
});

function secretNames(compiled: ReturnType<typeof compile>, group: string): string[] {
  return [
    ...(compiled.groups
      .find((g) => g.name === group)
      ?.snapshot.resources(TypeUrl.Secret)
      .keys() ?? []),
  ].sort();
}

describe("secrets in the make-before-break plan", () => {
  it("sends a rotated certificate alone: the listener and cluster that name it are not resent", () => {
    const plan = planUpdate(
      defaultSnapshot(world()),
      defaultSnapshot(world([edgeCert(rotated), backendCa])),
    );
    expect(plan.map((step) => [step.t, step.typeUrl, step.changed.map((r) => r.name)])).toEqual([
      ["make", TypeUrl.Secret, ["edge-cert"]],
    ]);
  });

  it("sends a new secret before the listener that names it", () => {
    const before = defaultSnapshot({
      ...world([backendCa]),
      listeners: world().listeners.slice(1),
    });
    const plan = planUpdate(before, defaultSnapshot(world()));
    expect(plan.map((step) => [step.t, step.typeUrl])).toEqual([
      ["make", TypeUrl.Secret],
      ["make", TypeUrl.Listener],
      ["make", TypeUrl.RouteConfiguration],
    ]);
  });

  it("removes a secret last, after the listener that stopped naming it", () => {
    const after = defaultSnapshot({ ...world([backendCa]), listeners: world().listeners.slice(1) });
    const plan = planUpdate(defaultSnapshot(world()), after);
    expect(plan.map((step) => [step.t, step.typeUrl])).toEqual([
      ["make", TypeUrl.Listener],
      ["break", TypeUrl.Secret],
    ]);
    expect(plan.at(-1)?.removed).toEqual(["edge-cert"]);
  });
});

describe("validating secrets", () => {
  const codes = (spec: ConfigSpec, now?: number) =>
    validate(spec, { openSecret: box.open, ...(now === undefined ? {} : { now }) }).issues.map(
      (i) => [i.code, i.path],
    );

  it("accepts TLS listeners and clusters whose secrets exist with the right type", () => {
    expect(codes(world())).toEqual([]);
  });

  it("refuses a listener or cluster naming a secret that does not exist (a dangling reference)", () => {
    const report = validate(world([]), { openSecret: box.open });
    expect(report.ok).toBe(false);
    expect(report.issues.map((i) => [i.code, i.path])).toEqual([
      ["dangling-secret-reference", 'clusters["backend"].tlsSecretName'],
      ["dangling-secret-reference", 'listeners["tls"].filterChains[0].tlsSecretName'],
    ]);
  });

  it("refuses a filter chain naming a validation context and a cluster naming a TLS certificate", () => {
    const swapped = world([
      tlsSecretSpec("backend-ca", edge.cert, box.seal(edge.key)),
      validationSecretSpec("edge-cert", ca.cert),
    ]);
    expect(codes(swapped)).toEqual([
      ["secret-type-mismatch", 'clusters["backend"].tlsSecretName'],
      ["secret-type-mismatch", 'listeners["tls"].filterChains[0].tlsSecretName'],
    ]);
  });

  it("refuses PEM that does not parse, and a private key pasted into a certificate field", () => {
    expect(
      codes(
        world([
          tlsSecretSpec(
            "edge-cert",
            "-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----",
            box.seal(edge.key),
          ),
          validationSecretSpec("backend-ca", `${ca.cert}${edge.key}`),
        ]),
      ),
    ).toEqual([
      ["invalid-certificate", 'secrets["edge-cert"].certificateChain'],
      ["invalid-certificate", 'secrets["backend-ca"].trustedCa'],
    ]);
  });

  it("refuses a TLS certificate without a private key and fields of the other type", () => {
    const broken: SecretSpec = { ...edgeCert(), privateKey: null, trustedCa: ca.cert };
    expect(codes(world([broken, backendCa]))).toContainEqual([
      "missing-private-key",
      'secrets["edge-cert"].privateKey',
    ]);
    expect(codes(world([broken, backendCa]))).toContainEqual([
      "secret-field-for-other-type",
      'secrets["edge-cert"].trustedCa',
    ]);
  });

  it("warns (without blocking a publish) about a certificate past its notAfter", () => {
    const later = Date.now() + 10 * 24 * 3600_000;
    const report = validate(world(), { openSecret: box.open, now: later });
    expect(report.ok).toBe(true);
    expect(report.issues.map((i) => [i.code, i.severity, i.path])).toContainEqual([
      "expired-certificate",
      "warning",
      'secrets["edge-cert"].certificateChain',
    ]);
  });
});

describe("secrets never shown back", () => {
  it("holds the private key sealed in source objects, which round-trip to the same spec", () => {
    const objects = sourceObjects(world());
    const secret = objects.find((o) => o.kind === "secret" && o.name === "edge-cert");
    expect(secret?.json).not.toContain("PRIVATE KEY");
    expect(secret?.json).toContain(box.seal(edge.key));
    expect(specFromSources(objects).secrets).toEqual(
      world().secrets.toSorted((a, b) => (a.name < b.name ? -1 : 1)),
    );
  });

  it("diffs an unchanged secret as unchanged and a rotation as a modified secret", () => {
    const manifest = (spec: ConfigSpec) => sourceManifest(sourceObjects(spec));
    expect(diffManifests(manifest(world()), manifest(world()))).toEqual([]);
    expect(
      diffManifests(manifest(world()), manifest(world([edgeCert(rotated), backendCa]))).map((c) => [
        c.kind,
        c.name,
        c.change,
      ]),
    ).toEqual([["secret", "edge-cert", "modified"]]);
  });

  it("shows a secret's Envoy form without its private key", () => {
    const [form] = envoyForm(world(), "secret", "edge-cert") ?? [];
    expect(form).toEqual({
      "@type": TypeUrl.Secret,
      name: "edge-cert",
      tls_certificate: { certificate_chain: { inline_string: edge.cert } },
    });
  });

  it("exports the SDS references of listeners and clusters but no secret", () => {
    const text = exportEnvoyConfig(world(), { format: "yaml" });
    expect(text).not.toContain("PRIVATE KEY");
    expect(text).not.toContain("envoy.extensions.transport_sockets.tls.v3.Secret");
    expect(text).toContain("edge-cert");
  });
});
