/**
 * Secret resources in imported config: each of the four kinds stored as a secret, sealed, with a
 * note; material read from the proxy's host refused at its field; no value ever echoed. Built from
 * YAML written here (no corpus file holds a Secret).
 */
import { randomBytes } from "node:crypto";
import { createTestCa } from "@switchyard/testing";
import { describe, expect, it } from "vitest";
import { compile } from "../compile.js";
import { configSpecOf } from "../model.js";
import { createSecretBox } from "../secret-box.js";
import { openValue } from "../secret-values.js";
import { validate } from "../validate/validate.js";
import { type ImportResult, importEnvoyConfig, parseEnvoyConfig } from "./envoy-import.js";

const box = createSecretBox(randomBytes(32));
const ca = createTestCa("import secrets CA");
const edge = ca.issueServer({ commonName: "edge.example", dns: ["edge.example"] });

const key1 = randomBytes(80);
const key2 = randomBytes(80);
const hmac = randomBytes(32);
const TOKEN = "the-client-secret-value";

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
/** A bootstrap's static_resources with one Secret of each kind, and a listener naming them. */
const BOOTSTRAP = `static_resources:
  secrets:
    - name: edge-cert
      tls_certificate:
        certificate_chain: { inline_string: ${JSON.stringify(edge.cert)} }
        private_key: { inline_string: ${JSON.stringify(edge.key)} }
    - name: upstream-ca
      validation_context:
        trusted_ca: { inline_string: ${JSON.stringify(ca.cert)} }
        match_typed_subject_alt_names: [{ san_type: DNS, matcher: { exact: backend.internal } }]
    - name: oauth-token
      generic_secret: { secret: { inline_string: ${TOKEN} } }
    - name: oauth-hmac
      generic_secret: { secret: { inline_bytes: ${b64(hmac)} } }
    - name: tickets
      session_ticket_keys:
        keys: [{ inline_bytes: ${b64(key1)} }, { inline_bytes: ${b64(key2)} }]
  listeners:
    - name: edge
      address: { socket_address: { address: 0.0.0.0, port_value: 8443 } }
      filter_chains:
        - filters:
            - name: envoy.filters.network.http_connection_manager
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                stat_prefix: edge
                route_config: { name: local, virtual_hosts: [{ name: all, domains: ["*"], routes: [{ match: { prefix: / }, direct_response: { status: 200 } }] }] }
                http_filters:
                  - name: envoy.filters.http.router
                    typed_config: { "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router }
          transport_socket:
            name: envoy.transport_sockets.tls
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
              common_tls_context:
                tls_certificate_sds_secret_configs: [{ name: edge-cert }]
              session_ticket_keys_sds_secret_config: { name: tickets }
`;

/** The import of `text`, sealing with the test's secrets key, or with none (`sealing: false`). */
function imported(text: string, sealing = true) {
  const parsed = parseEnvoyConfig(text, { filename: "secrets.yaml" });
  if ("errors" in parsed) throw new Error(JSON.stringify(parsed.errors, null, 2));
  return importEnvoyConfig(parsed.resources, sealing ? { seal: box.seal } : {});
}

const errors = (result: ImportResult) =>
  result.issues.filter((i) => i.severity === "error").map((i) => [i.path, i.message]);

/** One Secret resource with "@type", `body` its fields after the name. */
const secretResource = (body: string) =>
  `- "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret\n  name: s\n  ${body}\n`;

describe("importing Secret resources", () => {
  const result = imported(BOOTSTRAP);
  const byName = new Map(result.spec.secrets.map((s) => [s.name, s]));

  it("stores a bootstrap's static secrets of all four kinds, with no error", () => {
    expect(errors(result)).toEqual([]);
    expect(result.spec.secrets.map((s) => [s.name, s.type])).toEqual([
      ["edge-cert", "TLS_CERTIFICATE"],
      ["oauth-hmac", "GENERIC_SECRET"],
      ["oauth-token", "GENERIC_SECRET"],
      ["tickets", "SESSION_TICKET_KEYS"],
      ["upstream-ca", "VALIDATION_CONTEXT"],
    ]);
    expect(byName.get("upstream-ca")).toMatchObject({
      trustedCa: ca.cert,
      matchSubjectAltNames: ["backend.internal"],
    });
  });

  it("seals a private key and every value at once: the stored secrets hold none in the clear", () => {
    const text = JSON.stringify(result.spec.secrets);
    for (const clear of [TOKEN, b64(hmac), b64(key1), b64(key2), "PRIVATE KEY"]) {
      expect(text).not.toContain(clear);
    }
    const values = (name: string) =>
      (byName.get(name)?.values ?? []).map((v) => Buffer.from(openValue(box.open, v)));
    expect(values("oauth-token")).toEqual([Buffer.from(TOKEN)]);
    expect(values("oauth-hmac")).toEqual([hmac]);
    expect(values("tickets")).toEqual([key1, key2]);
    expect(box.open(byName.get("edge-cert")?.privateKey ?? "")).toContain("BEGIN PRIVATE KEY");
  });

  it("notes each sealed secret by name and size, echoing no value", () => {
    const notes = result.issues.filter((i) => i.severity === "info").map((i) => i.message);
    expect(notes).toContain(
      'stored as generic secret "oauth-token" (23 bytes): the value is sealed at rest and never shown back',
    );
    expect(notes).toContain(
      'stored as session ticket keys "tickets" (2 keys, the first encrypts new tickets): the keys are sealed at rest and never shown back',
    );
    expect(notes).toContain(
      'stored as TLS certificate secret "edge-cert": its private key is sealed at rest and never shown back',
    );
    const text = JSON.stringify(result.issues);
    for (const clear of [TOKEN, b64(hmac), b64(key1)]) expect(text).not.toContain(clear);
  });

  it("validates and serves the listener that names the imported certificate and ticket keys", () => {
    const spec = configSpecOf({ ...result.spec });
    const compiled = compile(spec, { openSecret: box.open });
    expect(compiled.issues).toEqual([]);
    expect(
      validate(spec, { compiled, openSecret: box.open }).issues.filter(
        (i) => i.severity === "error",
      ),
    ).toEqual([]);
  });

  it("refuses a value read from a file or an environment variable at its field, saying to upload it", () => {
    expect(
      errors(imported(secretResource("generic_secret: { secret: { filename: /etc/token } }"))),
    ).toEqual([
      [
        "[0].generic_secret.secret.filename",
        "the value is read from the proxy's own host, which Switchyard cannot store as a value: upload it (switchyard secret create generic NAME --from-file FILE) and name it over SDS",
      ],
    ]);
    expect(
      errors(
        imported(
          secretResource(
            `session_ticket_keys: { keys: [{ inline_bytes: ${b64(key1)} }, { environment_variable: TICKET_KEY }] }`,
          ),
        ),
      ),
    ).toEqual([
      [
        "[0].session_ticket_keys.keys[1].environment_variable",
        "the key is read from the proxy's own host, which Switchyard cannot store as a value: upload it (switchyard secret create session-ticket-keys NAME --from-file FILE...) and name it over SDS",
      ],
    ]);
    expect(
      errors(
        imported(
          secretResource(
            "tls_certificate: { certificate_chain: { filename: /c.pem }, private_key: { filename: /k.pem } }",
          ),
        ),
      ).map(([path]) => path),
    ).toEqual(["[0].tls_certificate.certificate_chain.filename"]);
  });

  it("refuses a session ticket key that is not 80 bytes at the key, saying its size only", () => {
    const short = randomBytes(32);
    const result = imported(
      secretResource(`session_ticket_keys: { keys: [{ inline_bytes: ${b64(short)} }] }`),
    );
    expect(errors(result)).toEqual([
      [
        "[0].session_ticket_keys.keys[0]",
        "session ticket key 0 is 32 bytes: Envoy takes a session ticket key of exactly 80 bytes (make one with `openssl rand 80`)",
      ],
    ]);
    expect(result.spec.secrets).toEqual([]);
  });

  it("refuses an empty generic secret, and a Secret field a stored secret does not hold, at the field", () => {
    expect(
      errors(imported(secretResource('generic_secret: { secret: { inline_string: "" } }'))),
    ).toEqual([["[0].generic_secret.secret", "the value is empty"]]);
    expect(
      errors(
        imported(
          secretResource(
            `tls_certificate: { certificate_chain: { inline_string: ${JSON.stringify(edge.cert)} }, private_key: { inline_string: ${JSON.stringify(edge.key)} }, ocsp_staple: { inline_string: x } }`,
          ),
        ),
      ).map(([path]) => path),
    ).toEqual(["[0].tls_certificate.ocsp_staple"]);
  });

  it("refuses a value without the server's secrets key: it can only be stored sealed", () => {
    const result = imported(
      secretResource(`generic_secret: { secret: { inline_string: ${TOKEN} } }`),
      false,
    );
    expect(errors(result)).toEqual([
      [
        "[0].generic_secret",
        "a secret value is sealed with the server's secrets key, and none was given here: import it through the server (switchyard apply, the console's Import page)",
      ],
    ]);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it("gives an inline certificate moved to SDS another name than a Secret of the document", () => {
    const text = `${secretResource(`generic_secret: { secret: { inline_string: x } }`).replace("name: s", "name: edge-tls")}- "@type": type.googleapis.com/envoy.config.listener.v3.Listener
  name: edge
  address: { socket_address: { address: 0.0.0.0, port_value: 8443 } }
  filter_chains:
    - filters:
        - name: envoy.filters.network.tcp_proxy
          typed_config: { "@type": type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy, stat_prefix: t, cluster: backend }
      transport_socket:
        name: envoy.transport_sockets.tls
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
          common_tls_context:
            tls_certificates:
              - certificate_chain: { inline_string: ${JSON.stringify(edge.cert)} }
                private_key: { inline_string: ${JSON.stringify(edge.key)} }
`;
    const result = imported(text);
    expect(errors(result)).toEqual([]);
    expect(result.spec.secrets.map((s) => [s.name, s.type])).toEqual([
      ["edge-tls", "GENERIC_SECRET"],
      ["edge-tls-2", "TLS_CERTIFICATE"],
    ]);
  });
});
