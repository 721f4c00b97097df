/**
 * Test data written outside this project, read where it lies: in `shared/` beside the repository
 * (never copied into it), or where an environment variable points.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";

/** `shared/` beside the repository: this file is packages/testing/{src,dist}/shared-data.*. */
const SHARED = fileURLToPath(new URL("../../../../shared/", import.meta.url));

/**
 * The descriptor set of a current Envoy API (`shared/schemas/envoy-api.binpb`, or the file
 * SWITCHYARD_ENVOY_SCHEMA names): what the tests of `switchyard schema add` load.
 */
export function envoySchemaFile(): string {
  const file = process.env.SWITCHYARD_ENVOY_SCHEMA ?? join(SHARED, "schemas", "envoy-api.binpb");
  if (!existsSync(file)) {
    throw new Error(
      `the Envoy API descriptor set is not at ${file} (expected shared/schemas/envoy-api.binpb beside the repository, or SWITCHYARD_ENVOY_SCHEMA)`,
    );
  }
  return file;
}

/** The bytes of envoySchemaFile(). */
export function envoySchemaBytes(): Uint8Array {
  return readFileSync(envoySchemaFile());
}

/**
 * The resources of `newer-fields.yaml` beside the descriptor set, which only it can read (each
 * uses a field the bundled Envoy API lacks), as JSON: a list of resources with "@type".
 */
export function newerFieldsResources(): string {
  const file = join(dirname(envoySchemaFile()), "newer-fields.yaml");
  const { resources } = parseYaml(readFileSync(file, "utf8")) as { resources: unknown };
  return JSON.stringify(resources);
}
