/**
 * The cases of the Envoy importer's two steps: parseEnvoyConfig (text to decoded resources, or
 * errors at their path) and importEnvoyConfig (resources to the stored model), and a check that
 * the test corpus they read is valid Envoy. Long because the three share the corpus and the YAML
 * builders (EDS_CLUSTER_YAML, listenerYaml).
 */
import { readFileSync } from "node:fs";
import {
  type DescMessage,
  equals,
  fromJson,
  getOption,
  hasOption,
  type JsonValue as ProtoJson,
  toJson,
} from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation, isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import { BootstrapSchema } from "@switchyard/proto/envoy/config/bootstrap/v3/bootstrap_pb";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { expectExportsAsNormalized } from "../../test/round-trip.js";
import { configSpec } from "../fixtures.js";
import type { JsonObject } from "../model.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import {
  type DecodedResource,
  type ImportError,
  importEnvoyConfig,
  parseEnvoyConfig,
  resourceJson,
  resourceName,
  resourceSchema,
} from "./envoy-import.js";

const CORPUS = ["edge-proxy.yaml", "sidecar.yaml", "grpc-proxyless.json", "gateway.yaml"] as const;

function corpusText(file: string): string {
  return readFileSync(new URL(`../../test/corpus/${file}`, import.meta.url), "utf8");
}

function resourcesOf(text: string, filename?: string): readonly DecodedResource[] {
  const result = parseEnvoyConfig(text, filename === undefined ? {} : { filename });
  if ("errors" in result)
    throw new Error(`unexpected errors: ${JSON.stringify(result.errors, null, 2)}`);
  return result.resources;
}

function errorsOf(text: string, filename?: string): readonly ImportError[] {
  const result = parseEnvoyConfig(text, filename === undefined ? {} : { filename });
  if (!("errors" in result)) throw new Error("expected errors");
  return result.errors;
}

/** `text` indented by `spaces`, blank lines left alone: for nesting YAML snippets. */
function indent(text: string, spaces = 2): string {
  return text.replace(/^(?=.)/gm, " ".repeat(spaces));
}

const CLUSTER = TypeUrl.Cluster;
const LISTENER = TypeUrl.Listener;
const HCM =
  "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager";

/** An HTTP connection manager Envoy accepts: a stat prefix and its routes over RDS. */
const EDGE_HCM =
  "stat_prefix: edge\nrds: { route_config_name: edge-routes, config_source: { ads: {}, resource_api_version: V3 } }";

/** A listener on `port` with one HTTP connection manager whose typed config lines are `hcm`. */
function listenerYaml(name: string, port: number, hcm: string): string {
  return `- "@type": ${LISTENER}
  name: ${name}
  address: { socket_address: { address: 0.0.0.0, port_value: ${port} } }
  filter_chains:
    - filters:
        - name: envoy.filters.network.http_connection_manager
          typed_config:
            "@type": ${HCM}
${hcm
  .trim()
  .split("\n")
  .map((line) => `            ${line}`)
  .join("\n")}
`;
}

const EDS_CLUSTER_YAML = `- "@type": ${CLUSTER}
  name: backend
  type: EDS
  connect_timeout: 0.25s
  lb_policy: ROUND_ROBIN
  eds_cluster_config: { eds_config: { ads: {}, resource_api_version: V3 }, service_name: backend.prod }
`;

describe("parseEnvoyConfig", () => {
  it("reads a list of resources with @type in YAML or JSON into the same messages", () => {
    const yaml = resourcesOf(EDS_CLUSTER_YAML);
    const json = resourcesOf(JSON.stringify(parseYaml(EDS_CLUSTER_YAML)), "cluster.json");
    expect(yaml).toHaveLength(1);
    const [a] = yaml;
    const [b] = json;
    if (a?.typeUrl !== CLUSTER || b?.typeUrl !== CLUSTER) throw new Error("expected clusters");
    expect(a.message.name).toBe("backend");
    expect(a.message.edsClusterConfig?.serviceName).toBe("backend.prod");
    expect(equals(resourceSchema(CLUSTER), a.message, b.message)).toBe(true);
    expect(a.path).toBe("[0]");
  });

  it("accepts proto field names and JSON field names alike", () => {
    const snake = resourcesOf(EDS_CLUSTER_YAML);
    const camel = resourcesOf(`- "@type": ${CLUSTER}
  name: backend
  type: EDS
  connectTimeout: 0.25s
  lbPolicy: ROUND_ROBIN
  edsClusterConfig: { edsConfig: { ads: {}, resourceApiVersion: V3 }, serviceName: backend.prod }
`);
    const [a] = snake;
    const [b] = camel;
    if (!a || !b) throw new Error("expected resources");
    expect(resourceJson(a)).toEqual(resourceJson(b));
  });

  it("reads { resources: [...] } and a DiscoveryResponse of one type", () => {
    const wrapped = resourcesOf(`resources:\n${indent(EDS_CLUSTER_YAML)}`);
    expect(wrapped.map((r) => r.path)).toEqual(["resources[0]"]);
    const response = resourcesOf(
      JSON.stringify({
        version_info: "42",
        type_url: CLUSTER,
        nonce: "n1",
        resources: parseYaml(EDS_CLUSTER_YAML),
      }),
    );
    expect(response.map((r) => resourceName(r))).toEqual(["backend"]);
  });

  it("rejects a DiscoveryResponse resource whose @type differs from the response's type_url", () => {
    const errors = errorsOf(
      JSON.stringify({
        version_info: "1",
        type_url: LISTENER,
        resources: parseYaml(EDS_CLUSTER_YAML),
      }),
    );
    expect(errors).toEqual([
      expect.objectContaining({
        path: 'resources[0]["@type"]',
        message: `"@type" "${CLUSTER}" differs from the response's type_url "${LISTENER}"`,
      }),
    ]);
  });

  it("reads a bootstrap's static_resources and names the bootstrap parts it does not import", () => {
    const result = parseEnvoyConfig(`node: { id: edge-1 }
static_resources:
  clusters:
    - name: web
      type: STRICT_DNS
      load_assignment:
        cluster_name: web
        endpoints:
          - lb_endpoints:
              - endpoint: { address: { socket_address: { address: web.internal, port_value: 80 } } }
`);
    if ("errors" in result) throw new Error("unexpected errors");
    expect(result.resources.map((r) => [r.typeUrl, resourceName(r), r.path])).toEqual([
      [CLUSTER, "web", "static_resources.clusters[0]"],
    ]);
    expect(result.warnings).toEqual([
      {
        severity: "warning",
        path: "node",
        message:
          "not imported: Switchyard takes only static_resources (clusters, listeners and secrets) from a bootstrap",
        line: 1,
        column: 1,
      },
    ]);
  });

  it("reads bare static_resources", () => {
    const resources = resourcesOf(`clusters:
  - name: a
    connect_timeout: 1s
listeners:
  - name: l
    address: { socket_address: { address: 0.0.0.0, port_value: 80 } }
`);
    expect(resources.map((r) => r.path)).toEqual(["clusters[0]", "listeners[0]"]);
  });

  it("reads every document of a multi-document YAML file and locates errors by document", () => {
    const two = `${EDS_CLUSTER_YAML}---\n${EDS_CLUSTER_YAML.replace("name: backend", "name: other")}`;
    expect(resourcesOf(two).map((r) => [resourceName(r), r.document])).toEqual([
      ["backend", 0],
      ["other", 1],
    ]);
    const errors = errorsOf(
      `${EDS_CLUSTER_YAML}---\n${EDS_CLUSTER_YAML.replace("lb_policy", "lb_polcy")}`,
    );
    expect(errors).toEqual([
      expect.objectContaining({ document: 1, path: "[0].lb_polcy", line: 12, column: 3 }),
    ]);
  });

  it("decodes typed configs in Any fields with the generated types", () => {
    const [listener] = resourcesOf(
      listenerYaml(
        "edge",
        80,
        `stat_prefix: edge
route_config: { name: r, virtual_hosts: [{ name: all, domains: ["*"], routes: [{ match: { prefix: / }, route: { cluster: backend } }] }] }
http_filters:
  - name: envoy.filters.http.router
    typed_config:
      "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
      suppress_envoy_headers: true`,
      ),
    );
    if (listener?.typeUrl !== LISTENER) throw new Error("expected a listener");
    const hcm = listener.message.filterChains[0]?.filters[0];
    expect(hcm?.configType.case).toBe("typedConfig");
    expect(resourceJson(listener)).toMatchObject({
      filterChains: [
        {
          filters: [
            {
              typedConfig: {
                "@type": HCM,
                statPrefix: "edge",
                httpFilters: [{ typedConfig: { suppressEnvoyHeaders: true } }],
              },
            },
          ],
        },
      ],
    });
  });

  describe("reports each kind of error with the exact path and reason", () => {
    const cases: readonly {
      readonly rule: string;
      readonly text: string;
      readonly filename?: string;
      readonly error: Partial<ImportError>;
    }[] = [
      {
        rule: "an unknown field, in the user's spelling, inside a typed config",
        text: `resources:\n${indent(EDS_CLUSTER_YAML + EDS_CLUSTER_YAML.replace("backend", "two") + listenerYaml("edge", 80, "stat_prefx: ingress"))}`,
        error: {
          path: "resources[2].filter_chains[0].filters[0].typed_config.stat_prefx",
          message:
            'unknown field "stat_prefx" in envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager (did you mean "stat_prefix"?): not in the Envoy API bundled with Switchyard (@grpc/grpc-js-xds 1.14.1); a field of a newer Envoy release is taken once that release\'s API is loaded (switchyard schema add)',
          line: 22,
          column: 15,
        },
      },
      {
        rule: "a wrong type",
        text: EDS_CLUSTER_YAML.replace(
          "lb_policy: ROUND_ROBIN",
          "per_connection_buffer_limit_bytes: abc",
        ),
        error: {
          path: "[0].per_connection_buffer_limit_bytes",
          message: 'expected a number, got string "abc"',
        },
      },
      {
        rule: "a wrong type for a well-known type",
        text: EDS_CLUSTER_YAML.replace("0.25s", "250ms"),
        error: {
          path: "[0].connect_timeout",
          message: 'expected a duration such as "1.5s", got string "250ms"',
        },
      },
      {
        rule: "a bad enum value",
        text: EDS_CLUSTER_YAML.replace("ROUND_ROBIN", "ROUND_ROBBIN"),
        error: {
          path: "[0].lb_policy",
          message:
            'unknown enum value "ROUND_ROBBIN" for envoy.config.cluster.v3.Cluster.LbPolicy (expected one of ROUND_ROBIN, LEAST_REQUEST, RING_HASH, RANDOM, MAGLEV, CLUSTER_PROVIDED, LOAD_BALANCING_POLICY_CONFIG)',
        },
      },
      {
        rule: "a resource of a type Switchyard does not store",
        text: `- "@type": type.googleapis.com/envoy.config.route.v3.ScopedRouteConfiguration\n  name: s\n`,
        error: {
          path: '[0]["@type"]',
          message:
            'unsupported resource @type "type.googleapis.com/envoy.config.route.v3.ScopedRouteConfiguration": expected one of envoy.config.cluster.v3.Cluster, envoy.config.endpoint.v3.ClusterLoadAssignment, envoy.config.listener.v3.Listener, envoy.config.route.v3.RouteConfiguration, envoy.service.runtime.v3.Runtime, envoy.extensions.transport_sockets.tls.v3.Secret',
        },
      },
      {
        rule: "a Secret whose bytes are not base64, without quoting them",
        text: `- "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret\n  name: s\n  generic_secret: { secret: { inline_bytes: "hunter2!!" } }\n`,
        error: {
          path: "[0].generic_secret.secret.inline_bytes",
          message: "expected base64 bytes, got a string (not shown)",
        },
      },
      {
        rule: "two members of one oneof",
        text: `- "@type": ${TypeUrl.RouteConfiguration}
  name: r
  virtual_hosts: [{ name: all, domains: ["*"], routes: [{ match: { prefix: /, path: /x }, direct_response: { status: 200 } }] }]
`,
        error: {
          path: "[0].virtual_hosts[0].routes[0].match.path",
          message:
            '"path" and "prefix" are alternatives (oneof path_specifier of envoy.config.route.v3.RouteMatch): set only one',
        },
      },
      {
        rule: "one field given by both of its names",
        text: EDS_CLUSTER_YAML.replace(
          "lb_policy: ROUND_ROBIN",
          "lb_policy: ROUND_ROBIN\n  lbPolicy: RING_HASH",
        ),
        error: {
          path: "[0].lbPolicy",
          message: '"lbPolicy" and "lb_policy" both set lb_policy: keep one',
        },
      },
      {
        rule: "a YAML syntax error, at its line and column",
        text: `- "@type": ${CLUSTER}\n  name: [a, b\n  type: EDS\n`,
        error: {
          path: "",
          message:
            "YAML syntax error at line 3, column 3: Flow sequence in block collection must be sufficiently indented and end with a ]",
          line: 3,
          column: 3,
        },
      },
      {
        rule: "a JSON syntax error, at its line and column",
        text: `[\n  {"@type": "${CLUSTER}",\n   "name": "a",}\n]`,
        filename: "clusters.json",
        error: {
          path: "",
          message: expect.stringMatching(/^JSON syntax error at line 3, column 16: /),
          line: 3,
          column: 16,
        },
      },
      {
        rule: "a duplicate key in JSON, which JSON.parse would keep quietly",
        text: `[{"@type": "${CLUSTER}", "name": "a", "name": "b"}]`,
        filename: "clusters.json",
        error: {
          path: "",
          message: "JSON syntax error at line 1, column 80: duplicate key",
          line: 1,
          column: 80,
        },
      },
      {
        rule: "a document of an unknown shape",
        text: "hello: world\n",
        error: {
          path: "",
          message:
            'unrecognized document: expected a list of resources with "@type" (or of one named type), a DiscoveryResponse, a bootstrap or its static_resources, or an Envoy admin config dump',
        },
      },
    ];
    for (const { rule, text, filename, error } of cases) {
      it(rule, () => {
        expect(errorsOf(text, filename)).toEqual([
          expect.objectContaining({ severity: "error", ...error }),
        ]);
      });
    }
  });

  it("reports every error in the document, not just the first", () => {
    const text = `${EDS_CLUSTER_YAML.replace("ROUND_ROBIN", "ROUND_ROBBIN")}${EDS_CLUSTER_YAML.replace("name: backend", "name: 7")}${listenerYaml("edge", 99999999999, "stat_prefx: x")}`;
    expect(errorsOf(text).map((e) => [e.path, e.line])).toEqual([
      ["[0].lb_policy", 5],
      ["[1].name", 8],
      ["[2].address.socket_address.port_value", 15],
      ["[2].filter_chains[0].filters[0].typed_config.stat_prefx", 21],
    ]);
  });

  it("reports an empty file as such", () => {
    expect(errorsOf("# nothing here\n")).toEqual([
      expect.objectContaining({
        path: "",
        message: expect.stringMatching(/^the text holds no Envoy config/),
      }),
    ]);
  });
});

/**
 * A check of the corpus against the protoc-gen-validate rules Envoy validates its config with
 * (carried as `validate.rules` / `validate.required` options in the generated descriptors), and
 * against deprecated fields. It covers the rules the corpus can meet: required messages, oneofs
 * and durations, string lengths, numeric and duration bounds, list sizes, defined enum values.
 */
function extension(name: string) {
  const found = registry.getExtension(name);
  if (!found) throw new Error(`${name} is not in the registry`);
  return found;
}
const RULES = extension("validate.rules");
const REQUIRED = extension("validate.required");
const FIELD_RULES = registry.getMessage("validate.FieldRules");
const NUMERIC_RULES = [
  "uint32",
  "int32",
  "uint64",
  "int64",
  "double",
  "float",
  "fixed32",
  "fixed64",
];

/** Seconds of a canonical Duration ("0.250s"), or the number itself. */
function asNumber(value: unknown): number {
  return typeof value === "string" ? Number.parseFloat(value) : Number(value ?? 0);
}

/** A bound of `rule` that `n` breaks: "gt 0s". */
function brokenBound(rule: JsonObject, n: number): string | undefined {
  const tests: Record<string, (bound: number) => boolean> = {
    gt: (b) => n > b,
    gte: (b) => n >= b,
    lt: (b) => n < b,
    lte: (b) => n <= b,
  };
  const broken = Object.entries(tests).find(
    ([key, ok]) => rule[key] !== undefined && !ok(asNumber(rule[key])),
  );
  return broken && `${broken[0]} ${String(rule[broken[0]])}`;
}

/** What the FieldRules `rules` (as JSON) say is wrong with a field's canonical JSON `value`. */
function ruleProblems(rules: JsonObject, value: unknown, wrapper: boolean): string[] {
  const problems: string[] = [];
  const { message, ...typed } = rules;
  if ((message as JsonObject | undefined)?.required === true && value === undefined) {
    problems.push("is required");
  }
  for (const [kind, rule] of Object.entries(typed) as [string, JsonObject][]) {
    if (kind === "duration" || kind === "any") {
      if (rule.required === true && value === undefined) problems.push("is required");
      const broken =
        kind === "duration" && value !== undefined && brokenBound(rule, asNumber(value));
      if (broken) problems.push(`${String(value)} breaks ${broken}`);
    } else if (kind === "string") {
      const length = typeof value === "string" ? Buffer.byteLength(value) : 0;
      if (length < Number(rule.minLen ?? rule.minBytes ?? 0)) problems.push("is too short");
      if (length > Number(rule.maxBytes ?? Number.POSITIVE_INFINITY)) problems.push("is too long");
    } else if (kind === "repeated") {
      const items = Array.isArray(value) ? value : [];
      if (items.length < Number(rule.minItems ?? 0)) problems.push("has too few items");
      const itemRules = rule.items as JsonObject | undefined;
      for (const [i, item] of itemRules ? items.entries() : []) {
        problems.push(...ruleProblems(itemRules ?? {}, item, false).map((p) => `[${i}] ${p}`));
      }
    } else if (kind === "map") {
      if (Object.keys(value ?? {}).length < Number(rule.minPairs ?? 0))
        problems.push("has too few entries");
    } else if (kind === "enum") {
      if (rule.definedOnly === true && typeof value === "number")
        problems.push(`${value} is not defined`);
    } else if (NUMERIC_RULES.includes(kind) && !(wrapper && value === undefined)) {
      const broken = brokenBound(rule, asNumber(value));
      if (broken) problems.push(`${String(value ?? 0)} breaks ${broken}`);
    }
  }
  return problems;
}

/** Every validate-rule violation and deprecated field in a message given as canonical JSON. */
function validationProblems(desc: DescMessage, json: unknown, path: string): string[] {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return [];
  const object = json as Record<string, unknown>;
  if (desc.typeName === "google.protobuf.Any") {
    const type = String(object["@type"] ?? "");
    const inner = registry.getMessage(type.slice(type.lastIndexOf("/") + 1));
    return inner && !hasCustomJsonRepresentation(inner)
      ? validationProblems(inner, object, path)
      : [];
  }
  if (desc.typeName.startsWith("google.protobuf.") || !FIELD_RULES) return [];
  const problems: string[] = [];
  for (const oneof of desc.oneofs) {
    const required = hasOption(oneof, REQUIRED) && getOption(oneof, REQUIRED) === true;
    if (required && !oneof.fields.some((f) => object[f.jsonName] !== undefined)) {
      problems.push(`${path}: one of ${oneof.name} is required`);
    }
  }
  for (const field of desc.fields) {
    const value = object[field.jsonName];
    const here = `${path}.${field.name}`;
    if (field.deprecated && value !== undefined) problems.push(`${here}: deprecated`);
    if (hasOption(field, RULES) && !(field.oneof && value === undefined)) {
      const rules = toJson(FIELD_RULES, getOption(field, RULES) as never) as JsonObject;
      const wrapper = field.message !== undefined && isWrapperDesc(field.message);
      problems.push(...ruleProblems(rules, value, wrapper).map((p) => `${here}: ${p}`));
    }
    if (value === undefined || !field.message) continue;
    if (field.fieldKind === "message")
      problems.push(...validationProblems(field.message, value, here));
    if (field.fieldKind === "list") {
      for (const [i, item] of (value as unknown[]).entries()) {
        problems.push(...validationProblems(field.message, item, `${here}[${i}]`));
      }
    }
    if (field.fieldKind === "map") {
      for (const [key, item] of Object.entries(value as object)) {
        problems.push(
          ...validationProblems(field.message, item, `${here}[${JSON.stringify(key)}]`),
        );
      }
    }
  }
  return problems;
}

describe("the test corpus", () => {
  for (const file of CORPUS) {
    it(`${file} is valid Envoy config: it decodes with the generated types, keeps Envoy's validate rules and uses no deprecated field`, () => {
      const resources = resourcesOf(corpusText(file), file);
      expect(resources.length).toBeGreaterThan(5);
      const problems = resources.flatMap((r) =>
        validationProblems(
          resourceSchema(r.typeUrl),
          resourceJson(r),
          `${r.path}(${resourceName(r)})`,
        ),
      );
      expect(problems).toEqual([]);
    });
  }

  it("edge-proxy.yaml is a whole valid bootstrap", () => {
    const bootstrap = fromJson(
      BootstrapSchema,
      parseYaml(corpusText("edge-proxy.yaml")) as ProtoJson,
      { registry },
    );
    expect(
      validationProblems(BootstrapSchema, toJson(BootstrapSchema, bootstrap, { registry }), ""),
    ).toEqual([]);
  });

  it("the validate-rule check catches broken resources, so a clean corpus means something", () => {
    const problems = (text: string) =>
      resourcesOf(text).flatMap((r) =>
        validationProblems(resourceSchema(r.typeUrl), resourceJson(r), resourceName(r)),
      );
    expect(problems(EDS_CLUSTER_YAML.replace("0.25s", "0s"))).toEqual([
      "backend.connect_timeout: 0s breaks gt 0s",
    ]);
    expect(
      problems(
        `${EDS_CLUSTER_YAML}  health_checks: [{ timeout: 1s, interval: 5s, tcp_health_check: {} }]\n`,
      ),
    ).toEqual([
      "backend.health_checks[0].unhealthy_threshold: is required",
      "backend.health_checks[0].healthy_threshold: is required",
    ]);
    expect(
      problems(
        listenerYaml(
          "edge",
          80,
          'stat_prefix: ""\nrds: { config_source: { ads: {} }, route_config_name: r }',
        ),
      ),
    ).toEqual(["edge.filter_chains[0].filters[0].typed_config.stat_prefix: is too short"]);
    expect(
      problems(
        `- "@type": ${TypeUrl.RouteConfiguration}\n  name: r\n  virtual_hosts: [{ name: v, domains: [] }]\n`,
      ),
    ).toEqual(["r.virtual_hosts[0].domains: has too few items"]);
  });
});

describe("importEnvoyConfig", () => {
  /** The import of `text`, its issues without their line and column (tested where parsed). */
  function imported(text: string) {
    const result = importEnvoyConfig(resourcesOf(text));
    return {
      ...result,
      issues: result.issues.map(({ line: _, column: __, ...issue }) => issue),
    };
  }
  const errors = (issues: readonly ImportError[]) => issues.filter((i) => i.severity === "error");
  /** The notes parsing gives: how Envoy's lenient forms were read, what is not validated. */
  function parseNotes(text: string): readonly ImportError[] {
    const result = parseEnvoyConfig(text);
    if ("errors" in result) throw new Error(JSON.stringify(result.errors));
    return result.warnings;
  }

  it("fills an EDS cluster's localities from the ClusterLoadAssignment named by its service name", () => {
    const { spec, issues } =
      imported(`${EDS_CLUSTER_YAML}- "@type": ${TypeUrl.ClusterLoadAssignment}
  cluster_name: backend.prod
  policy: { overprovisioning_factor: 140 }
  endpoints:
    - locality: { region: eu, zone: eu-1 }
      load_balancing_weight: 3
      priority: 1
      lb_endpoints:
        - endpoint: { address: { socket_address: { address: 10.0.0.1, port_value: 8080 } }, hostname: b1 }
          health_status: HEALTHY
          load_balancing_weight: 2
`);
    expect(errors(issues)).toEqual([]);
    expect(spec.clusters[0]).toMatchObject({
      name: "backend",
      edsServiceName: "backend.prod",
      connectTimeoutMs: 250,
      assignmentExtra: { policy: { overprovisioningFactor: 140 } },
      localities: [
        {
          region: "eu",
          zone: "eu-1",
          subZone: "",
          weight: 3,
          priority: 1,
          endpoints: [
            {
              address: "10.0.0.1",
              port: 8080,
              weight: 2,
              healthStatus: "HEALTHY",
              extra: { endpoint: { hostname: "b1" } },
            },
          ],
        },
      ],
    });
  });

  it("keeps a ClusterLoadAssignment without its cluster in the document as new endpoints for a stored cluster, and its error for when there is none", () => {
    const result = imported(`${EDS_CLUSTER_YAML}- "@type": ${TypeUrl.ClusterLoadAssignment}
  cluster_name: elsewhere
  endpoints:
  - lb_endpoints:
    - endpoint: { address: { socket_address: { address: 10.0.0.9, port_value: 8080 } } }
`);
    expect(errors(result.issues)).toEqual([]);
    expect(result.spec.clusters.map((c) => c.name)).toEqual(["backend"]);
    const [assignment] = result.assignments;
    expect(assignment?.edsName).toBe("elsewhere");
    expect(assignment?.localities[0]?.endpoints[0]).toMatchObject({
      address: "10.0.0.9",
      port: 8080,
    });
    expect(assignment?.missing).toMatchObject({
      severity: "error",
      path: "[1].cluster_name",
      message:
        'no EDS cluster is named "elsewhere" or has it as eds_cluster_config.service_name, in the document or stored: a ClusterLoadAssignment needs its cluster',
    });
  });

  it("lists the EDS clusters that came without their ClusterLoadAssignment: they keep the stored endpoints", () => {
    const result = imported(EDS_CLUSTER_YAML);
    expect(errors(result.issues)).toEqual([]);
    expect(result.withoutAssignment).toEqual(["backend"]);
  });

  it("stores an inline route_config as a route configuration named by inlineRouteConfigName, deriving a missing name", () => {
    const routes = `route_config:
  virtual_hosts: [{ name: all, domains: ["*"], routes: [{ match: { prefix: / }, route: { cluster: backend } }] }]`;
    const { spec, issues } = imported(listenerYaml("edge", 80, `stat_prefix: edge\n${routes}`));
    expect(spec.listeners[0]?.filterChains[0]?.inlineRouteConfigName).toBe("edge-routes");
    expect(spec.routeConfigurations.map((rc) => rc.name)).toEqual(["edge-routes"]);
    expect(issues).toContainEqual({
      severity: "info",
      path: "[0].filter_chains[0].filters[0].typed_config.route_config.name",
      message: 'the inline route_config has no name: stored as route configuration "edge-routes"',
    });
  });

  it("renames an inline route configuration whose name another one with different content uses, with a warning", () => {
    const inline = (cluster: string) =>
      `stat_prefix: s\nroute_config: { name: local_route, virtual_hosts: [{ name: all, domains: ["*"], routes: [{ match: { prefix: / }, route: { cluster: ${cluster} } }] }] }`;
    const { spec, issues } = imported(
      `${listenerYaml("a", 80, inline("one"))}${listenerYaml("b", 81, inline("two"))}${listenerYaml("c", 82, inline("one"))}`,
    );
    expect(spec.listeners.map((l) => l.filterChains[0]?.inlineRouteConfigName)).toEqual([
      "local_route",
      "b-routes",
      "local_route",
    ]);
    expect(spec.routeConfigurations.map((rc) => rc.name)).toEqual(["b-routes", "local_route"]);
    expect(issues.filter((i) => i.severity === "warning").map((i) => i.message)).toEqual([
      'another route configuration named "local_route" has different content: this inline one is stored as "b-routes"',
    ]);
  });

  it("reads lrs_server `self` as the cluster reporting load, and keeps any other config source as written", () => {
    const { spec, issues } = imported(`- "@type": ${CLUSTER}
  name: reporting
  type: STATIC
  lrs_server: { self: {} }
- "@type": ${CLUSTER}
  name: elsewhere
  type: STATIC
  lrs_server: { ads: {} }
`);
    expect(errors(issues)).toEqual([]);
    const reporting = spec.clusters.find((c) => c.name === "reporting");
    const elsewhere = spec.clusters.find((c) => c.name === "elsewhere");
    expect(reporting?.reportLoad).toBe(true);
    expect(reporting?.extra.lrsServer).toBeUndefined();
    expect(elsewhere?.reportLoad).toBe(false);
    expect(elsewhere?.extra.lrsServer).toEqual({ ads: {} });
  });

  it("extracts modelled fields and keeps every other field in extra as canonical proto3 JSON", () => {
    const { spec, issues } = imported(`- "@type": ${CLUSTER}
  name: api
  type: STRICT_DNS
  connect_timeout: 1s
  dns_lookup_family: V4_ONLY
  load_assignment:
    cluster_name: api
    endpoints: [{ locality: {}, lb_endpoints: [{ endpoint: { address: { socket_address: { address: api.internal, port_value: 443 } } } }] }]
  transport_socket:
    name: envoy.transport_sockets.tls
    typed_config:
      "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext
      sni: api.internal
      common_tls_context:
        validation_context_sds_secret_config: { name: internal-ca, sds_config: { ads: {}, resource_api_version: V3 } }
  typed_extension_protocol_options:
    envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
      "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
      common_http_protocol_options: { idle_timeout: 60s }
      explicit_http_config: { http2_protocol_options: { max_concurrent_streams: 100 } }
`);
    expect(errors(issues)).toEqual([]);
    expect(spec.clusters[0]).toMatchObject({
      discoveryType: "STRICT_DNS",
      connectTimeoutMs: 1000,
      http2: true,
      tlsSecretName: "internal-ca",
      edsServiceName: null,
      extra: {
        dnsLookupFamily: "V4_ONLY",
        transportSocket: {
          typedConfig: {
            "@type":
              "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext",
            sni: "api.internal",
          },
        },
        typedExtensionProtocolOptions: {
          "envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
            "@type": "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions",
            commonHttpProtocolOptions: { idleTimeout: "60s" },
            explicitHttpConfig: { http2ProtocolOptions: { maxConcurrentStreams: 100 } },
          },
        },
      },
    });
  });

  describe("rejects, at its path and saying why, what the model cannot hold", () => {
    const cases: readonly { rule: string; text: string; path: string; message: string }[] = [
      {
        rule: "an HTTP connection manager that is not the last filter of its chain",
        text: listenerYaml("edge", 80, EDGE_HCM).replace(
          "    - filters:\n",
          `    - filters:\n        - name: first\n          typed_config: { "@type": ${HCM}, stat_prefix: first, rds: { route_config_name: r, config_source: { ads: {} } } }\n`,
        ),
        path: "[0].filter_chains[0].filters[0]",
        message:
          "the HTTP connection manager is a terminal filter: Envoy requires it to be the last filter of its chain (filter 1 of 2)",
      },
      {
        rule: "a duration finer than a millisecond",
        text: EDS_CLUSTER_YAML.replace("0.25s", "0.0005s"),
        path: "[0].connect_timeout",
        message: "0.000500s cannot be stored: Switchyard keeps durations in whole milliseconds",
      },
    ];
    for (const { rule, text, path, message } of cases) {
      it(rule, () => {
        const { spec, issues } = imported(text);
        expect(errors(issues)).toEqual([{ severity: "error", path, message }]);
        expect([...spec.clusters, ...spec.listeners, ...spec.routeConfigurations]).toEqual([]);
      });
    }
  });

  describe("keeps what the model does not structure, as Envoy wrote it", () => {
    it("network filters before the HTTP connection manager, in order", () => {
      const { spec, issues } = imported(
        listenerYaml("edge", 80, EDGE_HCM).replace(
          "    - filters:\n",
          `    - filters:
        - name: envoy.filters.network.local_ratelimit
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.network.local_ratelimit.v3.LocalRateLimit
            stat_prefix: edge_rl
            token_bucket: { max_tokens: 10, fill_interval: 1s }
`,
        ),
      );
      expect(errors(issues)).toEqual([]);
      const [chain] = spec.listeners[0]?.filterChains ?? [];
      expect(chain).toMatchObject({
        networkOnly: false,
        statPrefix: "edge",
        networkFilters: [
          {
            name: "envoy.filters.network.local_ratelimit",
            typedConfig: {
              "@type":
                "type.googleapis.com/envoy.extensions.filters.network.local_ratelimit.v3.LocalRateLimit",
              statPrefix: "edge_rl",
              tokenBucket: { maxTokens: 10, fillInterval: "1s" },
            },
          },
        ],
      });
    });

    it("a filter chain without an HTTP connection manager (TLS passthrough to a tcp_proxy)", () => {
      const { spec, issues } = imported(`- "@type": ${LISTENER}
  name: passthrough
  address: { socket_address: { address: 0.0.0.0, port_value: 443 } }
  listener_filters:
    - name: envoy.filters.listener.tls_inspector
      typed_config: { "@type": type.googleapis.com/envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector }
  filter_chains:
    - filter_chain_match: { server_names: [shop.example.com] }
      filters:
        - name: envoy.filters.network.tcp_proxy
          typed_config:
            "@type": type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy
            stat_prefix: passthrough
            cluster: shop
`);
      expect(errors(issues)).toEqual([]);
      expect(spec.listeners[0]?.filterChains[0]).toMatchObject({
        serverNames: ["shop.example.com"],
        networkOnly: true,
        rdsRouteConfigName: null,
        inlineRouteConfigName: null,
        networkFilters: [{ name: "envoy.filters.network.tcp_proxy" }],
      });
      expect(spec.listeners[0]?.extra.listenerFilters).toHaveLength(1);
    });

    it("a typed config of a type Switchyard has no schema for, with a warning that it is not validated", () => {
      const text = listenerYaml("edge", 80, EDGE_HCM).replace(
        "  filter_chains:",
        `  listener_filters:
    - name: envoy.filters.listener.made_up
      typed_config:
        "@type": type.googleapis.com/example.made_up.v3.MadeUp
        some_field: 7
  filter_chains:`,
      );
      const { spec, issues } = imported(text);
      expect(errors(issues)).toEqual([]);
      expect(parseNotes(text).filter((i) => i.severity === "warning")).toEqual([
        {
          severity: "warning",
          path: '[0].listener_filters[0].typed_config["@type"]',
          line: 7,
          column: 9,
          message:
            "example.made_up.v3.MadeUp is not among the Envoy types Switchyard has a schema for (a contrib or third-party extension): it is kept as written and sent as a TypedStruct, which Envoy converts itself, but Switchyard cannot validate it",
        },
      ]);
      expect(spec.listeners[0]?.extra.listenerFilters).toEqual([
        {
          name: "envoy.filters.listener.made_up",
          typedConfig: { "@type": "type.googleapis.com/example.made_up.v3.MadeUp", some_field: 7 },
        },
      ]);
    });

    it("an ORIGINAL_DST cluster and an extension cluster (cluster_type), with no load assignment", () => {
      const { spec, issues } = imported(`- "@type": ${CLUSTER}
  name: passthrough
  type: ORIGINAL_DST
  lb_policy: CLUSTER_PROVIDED
  connect_timeout: 1s
- "@type": ${CLUSTER}
  name: either
  connect_timeout: 1s
  lb_policy: CLUSTER_PROVIDED
  cluster_type:
    name: envoy.clusters.aggregate
    typed_config:
      "@type": type.googleapis.com/envoy.extensions.clusters.aggregate.v3.ClusterConfig
      clusters: [primary, secondary]
`);
      expect(errors(issues)).toEqual([]);
      expect(spec.clusters.map((c) => [c.name, c.discoveryType, c.lbPolicy])).toEqual([
        ["either", "CUSTOM", "CLUSTER_PROVIDED"],
        ["passthrough", "ORIGINAL_DST", "CLUSTER_PROVIDED"],
      ]);
      expect(spec.clusters[0]?.extra.clusterType).toMatchObject({
        name: "envoy.clusters.aggregate",
      });
      expect(spec.clusters.every((c) => c.localities.length === 0)).toBe(true);
    });

    it.each([
      [
        "route: { cluster_header: x-cluster }",
        "CLUSTER_HEADER",
        { route: { clusterHeader: "x-cluster" } },
      ],
      [
        "route: { cluster_specifier_plugin: lua }",
        "CLUSTER_SPECIFIER_PLUGIN",
        { route: { clusterSpecifierPlugin: "lua" } },
      ],
      ["non_forwarding_action: {}", "NON_FORWARDING", { nonForwardingAction: {} }],
    ] as const)(
      "a route whose action is %s, as %s with its config in extra",
      (action, kind, extra) => {
        const { spec, issues } = imported(`- "@type": ${TypeUrl.RouteConfiguration}
  name: r
  virtual_hosts: [{ name: all, domains: ["*"], routes: [{ match: { prefix: / }, ${action} }] }]
`);
        expect(errors(issues)).toEqual([]);
        const route = spec.routeConfigurations[0]?.virtualHosts[0]?.routes[0];
        expect(route?.actionKind).toBe(kind);
        expect(route?.extra).toEqual(extra);
      },
    );

    it.each([
      ["path_separated_prefix: /api", "PATH_SEPARATED_PREFIX", "/api", {}],
      ["connect_matcher: {}", "CONNECT", "", { match: { connectMatcher: {} } }],
      [
        'path_match_policy: { name: envoy.path.match.uri_template.uri_template_matcher, typed_config: { "@type": type.googleapis.com/envoy.extensions.path.match.uri_template.v3.UriTemplateMatchConfig, path_template: "/books/{id}" } }',
        "PATH_MATCH_POLICY",
        "",
        {
          match: {
            pathMatchPolicy: {
              name: "envoy.path.match.uri_template.uri_template_matcher",
              typedConfig: {
                "@type":
                  "type.googleapis.com/envoy.extensions.path.match.uri_template.v3.UriTemplateMatchConfig",
                pathTemplate: "/books/{id}",
              },
            },
          },
        },
      ],
    ] as const)("a route matching %s, as %s", (match, kind, value, extra) => {
      const { spec, issues } = imported(`- "@type": ${TypeUrl.RouteConfiguration}
  name: r
  virtual_hosts: [{ name: all, domains: ["*"], routes: [{ match: { ${match} }, route: { cluster: c } }] }]
`);
      expect(errors(issues)).toEqual([]);
      const route = spec.routeConfigurations[0]?.virtualHosts[0]?.routes[0];
      expect([route?.matchKind, route?.matchValue]).toEqual([kind, value]);
      expect(route?.extra).toEqual(extra);
    });
  });

  describe("reads the forms Envoy reads beyond canonical proto3 JSON, and says so", () => {
    it.each([
      [
        "an enum value in lower case",
        "lb_policy: ROUND_ROBIN",
        "lb_policy: least_request",
        { lbPolicy: "LEAST_REQUEST" },
      ],
      [
        "a single value where a list is expected",
        "connect_timeout: 0.25s",
        "connect_timeout: 0.25s\n  dns_resolvers: { socket_address: { address: 10.0.0.53, port_value: 53 } }",
        { extra: { dnsResolvers: [{ socketAddress: { address: "10.0.0.53", portValue: 53 } }] } },
      ],
      [
        "a boolean written as a string",
        "connect_timeout: 0.25s",
        'connect_timeout: 0.25s\n  respect_dns_ttl: "true"',
        { extra: { respectDnsTtl: true } },
      ],
      [
        "a Duration written as { seconds, nanos }",
        "connect_timeout: 0.25s",
        "connect_timeout: { seconds: 1, nanos: 500000000 }",
        { connectTimeoutMs: 1500 },
      ],
      [
        "a wrapper written as { value }",
        "connect_timeout: 0.25s",
        "connect_timeout: 0.25s\n  per_connection_buffer_limit_bytes: { value: 32768 }",
        { extra: { perConnectionBufferLimitBytes: 32768 } },
      ],
    ])("%s", (_, from, to, stored) => {
      const text = EDS_CLUSTER_YAML.replace(from, to);
      const { spec, issues } = imported(text);
      expect(errors(issues)).toEqual([]);
      expect(spec.clusters[0]).toMatchObject(stored);
      expect(parseNotes(text).map((note) => note.severity)).toEqual(["info"]);
    });
  });

  it("serves RDS and EDS over ADS but keeps the rest of their config sources (initial_fetch_timeout, authorities), saying so", () => {
    const text = `${EDS_CLUSTER_YAML.replace(
      "eds_config: { ads: {}, resource_api_version: V3 }",
      "eds_config: { path_config_source: { path: /etc/eds.yaml }, initial_fetch_timeout: 0s }",
    )}${listenerYaml(
      "edge",
      80,
      "stat_prefix: edge\nrds: { route_config_name: r, config_source: { api_config_source: { api_type: GRPC }, initial_fetch_timeout: 3s, authorities: [{ name: xds.example }] } }",
    )}`;
    const input = resourcesOf(text);
    const { spec, issues } = imported(text);
    expect(errors(issues)).toEqual([]);
    expect(issues.map((i) => i.message)).toEqual(
      expect.arrayContaining([
        "Switchyard serves this cluster's endpoints: eds_config becomes { ads: {}, resource_api_version: V3 } (its initial_fetch_timeout and authorities kept)",
        "Switchyard serves this route configuration: config_source becomes { ads: {}, resource_api_version: V3 } (its initial_fetch_timeout and authorities kept)",
      ]),
    );
    expect(spec.clusters[0]?.extra).toEqual({
      edsClusterConfig: { edsConfig: { initialFetchTimeout: "0s" } },
    });
    expect(spec.listeners[0]?.filterChains[0]?.hcmExtra).toEqual({
      rds: { configSource: { initialFetchTimeout: "3s", authorities: [{ name: "xds.example" }] } },
    });
    expectExportsAsNormalized(input, configSpec(spec));
  });

  it("reports a repeated name at the later resource", () => {
    const { spec, issues } = imported(`${EDS_CLUSTER_YAML}${EDS_CLUSTER_YAML}`);
    expect(errors(issues)).toEqual([
      { severity: "error", path: "[1].name", message: 'another cluster is named "backend"' },
    ]);
    expect(spec.clusters).toHaveLength(1);
  });
});
