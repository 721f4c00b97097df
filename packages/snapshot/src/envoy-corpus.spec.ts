/**
 * Real Envoy configuration written outside this project, read where it lies (never copied into
 * the repository), from the folder that holds the repository (`shared/corpus/...`) or the folders
 * SWITCHYARD_ENVOY_CORPUS and SWITCHYARD_ENVOY_CONFIGS name:
 *   - the Envoy project's example bootstraps: every YAML/JSON file with `static_resources` in the
 *     sandbox examples of https://github.com/envoyproxy/examples (Apache-2.0), at their paths
 *     there, with a SOURCES.md listing them;
 *   - Envoy's own configurations: the bootstraps of Envoy's repository (`configs/` and those its
 *     documentation includes; https://github.com/envoyproxy/envoy, Apache-2.0), with a SOURCES.md
 *     table naming each file's commit. Current Envoy writes them, so they are read with a current
 *     Envoy API loaded (`switchyard schema add`): a descriptor set of Envoy's API, read from
 *     SWITCHYARD_ENVOY_SCHEMA or `shared/schemas/envoy-api.binpb`.
 * Each file must import with no error, validate and compile for publishing, and export back equal
 * to its input after only the documented normalizations (envoy-import.ts); importing the export
 * gives the same spec.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import {
  DescriptorProtoSchema,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
  FileDescriptorSetSchema,
} from "@bufbuild/protobuf/wkt";
import { envoyApisInUse, installEnvoySchemas, readEnvoySchema, registry } from "@switchyard/proto";
import { configDump } from "@switchyard/testing/config-dump";
import { envoySchemaBytes, envoySchemaFile } from "@switchyard/testing/shared-data";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { expectExportsAsNormalized } from "../test/round-trip.js";
import { compile } from "./compile.js";
import { exportEnvoyConfig } from "./envoy/envoy-export.js";
import { configSpec } from "./fixtures.js";
import {
  type DecodedResource,
  type EnvoyResource,
  type ImportError,
  importEnvoyConfig,
  parseEnvoyConfig,
  resourceJson,
  resourceName,
} from "./import/envoy-import.js";
import type { JsonObject } from "./model.js";
import { createSecretBox } from "./secret-box.js";
import { holdsPrivateKey } from "./secret-pem.js";
import { TypeUrl } from "./serving/resource-snapshot.js";
import { validate } from "./validate/validate.js";

/** The server's secrets key, for the inline private keys the import moves to SDS secrets. */
const box = createSecretBox(randomBytes(32));
const sealing = { seal: box.seal };

const SHARED = new URL("../../../../shared/", import.meta.url);
const EXAMPLES =
  process.env.SWITCHYARD_ENVOY_CORPUS ?? fileURLToPath(new URL("corpus/envoy-examples/", SHARED));
const CONFIGS =
  process.env.SWITCHYARD_ENVOY_CONFIGS ?? fileURLToPath(new URL("corpus/envoy-configs/", SHARED));

/**
 * The files a corpus's SOURCES.md lists, each a path relative to the corpus: as a list
 * (`- path`) or as the first column of a table (`| path | ... |`).
 */
function corpusFiles(corpus: string, variable: string): string[] {
  const sources = join(corpus, "SOURCES.md");
  if (!existsSync(sources)) {
    throw new Error(
      `the Envoy corpus is not at ${corpus} (expected it under shared/corpus beside the repository, or in ${variable})`,
    );
  }
  return readFileSync(sources, "utf8")
    .split("\n")
    .map(
      (line) =>
        /^- (\S+\.(?:ya?ml|json))$/.exec(line.trim())?.[1] ??
        /^\|\s*(\S+\.(?:ya?ml|json))\s*\|/.exec(line.trim())?.[1],
    )
    .filter((file): file is string => file !== undefined);
}

function parsed(text: string, filename: string) {
  const result = parseEnvoyConfig(text, { filename });
  if ("errors" in result) {
    throw new Error(`${filename}: ${JSON.stringify(result.errors, null, 2)}`);
  }
  return result;
}

const errorsOf = (issues: readonly ImportError[]) =>
  issues.filter((issue) => issue.severity === "error").map((i) => `${i.path}: ${i.message}`);

const _key = (r: EnvoyResource) =>
  `${r.typeUrl.slice(r.typeUrl.lastIndexOf(".") + 1)} ${resourceName(r)}`;

/**
 * The kinds of notes an import may give, each one of the documented normalizations: a note of any
 * other kind means the import changed something it does not say it changes.
 */
const DOCUMENTED_NOTES: readonly RegExp[] = [
  /^not imported: Switchyard takes only static_resources/,
  /^not imported: Switchyard does not store /,
  /^connect_timeout is not set: stored as Envoy's default, 5s$/,
  /^type is not set: stored as Envoy's default, STATIC$/,
  /^a locality without `locality` gets `locality: \{\}`/,
  /^no load_assignment: stored with no endpoints$/,
  /^the inline route_config has no name: stored as route configuration /,
  /^another route configuration named "[^"]*" has different content: this inline one is stored as /,
  /^the HTTP connection manager filter is named envoy\.filters\.network\.http_connection_manager$/,
  /^no router filter: envoy\.filters\.http\.router is appended$/,
  /^the HTTP connection manager written as a TypedStruct is read as the message it names/,
  /^route configuration "[^"]*" has on-demand virtual hosts: envoy\.filters\.http\.on_demand is added before the router/,
  /^Switchyard serves this (cluster's endpoints|route configuration): /,
  /^the listener has no name \(Envoy would give it a random one\): stored as /,
  /^enum values are read as Envoy reads them, in any case: /,
  /^a Duration written as \{ seconds, nanos \} is stored as "[^"]+"$/,
  /^a \w+ written as \{ value: \.\.\. \} is stored as its value$/,
  /^a boolean written as a string is stored as (true|false)$/,
  /^\w+ is a list: a single value is read as a list of one, as Envoy reads it$/,
  /^the inline certificate and private key are moved to SDS secret "[^"]+": /,
  / is not among the Envoy types Switchyard has a schema for \(a contrib or third-party extension\)/,
  // What an import leaves out, and why: secrets (uploaded on their own), and the parts of an
  // Envoy admin config dump that are not what serves traffic (envoy-import-dump.ts).
  /^secret "[^"]*" is [^,]+, not imported: /,
  /^the private key is redacted \(as Envoy's config dump shows it\): the certificate is named over SDS as secret /,
  /^not imported: the bootstrap Envoy started with /,
  /^the bootstrap's static [a-z ]+ are read from it: the dump has none of its own/,
  /^not imported: a dump's static route configurations are the inline route_config of its listeners/,
  /^not imported: a static route configuration without a name is the inline route_config of a listener/,
  /^not imported: the endpoints Envoy resolved for \d+ clusters? that are not EDS /,
  /^not imported: the \d+ static endpoint configurations, the endpoints of the bootstrap's clusters/,
  /^this config dump holds no endpoints \(Envoy adds them only to \/config_dump\?include_eds\)/,
  /^not imported: a warming \w+( configuration)?( "[^"]*")? is not serving traffic yet/,
  /^(cluster|listener|route configuration)( "[^"]*")?: .*; the active version is imported, not this one$/,
  /^not imported: (cluster|listener|route configuration)( "[^"]*")? has no active version: /,
  /^not imported: Switchyard does not store (scoped routes|ECDS filters)/,
  /^not imported: Switchyard reads listeners, clusters, route configurations, endpoints and secrets from a config dump, not /,
  /^not read: "[^"]*" is not a field of envoy\.admin\.v3\./,
  /^the config dump wrapped in names here is read/,
];

const JWT_CLAIM_TO_HEADER = "envoy.extensions.filters.http.jwt_authn.v3.JwtClaimToHeader";

/** The newer Envoy API the configurations of Envoy's own repository are read with. */
function currentEnvoyApi() {
  const read = readEnvoySchema("envoy-api", envoySchemaBytes());
  if ("problem" in read) throw new Error(`${envoySchemaFile()}: ${read.problem}`);
  return read.schema;
}

/**
 * Files of a corpus that use fields newer than the Envoy API they are read with: each must be
 * refused at exactly these fields, as unknown to every API loaded, and the API must indeed lack
 * them (so the list goes stale, and fails, when a newer API is loaded).
 */
type NewerFields = Readonly<Record<string, readonly { path: string; field: string }[]>>;

function corpusSuite(corpus: string, files: readonly string[], newer: NewerFields = {}): void {
  for (const file of files) {
    const fields = newer[file];
    if (fields) {
      it(`${file} uses fields newer than the loaded Envoy API: it is refused at each, naming the APIs loaded`, () => {
        const result = parseEnvoyConfig(readFileSync(join(corpus, file), "utf8"), {
          filename: file,
        });
        expect("errors" in result && result.errors.map((e) => [e.path, e.message])).toEqual(
          fields.map(({ path, field }) => {
            const [type = "", name = ""] = [
              field.slice(0, field.lastIndexOf(".")),
              field.slice(field.lastIndexOf(".") + 1),
            ];
            expect(registry.getMessage(type)?.fields.some((f) => f.name === name)).toBe(false);
            return [
              path,
              `unknown field "${name}" in ${type}: not in ${envoyApisInUse()}; a field of a newer Envoy release is taken once that release's API is loaded (switchyard schema add)`,
            ];
          }),
        );
      });
      continue;
    }
    describe(file, () => {
      const text = readFileSync(join(corpus, file), "utf8");

      it("imports with no error, noting only documented normalizations", () => {
        const { resources, warnings } = parsed(text, file);
        const { issues } = importEnvoyConfig(resources, sealing);
        expect(errorsOf(issues)).toEqual([]);
        const undocumented = [...warnings, ...issues]
          .filter((note) => !DOCUMENTED_NOTES.some((pattern) => pattern.test(note.message)))
          .map((note) => `${note.path}: ${note.message}`);
        expect(undocumented).toEqual([]);
      });

      it("validates and compiles for publishing: no validation error, every snapshot consistent", () => {
        const spec = specOf(parsed(text, file).resources);
        const compiled = compile(spec, { openSecret: box.open });
        const report = validate(spec, { compiled });
        expect(report.issues.filter((i) => i.severity === "error")).toEqual([]);
        expect(compiled.issues).toEqual([]);
        for (const group of compiled.groups) {
          expect(group.snapshot.danglingReferences()).toEqual([]);
        }
      });

      it("exports back equal to its input after the documented normalizations", () => {
        const input = parsed(text, file).resources;
        expectExportsAsNormalized(input, specOf(input));
      });

      it("imports its export as the same spec, with nothing to normalize", () => {
        const spec = specOf(parsed(text, file).resources);
        const exported = exportEnvoyConfig(spec, { format: "yaml" });
        const again = parsed(exported, "export.yaml");
        const { spec: fragment, issues } = importEnvoyConfig(again.resources);
        expect(errorsOf(issues)).toEqual([]);
        // Secrets are never exported: the listeners name them.
        expect(configSpec(fragment)).toEqual({ ...spec, secrets: [] });
      });

      it("imports as the same spec from an Envoy admin config dump of it: its static entries, the bootstrap beside them", () => {
        const { resources } = parsed(text, file);
        const typed = (kind: string) =>
          resources
            .filter((r) => r.typeUrl === kind)
            .map((r) => ({ "@type": r.typeUrl, ...resourceJson(r) }));
        const dump = configDump({
          bootstrap: parseYaml(text) as JsonObject,
          staticClusters: typed(TypeUrl.Cluster),
          staticListeners: typed(TypeUrl.Listener),
        });
        const fromDump = parsed(JSON.stringify(dump), "config_dump.json");
        const { spec: fragment, issues } = importEnvoyConfig(fromDump.resources, sealing);
        expect(errorsOf(issues)).toEqual([]);
        const undocumented = [...fromDump.warnings, ...issues]
          .filter((note) => !DOCUMENTED_NOTES.some((pattern) => pattern.test(note.message)))
          .map((note) => `${note.path}: ${note.message}`);
        expect(undocumented).toEqual([]);
        const { secrets, ...objects } = configSpec(fragment);
        const { secrets: fromBootstrap, ...expected } = specOf(resources);
        expect(objects).toEqual(expected);
        expect(secrets.map((s) => s.name)).toEqual(fromBootstrap.map((s) => s.name));
      });

      it("keeps no private key in the clear: not in the stored objects, not in the export", () => {
        const spec = specOf(parsed(text, file).resources);
        const { secrets, ...objects } = spec;
        expect(holdsPrivateKey(JSON.stringify(objects))).toBe(false);
        expect(holdsPrivateKey(JSON.stringify(secrets))).toBe(false);
        expect(holdsPrivateKey(exportEnvoyConfig(spec, { format: "yaml" }))).toBe(false);
        for (const secret of secrets) {
          expect(holdsPrivateKey(box.open(secret.privateKey ?? ""))).toBe(true);
        }
      });
    });
  }
}

describe("the Envoy project's example bootstraps", () => {
  const files = corpusFiles(EXAMPLES, "SWITCHYARD_ENVOY_CORPUS");
  it("are all there: SOURCES.md lists 62 files", () => {
    expect(files).toHaveLength(62);
  });
  corpusSuite(EXAMPLES, files);
});

describe("Envoy's own configurations, read with a current Envoy API loaded", () => {
  const files = corpusFiles(CONFIGS, "SWITCHYARD_ENVOY_CONFIGS");
  beforeAll(() => installEnvoySchemas([currentEnvoyApi()]));
  afterAll(() => installEnvoySchemas([]));
  it("are all there: SOURCES.md lists 29 files", () => {
    expect(files).toHaveLength(29);
  });
  // jwt_authn.yaml is newer than the API at hand: its `claim_path` came after it (the suite below
  // reads it with an API that has it).
  corpusSuite(CONFIGS, files, {
    "configs/jwt_authn.yaml": [
      {
        path: "static_resources.listeners[0].filter_chains[0].filters[0].typed_config.http_filters[0].typed_config.providers.firebase.claim_to_headers[2].claim_path",
        field: `${JWT_CLAIM_TO_HEADER}.claim_path`,
      },
    ],
  });
});

/**
 * A stand-in for the Envoy API jwt_authn.yaml was written for, which no descriptor set at hand
 * holds: the current one with what the file needs of it, a `claim_path` of `{ key }` segments in
 * JwtClaimToHeader beside `claim_name`, which it no longer requires. It shows the file is refused
 * for its API alone: once an API that has those fields is loaded, it round-trips as the rest do.
 */
function apiWithClaimPath() {
  const set = fromBinary(FileDescriptorSetSchema, envoySchemaBytes());
  const message = set.file
    .filter((f) => f.package === "envoy.extensions.filters.http.jwt_authn.v3")
    .flatMap((f) => f.messageType)
    .find((m) => m.name === "JwtClaimToHeader");
  const claimName = message?.field.find((f) => f.name === "claim_name");
  if (!message || !claimName) throw new Error("the current API has no JwtClaimToHeader.claim_name");
  claimName.options = undefined;
  const field = (init: MessageInitShape<typeof FieldDescriptorProtoSchema>) =>
    create(FieldDescriptorProtoSchema, init);
  message.nestedType.push(
    create(DescriptorProtoSchema, {
      name: "ClaimPathSegment",
      field: [
        field({ name: "key", jsonName: "key", number: 1, type: FieldDescriptorProto_Type.STRING }),
      ],
    }),
  );
  message.field.push(
    field({
      name: "claim_path",
      jsonName: "claimPath",
      number: 3,
      label: FieldDescriptorProto_Label.REPEATED,
      type: FieldDescriptorProto_Type.MESSAGE,
      typeName: `.${JWT_CLAIM_TO_HEADER}.ClaimPathSegment`,
    }),
  );
  const read = readEnvoySchema("envoy-api with claim_path", toBinary(FileDescriptorSetSchema, set));
  if ("problem" in read) throw new Error(read.problem);
  return read.schema;
}

describe("Envoy's own configuration that is newer than the current API, read with an API that has its fields", () => {
  beforeAll(() => installEnvoySchemas([apiWithClaimPath()]));
  afterAll(() => installEnvoySchemas([]));
  corpusSuite(CONFIGS, ["configs/jwt_authn.yaml"]);
});

function specOf(resources: readonly DecodedResource[]) {
  const { spec, issues } = importEnvoyConfig(resources, sealing);
  expect(errorsOf(issues)).toEqual([]);
  return configSpec(spec);
}
