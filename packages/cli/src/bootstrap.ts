import { fileNameOf } from "@switchyard/snapshot/file-names";
import { CliError } from "./client.js";

export interface BootstrapOptions {
  readonly nodeId: string;
  readonly cluster?: string | undefined;
  /** host:port of Switchyard's xDS server. */
  readonly xdsAddress: string;
  readonly delta: boolean;
  /** Reach the xDS server over TLS: trust `caFile`, and present a client certificate (mTLS). */
  readonly tls?: BootstrapTls | undefined;
  /** A bearer token the proxy sends as `authorization` metadata on its xDS stream. */
  readonly token?: string | undefined;
  /** Runtime layers (RTDS) the proxy subscribes to by name over ADS, later ones overriding. */
  readonly runtimeLayers?: readonly string[] | undefined;
  /**
   * gRPC: name resources by xdstp:// names under this authority (federation, gRFC A47): the
   * authority is mapped to Switchyard and listeners are named
   * xdstp://AUTHORITY/envoy.config.listener.v3.Listener/TARGET for both xds:///TARGET and
   * xds://AUTHORITY/TARGET. It must be one the server serves (SWITCHYARD_XDS_AUTHORITY).
   */
  readonly xdstpAuthority?: string | undefined;
}

export interface BootstrapTls {
  /** PEM CA that signed the xDS server's certificate. */
  readonly caFile: string;
  /** PEM client certificate and key, for a server that requires mTLS. */
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
}

function checkTls(tls: BootstrapTls | undefined): void {
  if (tls && (tls.certFile === undefined) !== (tls.keyFile === undefined)) {
    throw new CliError("--client-cert and --client-key go together: give both, or neither");
  }
}

/** Envoy's UpstreamTlsContext for the xDS cluster: HTTP/2 by ALPN, the server checked by SNI. */
function envoyTransportSocket(tls: BootstrapTls, host: string): object {
  return {
    name: "envoy.transport_sockets.tls",
    typedConfig: {
      "@type": "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext",
      sni: host,
      commonTlsContext: {
        alpnProtocols: ["h2"],
        validationContext: { trustedCa: { filename: tls.caFile } },
        ...(tls.certFile !== undefined && tls.keyFile !== undefined
          ? {
              tlsCertificates: [
                {
                  certificateChain: { filename: tls.certFile },
                  privateKey: { filename: tls.keyFile },
                },
              ],
            }
          : {}),
      },
    },
  };
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
 * Envoy's layered_runtime for `names`: one rtds_layer per runtime layer, subscribed by name over
 * ADS, in the order given (a later layer overrides an earlier one), then an admin layer so that
 * `/runtime_modify` still works (Envoy adds one only when the bootstrap has no layered_runtime).
 */
function layeredRuntime(names: readonly string[], sourceOf: (name: string) => object): object {
  const seen = new Set<string>();
  for (const name of names) {
    if (!/^[^\s\p{Cc}]+$/u.test(name))
      throw new CliError(
        `--runtime-layer must name a runtime layer (no spaces or control characters), got ${JSON.stringify(name)}`,
      );
    if (seen.has(name)) throw new CliError(`--runtime-layer ${name} is given twice`);
    seen.add(name);
  }
  return {
    layers: [
      ...names.map((name) => ({
        name: `rtds/${name}`,
        rtdsLayer: { name, rtdsConfig: sourceOf(name) },
      })),
      { name: "admin", adminLayer: {} },
    ],
  };
}

/**
 * Envoy's internal listener bootstrap extension: without it Envoy refuses every listener with
 * `internal_listener` ("InternalListener bootstrap extension is mandatory",
 * `ListenerImpl::buildInternalListener`), so a bootstrap always has it and a published internal
 * listener just works. It costs nothing until such a listener arrives.
 */
const INTERNAL_LISTENER_EXTENSION = {
  name: "envoy.bootstrap.internal_listener",
  typedConfig: {
    "@type": "type.googleapis.com/envoy.extensions.bootstrap.internal_listener.v3.InternalListener",
  },
};

/**
 * An Envoy v3 bootstrap that takes every listener and cluster from Switchyard over one ADS stream
 * (SotW, or Delta with `delta`), and the runtime layers it names, in proto3 JSON (Envoy reads
 * JSON as YAML).
 */
export function envoyBootstrap(options: BootstrapOptions): object {
  const { host, port } = hostPort(options.xdsAddress);
  checkTls(options.tls);
  const ads = { ads: {}, resourceApiVersion: "V3" };
  const switchyard = {
    envoyGrpc: { clusterName: "switchyard_xds" },
    ...(options.token === undefined
      ? {}
      : { initialMetadata: [{ key: "authorization", value: `Bearer ${options.token}` }] }),
  };
  return {
    node: { id: options.nodeId, cluster: options.cluster ?? options.nodeId },
    // Load reports (LRS) to Switchyard: it names the clusters it wants (those with report_load).
    clusterManager: {
      loadStatsConfig: {
        apiType: "GRPC",
        transportApiVersion: "V3",
        grpcServices: [switchyard],
      },
    },
    dynamicResources: {
      adsConfig: {
        apiType: options.delta ? "DELTA_GRPC" : "GRPC",
        transportApiVersion: "V3",
        grpcServices: [switchyard],
        setNodeOnFirstMessageOnly: true,
      },
      cdsConfig: ads,
      ldsConfig: ads,
    },
    ...(options.runtimeLayers && options.runtimeLayers.length > 0
      ? { layeredRuntime: layeredRuntime(options.runtimeLayers, () => ads) }
      : {}),
    bootstrapExtensions: [INTERNAL_LISTENER_EXTENSION],
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
          ...(options.tls ? { transportSocket: envoyTransportSocket(options.tls, host) } : {}),
        },
      ],
    },
    admin: { address: { socketAddress: { address: "127.0.0.1", portValue: 9901 } } },
  };
}

/**
 * An Envoy v3 bootstrap that reads its listeners and clusters from the files `serve
 * --file-delivery` writes (`groupDir`: one node group's folder, as Envoy sees it): filesystem
 * config sources, which Envoy reloads when a file is moved into place.
 */
export function envoyFileBootstrap(options: {
  readonly nodeId: string;
  readonly cluster?: string | undefined;
  readonly groupDir: string;
  readonly format: "yaml" | "json";
  /** Runtime layers read from their delivered files (rtds/NAME). */
  readonly runtimeLayers?: readonly string[] | undefined;
}): object {
  if (!options.groupDir.startsWith("/"))
    throw new CliError(
      `--files must be an absolute path (the node group's folder as Envoy sees it), got "${options.groupDir}"`,
    );
  const dir = options.groupDir.replace(/\/+$/, "");
  const source = (file: string) => ({
    pathConfigSource: { path: `${dir}/${file}.${options.format}` },
    resourceApiVersion: "V3",
  });
  return {
    node: { id: options.nodeId, cluster: options.cluster ?? options.nodeId },
    dynamicResources: { cdsConfig: source("cds"), ldsConfig: source("lds") },
    bootstrapExtensions: [INTERNAL_LISTENER_EXTENSION],
    ...(options.runtimeLayers && options.runtimeLayers.length > 0
      ? {
          layeredRuntime: layeredRuntime(options.runtimeLayers, (name) =>
            source(`rtds/${fileNameOf(name)}`),
          ),
        }
      : {}),
    admin: { address: { socketAddress: { address: "127.0.0.1", portValue: 9901 } } },
  };
}

/**
 * A gRPC xDS bootstrap (the JSON of GRPC_XDS_BOOTSTRAP / GRPC_XDS_BOOTSTRAP_CONFIG). gRPC speaks
 * SotW ADS only; `node.locality` must be present, even empty. With TLS, the channel credentials
 * are gRFC A65's `tls` type (file-based certificates): gRPC C++, Java and Go read it, but
 * @grpc/grpc-js-xds (1.14) knows only `insecure` and `google_default` and refuses this bootstrap.
 * No gRPC bootstrap has a field for a static bearer token, so `token` is refused.
 */
export function grpcBootstrap(options: Omit<BootstrapOptions, "delta">): object {
  hostPort(options.xdsAddress);
  checkTls(options.tls);
  if (options.token !== undefined) {
    throw new CliError(
      "a gRPC xDS bootstrap cannot carry a bearer token (gRPC's channel_creds have no such type): use mTLS (--xds-ca, --client-cert, --client-key) for proxyless gRPC clients",
    );
  }
  const { tls } = options;
  const creds = tls
    ? {
        type: "tls",
        config: {
          ca_certificate_file: tls.caFile,
          ...(tls.certFile === undefined ? {} : { certificate_file: tls.certFile }),
          ...(tls.keyFile === undefined ? {} : { private_key_file: tls.keyFile }),
        },
      }
    : { type: "insecure" };
  return {
    xds_servers: [
      {
        server_uri: options.xdsAddress,
        channel_creds: [creds],
        server_features: ["xds_v3"],
      },
    ],
    node: { id: options.nodeId, cluster: options.cluster ?? "", locality: {} },
    ...(options.xdstpAuthority === undefined
      ? {}
      : {
          // No xds_servers of its own: the authority is served by the top-level server.
          authorities: { [options.xdstpAuthority]: {} },
          client_default_listener_resource_name_template: `xdstp://${options.xdstpAuthority}/envoy.config.listener.v3.Listener/%s`,
        }),
  };
}
