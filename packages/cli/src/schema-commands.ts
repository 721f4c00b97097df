/**
 * `switchyard schema add FILE [--name NAME]`, `schema list` and `schema remove NAME`: Envoy APIs
 * newer than the one bundled with Switchyard, as FileDescriptorSets (ConfigService's
 * AddEnvoySchema, ListEnvoySchemas, RemoveEnvoySchema). Every replica and worker of the server
 * uses them as soon as they are added.
 */
import { readFileSync, statSync } from "node:fs";
import { toJson } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { MAX_SCHEMA_BYTES, schemaNameOf } from "@switchyard/proto";
import { type EnvoySchema, EnvoySchemaSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { stringify as toYaml } from "yaml";
import { CliError, type ConfigClient } from "./client.js";
import { type Output, table } from "./output.js";

function readSchemaFile(file: string): Uint8Array {
  try {
    const size = statSync(file).size;
    if (size > MAX_SCHEMA_BYTES)
      throw new CliError(
        `${file} is ${size} bytes, more than the ${MAX_SCHEMA_BYTES} a descriptor set may have`,
      );
    return readFileSync(file);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(
      `cannot read the descriptor set ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function summary(schema: EnvoySchema): string {
  return `${schema.newMessages} messages and ${schema.newFields} fields the bundled Envoy API lacks`;
}

export async function addSchema(
  client: ConfigClient,
  output: Output,
  file: string,
  options: { name?: string },
): Promise<void> {
  const name = options.name ?? schemaNameOf(file);
  const schema = await client.addEnvoySchema({ name, descriptorSet: readSchemaFile(file) });
  output.out(
    `Envoy API "${schema.name}" loaded (sha256 ${schema.sha256.slice(0, 12)}, ${schema.files} files): ${summary(schema)}\n`,
  );
}

export async function listSchemas(
  client: ConfigClient,
  output: Output,
  format: string,
): Promise<void> {
  const { schemas, bundled } = await client.listEnvoySchemas({});
  if (format !== "table") {
    const list = schemas.map((s) => toJson(EnvoySchemaSchema, s));
    output.out(format === "json" ? `${JSON.stringify(list, null, 2)}\n` : toYaml(list));
    return;
  }
  if (schemas.length === 0) {
    output.out(`no newer Envoy API loaded: ${bundled} is in use\n`);
    return;
  }
  output.out(
    `${table(
      ["NAME", "SHA-256", "FILES", "NEW MESSAGES", "NEW FIELDS", "ADDED BY", "ADDED"],
      schemas.map((s) => [
        s.name,
        s.sha256.slice(0, 12),
        String(s.files),
        String(s.newMessages),
        String(s.newFields),
        s.addedBy,
        s.createTime
          ? timestampDate(s.createTime).toISOString().slice(0, 19).replace("T", " ")
          : "",
      ]),
    )}\nover ${bundled}; where several define a type, the last one listed wins\n`,
  );
}

export async function removeSchema(
  client: ConfigClient,
  output: Output,
  name: string,
): Promise<void> {
  await client.removeEnvoySchema({ name });
  output.out(`Envoy API "${name}" removed\n`);
}
