/**
 * The type URLs of the xDS resource types Switchyard serves: `DiscoveryRequest.type_url`,
 * `Resource.resource.type_url` and `Any.type_url` all use this form. The one list, for the server,
 * the CLI and the console alike; importing it loads nothing else.
 */
export const TypeUrl = {
  Cluster: "type.googleapis.com/envoy.config.cluster.v3.Cluster",
  ClusterLoadAssignment: "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment",
  Listener: "type.googleapis.com/envoy.config.listener.v3.Listener",
  RouteConfiguration: "type.googleapis.com/envoy.config.route.v3.RouteConfiguration",
  /** VHDS: Delta only (xDS protocol, "RPC Services and Methods for Each Variant": SotW N/A). */
  VirtualHost: "type.googleapis.com/envoy.config.route.v3.VirtualHost",
  Runtime: "type.googleapis.com/envoy.service.runtime.v3.Runtime",
  Secret: "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret",
} as const;
export type TypeUrl = (typeof TypeUrl)[keyof typeof TypeUrl];

/** Each type's usual short name, after its discovery service (CDS, EDS, ...). */
export const XDS_SERVICE_NAME: Readonly<Record<TypeUrl, string>> = {
  [TypeUrl.Cluster]: "CDS",
  [TypeUrl.ClusterLoadAssignment]: "EDS",
  [TypeUrl.Listener]: "LDS",
  [TypeUrl.RouteConfiguration]: "RDS",
  [TypeUrl.VirtualHost]: "VHDS",
  [TypeUrl.Runtime]: "RTDS",
  [TypeUrl.Secret]: "SDS",
};
