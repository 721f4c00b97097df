import { CliError } from "./client.js";

export interface BootstrapOptions {
  readonly nodeId: string;
  readonly cluster?: string | undefined;
  /** host:port of Switchyard's xDS server. */
  readonly xdsAddress: string;
  readonly delta: boolean;
}

function hostPort(address: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(address);
  const port = Number(match?.[2]);
  if (!match?.[1] || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new CliError(
      `--xds-address must be HOST:PORT (for example localhost:18000), got "${address}"`,
    );
  }
  return { host: match[1].replace(/^\[|\]$/g, ""), port };
}

/**
 * An Envoy v3 bootstrap that takes every listener and cluster from Switchyard over one ADS stream
 * (SotW, or Delta with `delta`), in proto3 JSON (Envoy reads JSON as YAML).
 */
export function envoyBootstrap(options: BootstrapOptions): object {
  const { host, port } = hostPort(options.xdsAddress);
  const ads = { ads: {}, resourceApiVersion: "V3" };
  return {
    node: { id: options.nodeId, cluster: options.cluster ?? options.nodeId },
    dynamicResources: {
      adsConfig: {
        apiType: options.delta ? "DELTA_GRPC" : "GRPC",
        transportApiVersion: "V3",
        grpcServices: [{ envoyGrpc: { clusterName: "switchyard_xds" } }],
        setNodeOnFirstMessageOnly: true,
      },
      cdsConfig: ads,
      ldsConfig: ads,
    },
    staticResources: {
      clusters: [
        {
          name: "switchyard_xds",
          type: "STRICT_DNS",
          connectTimeout: "5s",
          loadAssignment: {
            clusterName: "switchyard_xds",
            endpoints: [
              {
                lbEndpoints: [
                  { endpoint: { address: { socketAddress: { address: host, portValue: port } } } },
                ],
              },
            ],
          },
          typedExtensionProtocolOptions: {
            "envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
              "@type": "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions",
              explicitHttpConfig: {
                http2ProtocolOptions: { connectionKeepalive: { interval: "30s", timeout: "5s" } },
              },
            },
          },
          upstreamConnectionOptions: { tcpKeepalive: {} },
        },
      ],
    },
    admin: { address: { socketAddress: { address: "127.0.0.1", portValue: 9901 } } },
  };
}

/**
 * A gRPC xDS bootstrap (the JSON of GRPC_XDS_BOOTSTRAP / GRPC_XDS_BOOTSTRAP_CONFIG). gRPC speaks
 * SotW ADS only; `node.locality` must be present, even empty.
 */
export function grpcBootstrap(options: Omit<BootstrapOptions, "delta">): object {
  hostPort(options.xdsAddress);
  return {
    xds_servers: [
      {
        server_uri: options.xdsAddress,
        channel_creds: [{ type: "insecure" }],
        server_features: ["xds_v3"],
      },
    ],
    node: { id: options.nodeId, cluster: options.cluster ?? "", locality: {} },
  };
}
