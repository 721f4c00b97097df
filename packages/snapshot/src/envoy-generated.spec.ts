/**
 * Generated Envoy resources (test/envoy-arbitrary.ts: any message valid by the rules Envoy's
 * protos declare, its extensions drawn from the categories their places take) import, validate
 * and export back equal after the documented normalizations, or are refused by a stated policy:
 *   - parse or import errors: each must match a REFUSALS entry (a README policy or an Envoy rule,
 *     named beside it); any other refusal fails, printing the case;
 *   - validation errors of an imported case: each must be one of POLICIES (by code, and for codes
 *     that also cover other rules, by message), else it fails;
 *   - an imported case exports as its input normalized (test/round-trip.ts), and its export
 *     imports as the same spec.
 * A resource of each type alone, and sets of them that name each other (a listener and the route
 * configuration it loads over RDS, routes and their clusters, an EDS cluster and its assignment).
 *
 * `npm test` runs a fixed seed; `npm run test:generated` runs longer with a new seed each time,
 * printed (SWITCHYARD_GENERATED_RUNS, SWITCHYARD_GENERATED_SEED: a number, or "random"). A failure
 * prints fast-check's counterexample with its seed and path: rerun it with that seed.
 */
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SETS, SINGLES } from "../test/envoy-generated-cases.js";
import { expectExportsAsNormalized } from "../test/round-trip.js";
import { compile } from "./compile.js";
import { exportEnvoyConfig } from "./envoy/envoy-export.js";
import { configSpec } from "./fixtures.js";
import {
  type ImportError,
  importEnvoyConfig,
  parseEnvoyConfig,
  resourceName,
} from "./import/envoy-import.js";
import type { JsonObject } from "./model.js";
import { createSecretBox } from "./secret-box.js";
import { TypeUrl } from "./serving/resource-snapshot.js";
import { validate } from "./validate/validate.js";
import type { ValidationCode } from "./validate/validate-issues.js";

const seedSetting = process.env.SWITCHYARD_GENERATED_SEED;
const SEED =
  seedSetting === undefined
    ? 20_260_301
    : seedSetting === "random"
      ? Math.floor(Math.random() * 2 ** 31)
      : Number(seedSetting);
const RUNS = Number(process.env.SWITCHYARD_GENERATED_RUNS ?? 60);
if (seedSetting !== undefined || process.env.SWITCHYARD_GENERATED_RUNS !== undefined) {
  console.log(`generated Envoy resources: seed ${SEED}, ${RUNS} runs per property`);
}

const box = createSecretBox(randomBytes(32));
const sealing = { seal: box.seal };

/**
 * The refusals a valid Envoy resource may meet at parse or import, each a stated policy (the
 * README section named) or a rule Envoy enforces in its C++ beyond what its protos declare.
 */
const REFUSALS: readonly RegExp[] = [
  // README "Secrets (SDS)": a Secret holds its own type's fields, its material inline (a file or an
  // environment variable of the proxy's host cannot be stored as a value), as PEM where it is a
  // certificate or key; Envoy takes a session ticket key of exactly 80 bytes
  // (ServerContextConfigImpl::getSessionTicketKey), and a generic secret holds a value.
  /^a TLS certificate secret holds a certificate chain and its private key: .* cannot be stored with them$/,
  /^a validation context secret holds trusted CAs and DNS SANs to match exactly: /,
  /^a validation context secret is stored as the CAs it trusts: give trusted_ca/,
  /^a stored validation context matches DNS SANs exactly .*; another matcher cannot be stored$/,
  /^a TLS certificate secret needs its certificate chain and private key, inline$/,
  /^the Secret holds none of tls_certificate, validation_context, generic_secret or session_ticket_keys$/,
  / cannot be stored in a (generic secret|set of session ticket keys)$/,
  /is read from the proxy's own host, which Switchyard cannot store as a value: upload it/,
  /^(the value|session ticket key \d+) (is \d+ bytes|is empty|holds no|is more than)|^the (generic secret|set of session ticket keys) holds no (value|key)/,
  /(private key|certificate chain|trusted CA)s? (is not a PEM private key|holds no PEM certificate|holds text outside its PEM certificate blocks)/,
  // README "Runtime layers": typed entries, a string, a number or a boolean.
  /^runtime key ".*" holds (a list|null|an object|a FractionalPercent)/,
  // README "Real Envoy configuration", Private keys: a secret inline in a sensitive field, and an
  // inline private key without the chain it is sealed with.
  /^a secret written inline here cannot be stored \(it would be shown back\)/,
  /^an inline private key goes into an SDS secret, sealed, with its certificate chain/,
  // README "Real Envoy configuration", Modelled: an HTTP connection manager takes RDS or inline
  // routes (scoped routes are not stored).
  /^scoped_routes cannot be stored: use rds or an inline route_config$/,
  // Envoy's ListenerImpl: a listener binds an address unless it is an api_listener or an
  // internal listener; an Address is one of its kinds ("Address must be set").
  /^the address is empty: give a socket_address, a pipe or an envoy_internal_address/,
  // The model's durations (connect_timeout, a route's timeout) are whole milliseconds, at most
  // 2^31-1 (envoy-import.spec.ts, "rejects ... what the model cannot hold").
  /^\d+(\.\d+)?s cannot be stored: Switchyard keeps durations in whole milliseconds$/,
  /^\d+(\.\d+)?s is longer than Switchyard can store$/,
  // The model holds EDS endpoints from ClusterLoadAssignments, endpoints by address (not by
  // name: named_endpoints), a weighted cluster's weight as a number, and eds_cluster_config on
  // EDS clusters only (elsewhere Envoy ignores it: a mistake).
  /^an EDS cluster's load_assignment cannot be stored: send the endpoints as a ClusterLoadAssignment$/,
  /^endpoint_name cannot be stored: give the endpoint's address$/,
  // Envoy's WeightedClustersConfigEntry: PROTOBUF_GET_WRAPPED_REQUIRED(cluster, weight).
  /^a weighted cluster needs its weight: Envoy refuses one without/,
];

/**
 * Validation errors a valid Envoy resource may get, by code (and message, where a code covers
 * other rules too): an Envoy rule its protos do not declare, or a policy validate-issues.ts states.
 */
const POLICIES: Readonly<Partial<Record<ValidationCode, RegExp | true>>> = {
  // A case holds the objects it names only by chance: a name it refers to may be missing.
  "dangling-cluster-reference": true,
  "dangling-route-configuration-reference": true,
  "dangling-listener-reference": true,
  "dangling-secret-reference": true,
  // Envoy's ListenerImpl: a TCP listener needs a filter chain ("no filter chains specified"), a
  // UDP one takes none, an api_listener one; two default chains are one too many.
  "filter-chain-count": true,
  // Envoy: an internal address is no listener address ("use internal_listener field instead");
  // a DNS cluster resolves only socket addresses.
  "invalid-address":
    /internal address|cluster resolves host names of socket addresses|internal listener address with no listener name/,
  // Envoy's config_impl.cc: a weighted cluster names a cluster or a cluster_header ("At least one
  // of name or cluster_header need to be specified"), and the weights sum to more than 0.
  "incomplete-route-action": /weighted cluster \d+ of route \d+ .*names no cluster/,
  "invalid-weight": /gives every cluster weight 0/,
  // README "What is refused ... and why": names are unique per route configuration for its
  // virtual hosts (the model's keys), a policy (Envoy does not check them).
  "duplicate-name": /has two virtual hosts named/,
  // README "Secrets (SDS)": what a stored secret must hold to be served.
  "invalid-certificate": true,
  "missing-private-key": true,
  "invalid-subject-alt-name": true,
  "missing-secret-value": true,
  "invalid-secret-value": true,
  "secret-field-for-other-type": true,
  // Envoy: LOGICAL_DNS clusters "must have a single locality_lb_endpoint and a single lb_endpoint".
  "logical-dns-endpoint-count": true,
  // Envoy's ListenerImpl: api_listeners and internal listeners bind nothing.
  "api-listener-address": true,
  "internal-listener-feature": true,
  // README "On-demand virtual hosts": with VHDS, virtual host names may not hold "/".
  "vhds-virtual-host-name": true,
  // Envoy's RouteMatcher: "Only unique values for domains are permitted".
  "duplicate-domain": true,
  // README: a chain's HTTP connection manager is its modelled part, not among its network filters.
  "invalid-network-filter":
    /is an HTTP connection manager: a chain's HTTP connection manager is its modelled part/,
  // Policies validate-issues.ts states: no empty domain, nor one with whitespace or control
  // characters; an endpoint's port from 1; names and runtime keys without control characters or
  // empty parts.
  "invalid-domain": true,
  "invalid-port": /endpoint \d+ of locality \d+ of cluster .* has port 0;/,
  "invalid-name": /contains (whitespace or )?control characters|is empty/,
  "invalid-runtime-key": true,
};

type Outcome = "refused" | "imported";

interface Tally {
  refused: number;
  imported: number;
}

const errorsOf = (issues: readonly ImportError[]) => issues.filter((i) => i.severity === "error");

/** A failure of the property, with the case it was found on. */
function failure(what: string, documents: readonly JsonObject[], details: unknown): Error {
  return new Error(
    `${what}\n${JSON.stringify(details, null, 2)}\ncase:\n${JSON.stringify(documents, null, 2)}`,
  );
}

/** The property, for one case (resources with "@type"). */
function checkCase(documents: readonly JsonObject[]): Outcome {
  const text = JSON.stringify(documents);
  const parsed = parseEnvoyConfig(text, { filename: "case.json" });
  if ("errors" in parsed) {
    const unstated = parsed.errors.filter((e) => !REFUSALS.some((r) => r.test(e.message)));
    if (unstated.length > 0)
      throw failure("refused at parse, by no stated policy", documents, unstated);
    return "refused";
  }
  const { spec: fragment, issues } = importEnvoyConfig(parsed.resources, sealing);
  const errors = errorsOf(issues);
  if (errors.length > 0) {
    const unstated = errors.filter((e) => !REFUSALS.some((r) => r.test(e.message)));
    if (unstated.length > 0)
      throw failure("refused at import, by no stated policy", documents, unstated);
    return "refused";
  }
  const spec = configSpec(fragment);
  const compiled = compile(spec, { openSecret: box.open });
  const report = validate(spec, { compiled });
  const unstated = report.issues.filter((issue) => {
    if (issue.severity !== "error") return false;
    const policy = POLICIES[issue.code];
    return policy === undefined || (policy !== true && !policy.test(issue.message));
  });
  if (unstated.length > 0)
    throw failure("validation refuses it, by no stated policy", documents, unstated);
  try {
    // Secrets are stored sealed and never exported: each is stored under its name, and the rest
    // exports back as it was.
    const secrets = parsed.resources.filter((r) => r.typeUrl === TypeUrl.Secret);
    expect(spec.secrets.map((s) => s.name).sort()).toEqual(
      [...new Set(secrets.map((r) => resourceName(r)))].sort(),
    );
    expectExportsAsNormalized(
      parsed.resources.filter((r) => r.typeUrl !== TypeUrl.Secret),
      spec,
    );
    const exported = exportEnvoyConfig(spec, { format: "yaml" });
    const again = parseEnvoyConfig(exported, { filename: "export.yaml" });
    if ("errors" in again) throw failure("its export does not parse", documents, again.errors);
    const reimport = importEnvoyConfig(again.resources);
    expect(errorsOf(reimport.issues)).toEqual([]);
    // Secrets are never exported: the listeners and clusters name them.
    expect(configSpec(reimport.spec)).toEqual({ ...spec, secrets: [] });
  } catch (error) {
    if (error instanceof Error && error.message.includes("\ncase:\n")) throw error;
    // An assertion's own message elides its objects: show both sides whole.
    const { actual, expected } = error as { actual?: unknown; expected?: unknown };
    throw failure("imported, but does not export back equal", documents, {
      error: String(error),
      ...(actual === undefined ? {} : { exported: actual, expected }),
    });
  }
  return "imported";
}

function property(cases: fc.Arbitrary<JsonObject[]>, tally: Tally) {
  fc.assert(
    fc.property(cases, (documents) => {
      tally[checkCase(documents)]++;
    }),
    { seed: SEED, numRuns: RUNS },
  );
}

describe("generated Envoy resources import, publish and export back equal, or are refused by a stated policy", () => {
  for (const [what, cases] of SINGLES) {
    it(what, () => {
      const tally = { refused: 0, imported: 0 };
      property(cases, tally);
      expect(tally.refused + tally.imported).toBe(RUNS);
    });
  }

  it("a set: listeners, the route configurations they load, their clusters and assignments", () => {
    const tally = { refused: 0, imported: 0 };
    property(SETS, tally);
    expect(tally.refused + tally.imported).toBe(RUNS);
  });
});
