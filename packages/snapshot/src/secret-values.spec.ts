import { randomBytes } from "node:crypto";
import { fromBinary } from "@bufbuild/protobuf";
import { SecretSchema } from "@switchyard/proto/envoy/extensions/transport_sockets/tls/v3/secret_pb";
import { createTestCa } from "@switchyard/testing";
import { describe, expect, it } from "vitest";
import { compile } from "./compile.js";
import { exportEnvoyConfig } from "./envoy/envoy-export.js";
import { envoyForm } from "./envoy/envoy-form.js";
import { ADS_CONFIG_SOURCE } from "./envoy/envoy-json.js";
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
  valueSecretSpec,
} from "./fixtures.js";
import type { ConfigSpec, JsonObject, SecretSpec } from "./model.js";
import { createSecretBox } from "./secret-box.js";
import {
  MAX_GENERIC_SECRET_BYTES,
  openValue,
  SESSION_TICKET_KEY_BYTES,
  sealValue,
  valueInfo,
} from "./secret-values.js";
import { TypeUrl } from "./serving/resource-snapshot.js";
import { diffManifests, sourceManifest, sourceObjects, specFromSources } from "./sources.js";
import { validate } from "./validate/validate.js";

const box = createSecretBox(randomBytes(32));
const ca = createTestCa("secret values spec CA");
const edge = ca.issueServer({ commonName: "edge.example", dns: ["edge.example"] });

/** A value no text encoding survives: every byte from 0 to 255. */
const binary = new Uint8Array(Array.from({ length: 256 }, (_, i) => i));
const ticketKey = () => new Uint8Array(randomBytes(SESSION_TICKET_KEY_BYTES));
const [newest, older] = [ticketKey(), ticketKey()];

const sealed = (bytes: Uint8Array) => sealValue(box.seal, bytes);
const generic = (name: string, ...values: Uint8Array[]) =>
  valueSecretSpec(name, "GENERIC_SECRET", values.map(sealed));
const tickets = (name: string, ...values: Uint8Array[]) =>
  valueSecretSpec(name, "SESSION_TICKET_KEYS", values.map(sealed));

const sds = (name: string): JsonObject => ({ name, sdsConfig: ADS_CONFIG_SOURCE });
const TLS = "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3";

/** Envoy's OAuth2 filter, its token and HMAC secrets fetched over SDS. */
function oauth2Filter(tokenSecret: string, hmacSecret: string): JsonObject {
  return {
    name: "envoy.filters.http.oauth2",
    typedConfig: {
      "@type": "type.googleapis.com/envoy.extensions.filters.http.oauth2.v3.OAuth2",
      config: {
        tokenEndpoint: { uri: "https://auth.example/token", cluster: "auth", timeout: "5s" },
        authorizationEndpoint: "https://auth.example/authorize",
        credentials: {
          clientId: "switchyard",
          tokenSecret: sds(tokenSecret),
          hmacSecret: sds(hmacSecret),
        },
        redirectUri: "https://%REQ(:authority)%/callback",
        redirectPathMatcher: { path: { exact: "/callback" } },
        signoutPath: { path: { exact: "/signout" } },
      },
    },
  };
}

/**
 * A TLS listener presenting `edge-cert`, resuming sessions with the ticket keys `tickets` and
 * guarded by an OAuth2 filter whose secrets are `token` and `hmac`; a plain listener beside it.
 */
function world(secrets: readonly SecretSpec[], names = { tickets: "tickets", token: "token" }) {
  return configSpec({
    clusters: [
      clusterSpec("backend", [endpointSpec("10.0.0.1", 8080)]),
      clusterSpec("auth", [endpointSpec("10.0.0.2", 443)]),
    ],
    routeConfigurations: [routeConfigurationSpec("routes", "backend")],
    listeners: [
      socketListenerSpec("edge", 8443, "routes", {
        filterChains: [
          filterChainSpec({
            rdsRouteConfigName: "routes",
            tlsSecretName: "edge-cert",
            httpFilters: [oauth2Filter(names.token, "hmac")],
            extra: {
              transportSocket: {
                typedConfig: {
                  "@type": `${TLS}.DownstreamTlsContext`,
                  sessionTicketKeysSdsSecretConfig: sds(names.tickets),
                },
              },
            },
          }),
        ],
      }),
      socketListenerSpec("plain", 8080, "routes"),
    ],
    secrets,
  });
}

const allSecrets = () => [
  tlsSecretSpec("edge-cert", edge.cert, box.seal(edge.key)),
  tickets("tickets", newest, older),
  generic("token", new TextEncoder().encode("client secret")),
  generic("hmac", binary),
];

function served(spec: ConfigSpec, name: string) {
  const compiled = compile(spec, { openSecret: box.open });
  expect(compiled.issues).toEqual([]);
  const resource = compiled.groups
    .find((group) => group.isDefault)
    ?.snapshot.resources(TypeUrl.Secret)
    .get(name);
  if (!resource) throw new Error(`secret ${name} not served`);
  return fromBinary(SecretSchema, resource.body);
}

const errorsOf = (spec: ConfigSpec) =>
  validate(spec, { openSecret: box.open })
    .issues.filter((issue) => issue.severity === "error")
    .map((issue) => [issue.code, issue.path]);

describe("sealing secret values", () => {
  it("opens what it sealed byte for byte, binary included, and seals one value to one text", () => {
    const text = sealed(binary);
    expect(openValue(box.open, text)).toEqual(binary);
    expect(sealed(binary)).toBe(text);
    expect(sealed(newest)).not.toBe(text);
    expect(text).not.toContain(Buffer.from(binary).toString("base64"));
  });

  it("shows a value as its size and SHA-256 only", () => {
    expect(valueInfo(new TextEncoder().encode("abc"))).toEqual({
      sizeBytes: 3,
      sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    });
  });
});

describe("compiling generic secrets and session ticket keys", () => {
  it("serves a generic secret as generic_secret.secret.inline_bytes, the bytes as stored", () => {
    const secret = served(world(allSecrets()), "hmac");
    expect(secret.type.case).toBe("genericSecret");
    if (secret.type.case !== "genericSecret") return;
    expect(secret.type.value.secret?.specifier).toEqual({ case: "inlineBytes", value: binary });
  });

  it("serves session ticket keys as session_ticket_keys.keys, inline_bytes, in the stored order", () => {
    const secret = served(world(allSecrets()), "tickets");
    if (secret.type.case !== "sessionTicketKeys") throw new Error(secret.type.case);
    expect(secret.type.value.keys.map((key) => key.specifier)).toEqual([
      { case: "inlineBytes", value: newest },
      { case: "inlineBytes", value: older },
    ]);
  });

  it("leaves a secret out, with an issue at its value, when no secrets key opens it", () => {
    const compiled = compile(world(allSecrets()));
    expect(compiled.issues).toContainEqual({
      path: 'secrets["tickets"].values[0]',
      message: "value 1 is sealed and no secrets key was given to open it",
    });
    const group = compiled.groups.find((g) => g.isDefault);
    expect([...(group?.snapshot.resources(TypeUrl.Secret).keys() ?? [])]).toEqual([]);
  });

  it("gives a named node group the secrets its listener's HTTP filters and TLS context name, and no other", () => {
    const compiled = compile(
      {
        ...world([...allSecrets(), generic("unused", binary)]),
        nodeGroups: [
          nodeGroupSpec("edge", { listeners: ["edge"], clusters: ["backend", "auth"] }),
          nodeGroupSpec("plain", { listeners: ["plain"], clusters: ["backend"], priority: 200 }),
        ],
      },
      { openSecret: box.open },
    );
    const names = (group: string) => [
      ...(compiled.groups
        .find((g) => g.name === group)
        ?.snapshot.resources(TypeUrl.Secret)
        .keys() ?? []),
    ];
    expect(names("edge").sort()).toEqual(["edge-cert", "hmac", "tickets", "token"]);
    expect(names("plain")).toEqual([]);
  });
});

describe("validating generic secrets and session ticket keys", () => {
  it("accepts a listener whose ticket keys, OAuth2 secrets and certificate exist with the right kinds", () => {
    expect(errorsOf(world(allSecrets()))).toEqual([]);
  });

  it("refuses a session ticket key that is not exactly 80 bytes, as Envoy does, at the key", () => {
    const spec = world([
      ...allSecrets().filter((s) => s.name !== "tickets"),
      tickets("tickets", newest, new Uint8Array(79)),
    ]);
    const issue = validate(spec, { openSecret: box.open }).issues.find(
      (i) => i.code === "invalid-secret-value",
    );
    expect(issue?.path).toBe('secrets["tickets"].values[1]');
    expect(issue?.message).toBe(
      'session ticket key 2 of secret "tickets" is 79 bytes: Envoy takes a session ticket key of exactly 80 bytes (make one with `openssl rand 80`)',
    );
  });

  it("refuses session ticket keys without a key", () => {
    expect(errorsOf(configSpec({ secrets: [tickets("tickets")] }))).toEqual([
      ["missing-secret-value", 'secrets["tickets"].values'],
    ]);
  });

  it("refuses an empty generic secret, one above 64 KiB, and one of two values", () => {
    const spec = configSpec({
      secrets: [
        generic("empty", new Uint8Array(0)),
        generic("huge", new Uint8Array(MAX_GENERIC_SECRET_BYTES + 1)),
        generic("two", binary, binary),
      ],
    });
    expect(errorsOf(spec)).toEqual([
      ["invalid-secret-value", 'secrets["empty"].values[0]'],
      ["invalid-secret-value", 'secrets["huge"].values[0]'],
      ["invalid-secret-value", 'secrets["two"].values[1]'],
    ]);
    expect(errorsOf(configSpec({ secrets: [generic("limit", new Uint8Array(65536))] }))).toEqual(
      [],
    );
  });

  it("refuses a value that is not sealed, and a value in a TLS or validation secret", () => {
    const spec = configSpec({
      secrets: [
        valueSecretSpec("clear", "GENERIC_SECRET", ["c2VjcmV0"]),
        { ...validationSecretSpec("ca", ca.cert), values: [sealed(binary)] },
      ],
    });
    expect(errorsOf(spec)).toEqual([
      ["missing-secret-value", 'secrets["clear"].values[0]'],
      ["secret-field-for-other-type", 'secrets["ca"].values'],
    ]);
  });

  it("leaves the size rules to a caller with the secrets key: without one, a sealed key is not opened", () => {
    const spec = configSpec({ secrets: [tickets("tickets", new Uint8Array(79))] });
    expect(
      validate(spec, { compiled: compile(spec, { openSecret: box.open }) }).issues.map(
        (i) => i.code,
      ),
    ).toEqual([]);
  });

  it("refuses session_ticket_keys_sds_secret_config naming a generic secret, and an OAuth2 token_secret naming ticket keys", () => {
    const spec = world(allSecrets(), { tickets: "token", token: "tickets" });
    const mismatches = validate(spec, { openSecret: box.open }).issues.filter(
      (issue) => issue.code === "secret-type-mismatch",
    );
    expect(mismatches.map((issue) => [issue.path, issue.message])).toEqual([
      [
        'listeners["edge"].filterChains[0].httpFilters[0].typedConfig.config.credentials.tokenSecret.name',
        'Listener "edge" takes a generic secret here, but SDS secret "tickets" is a set of session ticket keys',
      ],
      [
        'listeners["edge"].filterChains[0].extra.transportSocket.typedConfig.sessionTicketKeysSdsSecretConfig.name',
        'Listener "edge" takes a set of session ticket keys here, but SDS secret "token" is a generic secret',
      ],
    ]);
  });

  it("refuses a filter chain presenting a generic secret once, at its tlsSecretName", () => {
    const spec = world([
      ...allSecrets().filter((s) => s.name !== "edge-cert"),
      generic("edge-cert", binary),
    ]);
    expect(errorsOf(spec)).toEqual([
      ["secret-type-mismatch", 'listeners["edge"].filterChains[0].tlsSecretName'],
    ]);
  });
});

describe("secret values never shown back", () => {
  const secrets = allSecrets();
  const spec = world(secrets);
  const clear = [newest, older, binary].map((bytes) => Buffer.from(bytes).toString("base64"));

  it("holds values sealed in source objects, which round-trip to the same spec", () => {
    const objects = sourceObjects(spec);
    const text = JSON.stringify(objects);
    for (const value of clear) expect(text).not.toContain(value);
    expect(specFromSources(objects).secrets).toEqual(
      secrets.toSorted((a, b) => (a.name < b.name ? -1 : 1)),
    );
  });

  it("keeps a TLS secret's source object as it was before values existed (no change on upgrade)", () => {
    const tls = sourceObjects(spec).find((o) => o.name === "edge-cert");
    expect(JSON.parse(tls?.json ?? "{}")).not.toHaveProperty("values");
  });

  it("diffs an unchanged value as unchanged and a new ticket key as a modified secret", () => {
    const manifest = (s: ConfigSpec) => sourceManifest(sourceObjects(s));
    expect(diffManifests(manifest(spec), manifest(world(allSecrets())))).toEqual([]);
    const rotated = world([
      ...secrets.filter((s) => s.name !== "tickets"),
      tickets("tickets", ticketKey(), newest),
    ]);
    expect(diffManifests(manifest(spec), manifest(rotated)).map((c) => [c.name, c.change])).toEqual(
      [["tickets", "modified"]],
    );
  });

  it("shows a generic secret's and ticket keys' Envoy form without their values", () => {
    expect(envoyForm(spec, "secret", "hmac")).toEqual([
      { "@type": TypeUrl.Secret, name: "hmac", generic_secret: {} },
    ]);
    expect(envoyForm(spec, "secret", "tickets")).toEqual([
      { "@type": TypeUrl.Secret, name: "tickets", session_ticket_keys: {} },
    ]);
  });

  it("exports the SDS references of the OAuth2 filter and the TLS context but no value", () => {
    const text = exportEnvoyConfig(spec, { format: "yaml" });
    for (const value of clear) expect(text).not.toContain(value);
    expect(text).not.toMatch(/sy[12]\./);
    // In Envoy's own field names, as its docs and config_dump write them.
    expect(text).toContain("session_ticket_keys_sds_secret_config");
    expect(text).toContain("token_secret");
  });
});
