/**
 * The table of proxy-local fields is complete for the Envoy API: every field the candidate rule
 * picks out of every message type is either a row or listed as not proxy-local, in the bundled
 * API and in a current one (the descriptor set `switchyard schema add` is tested with, read
 * where it lies: @switchyard/testing, envoySchemaFile). A field a newer API adds fails here until
 * it is classified, and counts as proxy-local at run time meanwhile.
 */
import {
  create,
  type DescField,
  fromBinary,
  type MessageInitShape,
  toBinary,
} from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
  FileDescriptorSetSchema,
} from "@bufbuild/protobuf/wkt";
import { installEnvoySchemas, readEnvoySchema, registry } from "@switchyard/proto";
import { envoySchemaBytes } from "@switchyard/testing/shared-data";
import { afterEach, describe, expect, it } from "vitest";
import {
  classifyField,
  isProxyLocalCandidate,
  NOT_PROXY_LOCAL,
  qualifiedName,
} from "./proxy-local-candidates.js";
import { PROXY_LOCAL_FIELDS } from "./proxy-local-fields.js";
import { proxyLocalIn } from "./proxy-local-walk.js";

function currentEnvoyApi() {
  const read = readEnvoySchema("envoy-api", envoySchemaBytes());
  if ("problem" in read) throw new Error(read.problem);
  return read.schema;
}

/**
 * Every field of every message type in the registry, but for the well-known types and
 * descriptors (google.*) and Switchyard's own API (switchyard.*), which are not Envoy config.
 */
function envoyFields(): DescField[] {
  const fields: DescField[] = [];
  for (const type of registry) {
    if (type.kind !== "message") continue;
    if (type.typeName.startsWith("google.") || type.typeName.startsWith("switchyard.")) continue;
    fields.push(...type.fields);
  }
  return fields;
}

const candidates = () => envoyFields().filter(isProxyLocalCandidate);
const unclassified = () =>
  candidates()
    .filter((field) => classifyField(field).t === "unclassified")
    .map(qualifiedName);

const listed = NOT_PROXY_LOCAL.flatMap((group) => group.fields);

afterEach(() => installEnvoySchemas([]));

describe("the proxy-local fields of the Envoy API", () => {
  it("classify every candidate of the bundled Envoy API: in the table, or listed with why not", () => {
    expect(candidates().length).toBeGreaterThan(120);
    expect(unclassified()).toEqual([]);
  });

  it("classify every candidate of a current Envoy API too", () => {
    installEnvoySchemas([currentEnvoyApi()]);
    expect(candidates().length).toBeGreaterThan(170);
    expect(unclassified()).toEqual([]);
  });

  it("name each a field of the bundled or the current Envoy API, once, and never both ways", () => {
    const names = [...PROXY_LOCAL_FIELDS.map((row) => row.field), ...listed];
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    const bundled = new Set(envoyFields().map(qualifiedName));
    installEnvoySchemas([currentEnvoyApi()]);
    const current = new Set(envoyFields().map(qualifiedName));
    expect(names.filter((name) => !bundled.has(name) && !current.has(name))).toEqual([]);
  });

  it("list as not proxy-local only fields the rule picks, each with a reason", () => {
    installEnvoySchemas([currentEnvoyApi()]);
    const picked = new Set(candidates().map(qualifiedName));
    expect(listed.filter((name) => !picked.has(name))).toEqual([]);
    for (const group of NOT_PROXY_LOCAL) expect(group.why.length).toBeGreaterThan(20);
  });

  it("hold the fields of issue 44 in the table, with what each makes the proxy do", () => {
    const kinds = new Map(PROXY_LOCAL_FIELDS.map((row) => [row.field, row.kind]));
    expect(
      Object.fromEntries(
        [
          "envoy.config.core.v3.DataSource.filename",
          "envoy.config.core.v3.DataSource.environment_variable",
          "envoy.config.core.v3.PathConfigSource.path",
          "envoy.config.core.v3.HealthCheck.event_log_path",
          "envoy.extensions.access_loggers.file.v3.FileAccessLog.path",
          "envoy.extensions.filters.http.lua.v3.LuaPerRoute.source_code",
          "envoy.extensions.filters.http.lua.v3.Lua.default_source_code",
          "envoy.extensions.wasm.v3.VmConfig.code",
          "envoy.config.bootstrap.v3.Admin.access_log_path",
          "envoy.config.tap.v3.FilePerTapSink.path_prefix",
          "envoy.config.core.v3.Pipe.path",
        ].map((field) => [field, kinds.get(field)]),
      ),
    ).toEqual({
      "envoy.config.core.v3.DataSource.filename": "reads-file",
      "envoy.config.core.v3.DataSource.environment_variable": "reads-env",
      "envoy.config.core.v3.PathConfigSource.path": "loads-config",
      "envoy.config.core.v3.HealthCheck.event_log_path": "writes-file",
      "envoy.extensions.access_loggers.file.v3.FileAccessLog.path": "writes-file",
      "envoy.extensions.filters.http.lua.v3.LuaPerRoute.source_code": "runs-code",
      "envoy.extensions.filters.http.lua.v3.Lua.default_source_code": "runs-code",
      "envoy.extensions.wasm.v3.VmConfig.code": "runs-code",
      "envoy.config.bootstrap.v3.Admin.access_log_path": "writes-file",
      "envoy.config.tap.v3.FilePerTapSink.path_prefix": "writes-file",
      "envoy.config.core.v3.Pipe.path": "local-socket",
    });
  });
});

const HEALTH_CHECK = "envoy.config.core.v3.HealthCheck";

/**
 * A stand-in for an Envoy API newer than any at hand: the current one with a field no one has
 * classified, `HealthCheck.crash_dump_path`, named like a path the proxy would write.
 */
function apiWithCrashDumpPath() {
  const set = fromBinary(FileDescriptorSetSchema, envoySchemaBytes());
  const message = set.file
    .filter((f) => f.package === "envoy.config.core.v3")
    .flatMap((f) => f.messageType)
    .find((m) => m.name === "HealthCheck");
  if (!message) throw new Error("the current API has no HealthCheck");
  const field: MessageInitShape<typeof FieldDescriptorProtoSchema> = {
    name: "crash_dump_path",
    jsonName: "crashDumpPath",
    number: 9001,
    type: FieldDescriptorProto_Type.STRING,
  };
  message.field.push(create(FieldDescriptorProtoSchema, field));
  const read = readEnvoySchema(
    "envoy-api with crash_dump_path",
    toBinary(FileDescriptorSetSchema, set),
  );
  if ("problem" in read) throw new Error(read.problem);
  return read.schema;
}

describe("a field of a newer Envoy API that no one has classified", () => {
  it("fails the completeness check, naming the field", () => {
    installEnvoySchemas([apiWithCrashDumpPath()]);
    expect(unclassified()).toEqual([`${HEALTH_CHECK}.crash_dump_path`]);
  });

  it("counts as proxy-local meanwhile: found where it is set, as unclassified", () => {
    installEnvoySchemas([apiWithCrashDumpPath()]);
    const desc = registry.getMessage(HEALTH_CHECK);
    if (!desc) throw new Error("no HealthCheck");
    const check = create(desc, { crashDumpPath: "/etc/envoy/envoy.yaml" } as never);
    expect(proxyLocalIn(desc, check)).toEqual([
      {
        at: ["crashDumpPath"],
        field: `${HEALTH_CHECK}.crash_dump_path`,
        kind: "unclassified",
        does: `follow ${HEALTH_CHECK}.crash_dump_path "/etc/envoy/envoy.yaml" (not yet classified by Switchyard, and named or typed like a file, a directory, code or an environment variable)`,
        reads: null,
        instead: null,
      },
    ]);
  });
});
