/**
 * A newer Envoy API loaded at run time (`switchyard schema add`): import, validation, compiling
 * and export take the fields it adds, and nothing else changes. Reads the descriptor set of a
 * current Envoy API and the resources using its newer fields where they lie (@switchyard/testing,
 * envoySchemaFile); never copied into the repository.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import {
  installEnvoySchemas,
  newestSchema,
  readEnvoySchema,
  registry,
  schemaGeneration,
} from "@switchyard/proto";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import { envoySchemaBytes, newerFieldsResources } from "@switchyard/testing/shared-data";
import { afterEach, describe, expect, it } from "vitest";
import { expectExportsAsNormalized } from "../../test/round-trip.js";
import { compile } from "../compile.js";
import { configSpec } from "../fixtures.js";
import { importEnvoyConfig, parseEnvoyConfig } from "../import/envoy-import.js";
import { routeRequest } from "../routing/route-request.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import { validate } from "../validate/validate.js";
import { exportEnvoyConfig } from "./envoy-export.js";

function loaded() {
  const read = readEnvoySchema("envoy-2026-01", envoySchemaBytes());
  if ("problem" in read) throw new Error(read.problem);
  return read.schema;
}

function parsed(text: string) {
  const result = parseEnvoyConfig(text, { filename: "newer.json" });
  if ("errors" in result) throw new Error(JSON.stringify(result.errors, null, 2));
  return result.resources;
}

afterEach(() => installEnvoySchemas([]));

describe("a newer Envoy API", () => {
  it("is checked and described: files, messages, and what it adds to the bundled API", () => {
    const schema = loaded();
    expect(schema.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(schema.files).toBeGreaterThan(400);
    expect(schema.newMessages).toBeGreaterThan(100);
    expect(schema.newFields).toBeGreaterThan(100);
  });

  it("without it, each field the bundled API lacks is refused, naming the field and the API in use", () => {
    const result = parseEnvoyConfig(newerFieldsResources(), { filename: "newer.json" });
    expect("errors" in result).toBe(true);
    const messages = "errors" in result ? result.errors.map((e) => e.message) : [];
    for (const field of [
      '"tcp_keepalive" in envoy.config.listener.v3.Listener',
      '"stream_flush_timeout" in envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager (did you mean "stream_idle_timeout"?)',
      '"request_body_buffer_limit" in envoy.config.route.v3.VirtualHost',
      '"cookies" in envoy.config.route.v3.RouteMatch',
      '"added_tlvs" in envoy.config.core.v3.ProxyProtocolConfig',
    ]) {
      expect(messages).toContainEqual(
        `unknown field ${field}: not in the Envoy API bundled with Switchyard (@grpc/grpc-js-xds 1.14.1); a field of a newer Envoy release is taken once that release's API is loaded (switchyard schema add)`,
      );
    }
  });

  it("once loaded, resources using its fields import, validate, compile and export back equal", () => {
    installEnvoySchemas([loaded()]);
    const input = parsed(newerFieldsResources());
    const { spec, issues } = importEnvoyConfig(input);
    expect(issues.filter((issue) => issue.severity === "error")).toEqual([]);
    const full = configSpec(spec);
    const compiled = compile(full);
    expect(validate(full, { compiled }).issues.filter((i) => i.severity === "error")).toEqual([]);
    expect(compiled.issues).toEqual([]);
    expectExportsAsNormalized(input, full);
    expect(exportEnvoyConfig(full, { format: "yaml" })).toMatch(/cookies:/);
  });

  it("once loaded, what proxies are sent holds the newer fields as fields of the newer definition", () => {
    installEnvoySchemas([loaded()]);
    const { spec } = importEnvoyConfig(parsed(newerFieldsResources()));
    const [group] = compile(configSpec(spec)).groups;
    const body = group?.snapshot.resources(TypeUrl.RouteConfiguration).get("local_route")?.body;
    expect(body).toBeDefined();
    // The bundled definition reads the field only as unknown bytes; the newer one by name.
    const bundled = fromBinary(RouteConfigurationSchema, body ?? new Uint8Array());
    expect(bundled.virtualHosts[0]?.routes[0]?.match?.$unknown?.length).toBeGreaterThan(0);
    const newer = fromBinary(newestSchema(RouteConfigurationSchema), body ?? new Uint8Array());
    const match = newer.virtualHosts[0]?.routes[0]?.match as unknown as {
      cookies: { name: string }[];
    };
    expect(match.cookies.map((cookie) => cookie.name)).toEqual(["tier"]);
  });

  it("once loaded, the route tester says it cannot evaluate a match condition only it defines, rather than guess", () => {
    installEnvoySchemas([loaded()]);
    const { spec } = importEnvoyConfig(parsed(newerFieldsResources()));
    const answer = routeRequest(configSpec(spec), {
      listener: "ingress_http",
      authority: "example.com",
      path: "/",
    });
    expect(answer.t === "refused" ? answer : answer.verdict).toMatchObject({
      t: "cannot-evaluate",
      route: { index: 0 },
      reasons: ["match.cookies is a condition the route tester does not evaluate"],
    });
  });

  it("takes the validate.rules of its own definitions: a rule the newer API dropped no longer refuses", () => {
    // RuntimeFeatureFlag.runtime_key had `string.min_len = 1`; the newer API dropped it.
    const flag = (desc = registry.getMessage("envoy.config.core.v3.RuntimeFeatureFlag")) =>
      desc?.fields.find((f) => f.name === "runtime_key")?.proto.options?.$unknown?.length ?? 0;
    expect(flag()).toBeGreaterThan(0);
    installEnvoySchemas([loaded()]);
    expect(flag()).toBe(0);
  });

  it("installing changes the schema generation, so caches of what it decided are dropped", () => {
    const before = schemaGeneration();
    installEnvoySchemas([loaded()]);
    expect(schemaGeneration()).not.toBe(before);
  });

  describe("is refused, with what is wrong, when it is not a descriptor set of a newer Envoy API", () => {
    const set = () => fromBinary(FileDescriptorSetSchema, envoySchemaBytes());
    it.each([
      ["an empty file", new Uint8Array(), /the file is empty/],
      [
        "bytes that are no protobuf",
        new TextEncoder().encode("not protobuf"),
        /no FileDescriptorSet/,
      ],
      [
        "a set without its imports (built without --include_imports)",
        (() => {
          const files = set().file.filter((f) => f.name !== "envoy/config/core/v3/address.proto");
          return toBinary(
            FileDescriptorSetSchema,
            create(FileDescriptorSetSchema, { file: files }),
          );
        })(),
        /does not hold every file its files import.*--include_imports/,
      ],
      [
        "a set of another API",
        toBinary(
          FileDescriptorSetSchema,
          create(FileDescriptorSetSchema, {
            file: set().file.filter((f) => f.name.startsWith("google/protobuf/")),
          }),
        ),
        /defines none of the Envoy v3 resource types/,
      ],
      [
        "a set that renames a field Switchyard models",
        (() => {
          const edited = set();
          const cluster = edited.file
            .find((f) => f.name === "envoy/config/cluster/v3/cluster.proto")
            ?.messageType.find((m) => m.name === "Cluster");
          const field = cluster?.field.find((f) => f.name === "connect_timeout");
          if (field) field.name = "connection_timeout";
          return toBinary(FileDescriptorSetSchema, edited);
        })(),
        /changes a field Switchyard models \(envoy\.config\.cluster\.v3\.Cluster field \d+ is named connection_timeout, not connect_timeout\)/,
      ],
    ])("%s", (_, bytes, problem) => {
      const read = readEnvoySchema("candidate", bytes);
      expect("problem" in read && read.problem).toMatch(problem);
    });
  });
});
