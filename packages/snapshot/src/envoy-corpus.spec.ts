/**
 * The Envoy project's own example bootstraps: every YAML/JSON file with `static_resources` in the
 * sandbox examples of https://github.com/envoyproxy/examples (Apache-2.0), copied unchanged at
 * their paths there, with a SOURCES.md naming the commit and listing the files. The test reads
 * that corpus from SWITCHYARD_ENVOY_CORPUS or, by default, from `shared/corpus/envoy-examples/`
 * in the folder that holds the repository: real configuration written outside this project.
 * Each must import with no error, validate and compile for publishing, and export back equal to
 * its input after only the documented normalizations (envoy-import.ts); importing the export
 * gives the same spec. The corpus is never copied into the repository.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
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
  resourceName,
} from "./import/envoy-import.js";
import { createSecretBox } from "./secret-box.js";
import { holdsPrivateKey } from "./secret-pem.js";
import { validate } from "./validate/validate.js";

/** The server's secrets key, for the inline private keys the import moves to SDS secrets. */
const box = createSecretBox(randomBytes(32));
const sealing = { seal: box.seal };

const CORPUS =
  process.env.SWITCHYARD_ENVOY_CORPUS ??
  fileURLToPath(new URL("../../../../shared/corpus/envoy-examples/", import.meta.url));

/** The files SOURCES.md lists, each a path relative to the corpus. */
function corpusFiles(): string[] {
  const sources = join(CORPUS, "SOURCES.md");
  if (!existsSync(sources)) {
    throw new Error(
      `the Envoy examples corpus is not at ${CORPUS} (expected ../shared/corpus/envoy-examples beside the repository, or SWITCHYARD_ENVOY_CORPUS)`,
    );
  }
  return readFileSync(sources, "utf8")
    .split("\n")
    .map((line) => /^- (\S+\.(?:ya?ml|json))$/.exec(line.trim())?.[1])
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
  /^Switchyard serves this (cluster's endpoints|route configuration): /,
  /^the listener has no name \(Envoy would give it a random one\): stored as /,
  /^enum values are read as Envoy reads them, in any case: /,
  /^\w+ is a list: a single value is read as a list of one, as Envoy reads it$/,
  /^the inline certificate and private key are moved to SDS secret "[^"]+": /,
  / is not among the Envoy types Switchyard has a schema for \(a contrib or third-party extension\)/,
];

const files = corpusFiles();

describe("the Envoy project's example bootstraps", () => {
  it("are all there: SOURCES.md lists 62 files", () => {
    expect(files).toHaveLength(62);
  });

  for (const file of files) {
    describe(file, () => {
      const text = readFileSync(join(CORPUS, file), "utf8");

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
});

function specOf(resources: readonly DecodedResource[]) {
  const { spec, issues } = importEnvoyConfig(resources, sealing);
  expect(errorsOf(issues)).toEqual([]);
  return configSpec(spec);
}
