// The hand-written surface of @switchyard/proto. Message schemas and services are imported from
// the generated modules through the package's subpath exports, for example
// `import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb"`.
import {
  createFileRegistry,
  createRegistry,
  type DescMessage,
  fromBinary,
  type Registry,
} from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { readEnvoySchema as checkEnvoySchema, type EnvoySchema } from "./envoy-schemas.js";
import { ownFiles } from "./gen/own-files.js";
import { registrySetBase64 } from "./gen/registry-set.js";

/** The Envoy API built into Switchyard: the protos of the pinned @grpc/grpc-js-xds. */
export const BUNDLED_ENVOY_API = "the Envoy API bundled with Switchyard (@grpc/grpc-js-xds 1.14.1)";

const bundledEnvoy: Registry = createFileRegistry(
  fromBinary(FileDescriptorSetSchema, Buffer.from(registrySetBase64, "base64")),
);

/**
 * The process-wide registry as a Registry whose contents `installEnvoySchemas` replaces: the
 * bundled Envoy API, the installed newer ones over it in order, and Switchyard's own API.
 */
class LayeredRegistry implements Registry {
  readonly kind = "registry" as const;
  #current: Registry = createRegistry(bundledEnvoy, ...ownFiles);
  #installed: readonly EnvoySchema[] = [];
  #generation = 0;

  install(schemas: readonly EnvoySchema[]): void {
    this.#current = createRegistry(bundledEnvoy, ...schemas.map((s) => s.registry), ...ownFiles);
    this.#installed = schemas;
    this.#generation++;
  }
  get installed(): readonly EnvoySchema[] {
    return this.#installed;
  }
  get generation(): number {
    return this.#generation;
  }
  [Symbol.iterator]() {
    return this.#current[Symbol.iterator]();
  }
  get(typeName: string) {
    return this.#current.get(typeName);
  }
  getMessage(typeName: string) {
    return this.#current.getMessage(typeName);
  }
  getEnum(typeName: string) {
    return this.#current.getEnum(typeName);
  }
  getExtension(typeName: string) {
    return this.#current.getExtension(typeName);
  }
  getExtensionFor(extendee: DescMessage, no: number) {
    return this.#current.getExtensionFor(extendee, no);
  }
  getService(typeName: string) {
    return this.#current.getService(typeName);
  }
}

const layered = new LayeredRegistry();

/**
 * Every Envoy v3 message, enum and extension the pinned Envoy protos define (every v3 file whose
 * imports are shipped: listener, network, HTTP and UDP filters, tracers, access loggers, cluster
 * extensions, transport sockets, matchers, ...), the xDS/udpa types, the well-known types, and
 * Switchyard's own API; with the newest definition of each type from the newer Envoy APIs
 * installed (`installEnvoySchemas`). Pass it as `registry` to `anyPack`/`anyUnpack` and as
 * `typeRegistry` to `toJson`/`fromJson` so that `google.protobuf.Any` fields (typed filter
 * configs, extension protocol options, discovery resources) resolve.
 *
 * The Envoy part is built from one FileDescriptorSet (scripts/generate.mjs), so its descriptors
 * are other instances than the generated schemas (`ClusterSchema`): compare messages by
 * `$typeName`, never by descriptor identity.
 */
export const registry: Registry = layered;

/**
 * Replaces the newer Envoy APIs layered over the bundled one, oldest first: each type is then
 * defined by the last schema that has it. Process-wide; the server calls it at start and when the
 * stored schemas change. `[]` goes back to the bundled API alone.
 */
export function installEnvoySchemas(schemas: readonly EnvoySchema[]): void {
  layered.install(schemas);
}

/** The newer Envoy APIs installed, oldest first. */
export function installedEnvoySchemas(): readonly EnvoySchema[] {
  return layered.installed;
}

/**
 * A number that changes whenever `installEnvoySchemas` runs: what caches of descriptor-derived
 * results (compiled resources, validation verdicts) key on, so none outlives the API it used.
 */
export function schemaGeneration(): number {
  return layered.generation;
}

/**
 * The newest definition of `schema`'s message: from the last installed schema that defines it,
 * else `schema` itself (the generated, bundled one). Typed as `schema`, since a newer edition
 * keeps every field of it (readEnvoySchema checks that): what encoding, decoding and printing
 * Envoy resources must use, so that fields of a newer Envoy are kept.
 */
export function newestSchema<Desc extends DescMessage>(schema: Desc): Desc {
  const installed = layered.installed;
  for (let i = installed.length - 1; i >= 0; i--) {
    const found = installed[i]?.registry.getMessage(schema.typeName);
    if (found) return found as Desc;
  }
  return schema;
}

/** Checks a descriptor set against the bundled Envoy API (envoy-schemas.ts). */
export function readEnvoySchema(name: string, bytes: Uint8Array) {
  return checkEnvoySchema(name, bytes, bundledEnvoy);
}

/** The Envoy APIs in use, in words: the bundled one and each installed one by name and digest. */
export function envoyApisInUse(): string {
  const installed = layered.installed.map(
    (schema) => `"${schema.name}" (${schema.sha256.slice(0, 12)})`,
  );
  return installed.length === 0
    ? BUNDLED_ENVOY_API
    : `${BUNDLED_ENVOY_API} and the schema${installed.length > 1 ? "s" : ""} ${installed.join(", ")}`;
}

export {
  type EnvoySchema,
  MAX_SCHEMA_BYTES,
  type StoredEnvoySchema,
  schemaNameOf,
} from "./envoy-schemas.js";
