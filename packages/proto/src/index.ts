// The hand-written surface of @switchyard/proto. Message schemas and services are imported from
// the generated modules through the package's subpath exports, for example
// `import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb"`.
import { createFileRegistry, createRegistry, fromBinary, type Registry } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { ownFiles } from "./gen/own-files.js";
import { registrySetBase64 } from "./gen/registry-set.js";

/**
 * Every Envoy v3 message, enum and extension the pinned Envoy protos define (every v3 file whose
 * imports are shipped: listener, network, HTTP and UDP filters, tracers, access loggers, cluster
 * extensions, transport sockets, matchers, ...), the xDS/udpa types, the well-known types, and
 * Switchyard's own API. Pass it as `registry` to `anyPack`/`anyUnpack` and as `typeRegistry` to
 * `toJson`/`fromJson` so that `google.protobuf.Any` fields (typed filter configs, extension
 * protocol options, discovery resources) resolve. Immutable.
 *
 * The Envoy part is built from one FileDescriptorSet (scripts/generate.mjs), so its descriptors
 * are other instances than the generated schemas (`ClusterSchema`): compare messages by
 * `$typeName`, never by descriptor identity.
 */
export const registry: Registry = createRegistry(
  createFileRegistry(fromBinary(FileDescriptorSetSchema, Buffer.from(registrySetBase64, "base64"))),
  ...ownFiles,
);
