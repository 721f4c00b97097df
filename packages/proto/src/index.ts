// The hand-written surface of @switchyard/proto. Message schemas and services are imported from
// the generated modules through the package's subpath exports, for example
// `import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb"`.
import { createRegistry, type DescFile, type Registry } from "@bufbuild/protobuf";
import { generatedFiles } from "./gen/files.js";

/** Adds each file and, transitively, the files it imports (well-known types included). */
function withDependencies(files: Iterable<DescFile>): DescFile[] {
  const seen = new Set<DescFile>();
  const visit = (file: DescFile): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const dependency of file.dependencies) visit(dependency);
  };
  for (const file of files) visit(file);
  return [...seen];
}

/**
 * Every message, enum, service and extension generated into this package, plus the well-known
 * types they use. Pass it as `registry` to `anyPack`/`anyUnpack` and as `typeRegistry` to
 * `toJson`/`fromJson` so that `google.protobuf.Any` fields (typed filter configs, extension
 * protocol options, discovery resources) resolve. Immutable.
 */
export const registry: Registry = createRegistry(...withDependencies(generatedFiles));

/**
 * The type URLs of the xDS resource types Switchyard serves: `DiscoveryRequest.type_url`,
 * `Resource.resource.type_url` and `Any.type_url` all use this form.
 */
export const TypeUrl = {
  Cluster: "type.googleapis.com/envoy.config.cluster.v3.Cluster",
  ClusterLoadAssignment: "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment",
  Listener: "type.googleapis.com/envoy.config.listener.v3.Listener",
  RouteConfiguration: "type.googleapis.com/envoy.config.route.v3.RouteConfiguration",
  ScopedRouteConfiguration: "type.googleapis.com/envoy.config.route.v3.ScopedRouteConfiguration",
  VirtualHost: "type.googleapis.com/envoy.config.route.v3.VirtualHost",
  Secret: "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret",
  Runtime: "type.googleapis.com/envoy.service.runtime.v3.Runtime",
} as const;

/** One of the type URLs in {@link TypeUrl}. */
export type TypeUrl = (typeof TypeUrl)[keyof typeof TypeUrl];
