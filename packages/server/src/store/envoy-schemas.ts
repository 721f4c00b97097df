/**
 * Newer Envoy APIs as the database keeps them (the EnvoySchema table), and their installation in
 * this process (@switchyard/proto's installEnvoySchemas): every replica and xDS worker installs
 * what the table holds at start and whenever a change is notified on ENVOY_SCHEMA_CHANNEL, so all
 * of them use the same definitions. What a schema is and how it is checked is the proto package's
 * (envoy-schemas.ts there); this is only storage and delivery.
 */
import { readFile } from "node:fs/promises";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import {
  type EnvoySchema,
  installEnvoySchemas,
  readEnvoySchema,
  type StoredEnvoySchema,
  schemaNameOf,
} from "@switchyard/proto";
import { StartupError } from "../startup-error.js";

/** Postgres NOTIFY channel: a schema was added or removed (no payload). */
export const ENVOY_SCHEMA_CHANNEL = "switchyard_envoy_schema";

/** The added-by of a schema loaded from SWITCHYARD_ENVOY_SCHEMA at start. */
export const FROM_ENVIRONMENT = "SWITCHYARD_ENVOY_SCHEMA";

export interface StoredSchemaRow extends StoredEnvoySchema {
  readonly sha256: string;
  readonly addedBy: string;
  readonly createdAt: Date;
}

/** The stored schemas, oldest first (the order they are installed in). */
export async function readStoredSchemas(
  db: PrismaClient | TransactionClient,
): Promise<StoredSchemaRow[]> {
  const rows = await db.envoySchema.findMany({ orderBy: [{ createdAt: "asc" }, { name: "asc" }] });
  return rows.map((row) => ({
    name: row.name,
    sha256: row.sha256,
    bytes: row.descriptorSet,
    addedBy: row.addedBy,
    createdAt: row.createdAt,
  }));
}

/**
 * The stored schemas checked again (a schema written by another release is held to this one's
 * rules) and ready to install; one that no longer passes is left out, and reported.
 */
export function checkedSchemas(
  rows: readonly StoredEnvoySchema[],
  onRefused: (name: string, problem: string) => void,
): EnvoySchema[] {
  return rows.flatMap((row) => {
    const read = readEnvoySchema(row.name, row.bytes);
    if ("problem" in read) {
      onRefused(row.name, read.problem);
      return [];
    }
    return [read.schema];
  });
}

/**
 * Installs in this process exactly the schemas the database holds (none: the bundled API alone).
 * Returns what was installed.
 */
export async function installStoredSchemas(
  prisma: PrismaClient,
  onRefused: (name: string, problem: string) => void,
): Promise<EnvoySchema[]> {
  const schemas = checkedSchemas(await readStoredSchemas(prisma), onRefused);
  installEnvoySchemas(schemas);
  return schemas;
}

/** Tells every replica and worker to install the stored schemas again. */
export async function notifySchemasChanged(db: PrismaClient | TransactionClient): Promise<void> {
  await db.$executeRawUnsafe(`NOTIFY ${ENVOY_SCHEMA_CHANNEL}`);
}

/**
 * SWITCHYARD_ENVOY_SCHEMA at start: each file is read, checked, and stored unless a schema with
 * its digest already is, so a restart with the same setting changes nothing. A file that cannot
 * be read or is no newer Envoy API stops the start, saying which and why.
 */
export async function storeSchemaFiles(
  prisma: PrismaClient,
  files: readonly string[],
): Promise<void> {
  for (const file of files) {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(file);
    } catch (error) {
      throw new StartupError(
        `cannot read the Envoy API descriptor set ${file} (SWITCHYARD_ENVOY_SCHEMA): ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    const name = schemaNameOf(file);
    const read = readEnvoySchema(name, bytes);
    if ("problem" in read) {
      throw new StartupError(
        `${file} (SWITCHYARD_ENVOY_SCHEMA) is not taken as a newer Envoy API: ${read.problem}`,
      );
    }
    const known = await prisma.envoySchema.findUnique({ where: { sha256: read.schema.sha256 } });
    if (known) continue;
    const named = await prisma.envoySchema.findUnique({ where: { name } });
    if (named) {
      throw new StartupError(
        `${file} (SWITCHYARD_ENVOY_SCHEMA): another Envoy API is already stored as "${name}" (switchyard schema list); rename the file, or remove that one (switchyard schema remove ${name})`,
      );
    }
    await prisma.envoySchema.create({
      data: {
        name,
        sha256: read.schema.sha256,
        descriptorSet: Buffer.from(bytes),
        addedBy: FROM_ENVIRONMENT,
      },
    });
    await notifySchemasChanged(prisma);
  }
}
