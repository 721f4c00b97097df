/**
 * Envoy APIs newer than the bundled protos, loaded at run time.
 *
 * Envoy adds fields every release, and a user on a newer Envoy must not wait for a Switchyard
 * release to use them. A newer API arrives as a `google.protobuf.FileDescriptorSet` (what
 * `buf build -o envoy.binpb` or `protoc --include_imports --descriptor_set_out` makes of Envoy's
 * `api/` tree). `readEnvoySchema` checks one; `installEnvoySchemas` layers the checked sets over
 * the bundled Envoy API in the process-wide `registry` (index.ts), the last installed winning for
 * each type it defines. Everything that looks descriptors up by name (the walks, Any contents,
 * `newestSchema`) then uses the newest definition of each message, its `validate.rules` with it.
 *
 * A set must be a newer edition of the same API, not another one. Envoy's editions do drop,
 * rename and retype the odd field (a not-implemented one, a deprecated one), so a set may differ
 * from the bundled API anywhere except in the fields Switchyard's model reads and writes itself
 * (modelled-fields.ts): those must keep their number, name and type.
 * Pure: no I/O; the server stores the sets and installs them (in every replica and worker).
 */

import { createHash } from "node:crypto";
import { basename, extname } from "node:path";
import {
  createFileRegistry,
  type DescField,
  type DescMessage,
  fromBinary,
  type Registry,
} from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { MODELLED_FIELDS } from "./modelled-fields.js";

/** A descriptor set as stored: its bytes and the name it was added under. */
export interface StoredEnvoySchema {
  readonly name: string;
  readonly bytes: Uint8Array;
}

/** A checked descriptor set, ready to install. */
export interface EnvoySchema extends StoredEnvoySchema {
  /** Hex SHA-256 of the bytes: the set's identity. */
  readonly sha256: string;
  readonly files: number;
  readonly messages: number;
  /** Messages the bundled API lacks, and fields of shared messages it lacks. */
  readonly newMessages: number;
  readonly newFields: number;
  /** @internal the set's own registry */
  readonly registry: Registry;
}

/** The name a descriptor set file is loaded under by default: its file name without extension. */
export function schemaNameOf(file: string): string {
  return basename(file, extname(file));
}

/** The largest descriptor set taken: a whole Envoy API with its imports is about 0.6 MB. */
export const MAX_SCHEMA_BYTES = 32 * 1024 * 1024;
const MAX_FILES = 20_000;

/** The xDS resource types Switchyard serves: a set must define at least one. */
const RESOURCE_TYPES = [
  "envoy.config.cluster.v3.Cluster",
  "envoy.config.endpoint.v3.ClusterLoadAssignment",
  "envoy.config.listener.v3.Listener",
  "envoy.config.route.v3.RouteConfiguration",
  "envoy.extensions.transport_sockets.tls.v3.Secret",
  "envoy.service.runtime.v3.Runtime",
];

/** How a field holds its values, as one comparable word: `repeated message envoy.x.Y`. */
function fieldShape(field: DescField): string {
  switch (field.fieldKind) {
    case "scalar":
      return `scalar ${String(field.scalar)}`;
    case "message":
      return `message ${field.message.typeName}`;
    case "enum":
      return `enum ${field.enum.typeName}`;
    case "list":
      return `repeated ${
        field.listKind === "message"
          ? `message ${field.message.typeName}`
          : field.listKind === "enum"
            ? `enum ${field.enum.typeName}`
            : `scalar ${String(field.scalar)}`
      }`;
    case "map":
      return `map ${String(field.mapKey)} ${
        field.mapKind === "message"
          ? `message ${field.message.typeName}`
          : field.mapKind === "enum"
            ? `enum ${field.enum.typeName}`
            : `scalar ${String(field.scalar)}`
      }`;
  }
}

/**
 * The first way `candidate` (a newer definition of `bundled`) changes a field Switchyard models
 * (MODELLED_FIELDS), or undefined.
 */
function incompatibility(bundled: DescMessage, candidate: DescMessage): string | undefined {
  for (const name of MODELLED_FIELDS[bundled.typeName] ?? []) {
    const field = bundled.fields.find((f) => f.name === name);
    if (field === undefined) continue; // not in the bundled API either
    const same = candidate.fields.find((f) => f.number === field.number);
    if (same === undefined) return `${bundled.typeName}.${name} (field ${field.number}) is missing`;
    if (same.name !== name) {
      return `${bundled.typeName} field ${field.number} is named ${same.name}, not ${name}`;
    }
    if (fieldShape(same) !== fieldShape(field)) {
      return `${bundled.typeName}.${name} is ${fieldShape(same)}, not ${fieldShape(field)}`;
    }
  }
  return undefined;
}

/**
 * `bytes` checked as a descriptor set of a newer Envoy API (see the top of this file), or the
 * reason it is refused, saying what is wrong with it.
 */
export function readEnvoySchema(
  name: string,
  bytes: Uint8Array,
  bundled: Registry,
): { readonly schema: EnvoySchema } | { readonly problem: string } {
  if (bytes.length === 0) return { problem: "the file is empty" };
  if (bytes.length > MAX_SCHEMA_BYTES) {
    return {
      problem: `the file is ${bytes.length} bytes, more than the ${MAX_SCHEMA_BYTES} a descriptor set may have`,
    };
  }
  let registry: Registry;
  let files: number;
  try {
    const set = fromBinary(FileDescriptorSetSchema, bytes);
    files = set.file.length;
    if (files === 0) return { problem: "it is no FileDescriptorSet: it holds no file" };
    if (files > MAX_FILES) {
      return { problem: `it holds ${files} files, more than the ${MAX_FILES} taken` };
    }
    registry = createFileRegistry(set);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      problem: /Unable to resolve|cannot find/i.test(message)
        ? `it does not hold every file its files import (${message}): build it with imports included (buf build, or protoc --include_imports --descriptor_set_out)`
        : `it is no FileDescriptorSet: ${message}`,
    };
  }
  if (!RESOURCE_TYPES.some((type) => registry.getMessage(type) !== undefined)) {
    return {
      problem: `it defines none of the Envoy v3 resource types (${RESOURCE_TYPES.join(", ")}): build it from Envoy's api/ tree`,
    };
  }
  let messages = 0;
  let newMessages = 0;
  let newFields = 0;
  for (const type of registry) {
    if (type.kind !== "message") continue;
    messages++;
    const old = bundled.getMessage(type.typeName);
    if (old === undefined) {
      if (type.typeName.startsWith("envoy.")) newMessages++;
      continue;
    }
    const broken = incompatibility(old, type);
    if (broken) {
      return {
        problem: `it changes a field Switchyard models (${broken}): a descriptor set must be a newer edition of Envoy's API, which keeps them`,
      };
    }
    newFields += type.fields.filter((f) => !old.fields.some((o) => o.number === f.number)).length;
  }
  return {
    schema: {
      name,
      bytes,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      files,
      messages,
      newMessages,
      newFields,
      registry,
    },
  };
}
