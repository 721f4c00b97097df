import { create, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { AnySchema, anyUnpack } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import { BootstrapSchema } from "@switchyard/proto/envoy/config/bootstrap/v3/bootstrap_pb";
import { ApiConfigSource_ApiType } from "@switchyard/proto/envoy/config/core/v3/config_source_pb";
import { UpstreamTlsContextSchema } from "@switchyard/proto/envoy/extensions/transport_sockets/tls/v3/tls_pb";
import { describe, expect, it } from "vitest";
import { envoyBootstrap, envoyFileBootstrap, grpcBootstrap } from "./bootstrap.js";

describe("switchyard bootstrap", () => {
  it("prints an Envoy bootstrap that Envoy's own schema accepts, over SotW or Delta ADS, reporting load to Switchyard", () => {
    for (const delta of [false, true]) {
      const bootstrap = fromJson(
        BootstrapSchema,
        envoyBootstrap({
          nodeId: "edge-1",
          cluster: "edge",
          xdsAddress: "xds.internal:18000",
          delta,
        }) as JsonValue,
        { registry },
      );
      expect(bootstrap.node?.id).toBe("edge-1");
      expect(bootstrap.node?.cluster).toBe("edge");
      expect(bootstrap.dynamicResources?.adsConfig?.apiType).toBe(
        delta ? ApiConfigSource_ApiType.DELTA_GRPC : ApiConfigSource_ApiType.GRPC,
      );
      expect(bootstrap.dynamicResources?.cdsConfig?.configSourceSpecifier.case).toBe("ads");
      expect(bootstrap.dynamicResources?.ldsConfig?.configSourceSpecifier.case).toBe("ads");
      // Load reports go to Switchyard over the same cluster (LRS).
      const lrs = bootstrap.clusterManager?.loadStatsConfig;
      expect(lrs?.apiType).toBe(ApiConfigSource_ApiType.GRPC);
      const service = lrs?.grpcServices[0]?.targetSpecifier;
      expect(service?.case === "envoyGrpc" && service.value.clusterName).toBe("switchyard_xds");
      const socket =
        bootstrap.staticResources?.clusters[0]?.loadAssignment?.endpoints[0]?.lbEndpoints[0]
          ?.hostIdentifier;
      expect(
        socket?.case === "endpoint" &&
          socket.value.address?.address.case === "socketAddress" &&
          socket.value.address.address.value.address,
      ).toBe("xds.internal");
      // Envoy refuses an internal listener unless its bootstrap has this extension.
      expect(bootstrap.bootstrapExtensions.map((e) => e.typedConfig?.typeUrl)).toEqual([
        "type.googleapis.com/envoy.extensions.bootstrap.internal_listener.v3.InternalListener",
      ]);
    }
  });

  it("prints a gRPC bootstrap with the server, insecure credentials and the node locality gRPC requires", () => {
    expect(
      grpcBootstrap({ nodeId: "client-1", cluster: "payments", xdsAddress: "127.0.0.1:18000" }),
    ).toEqual({
      xds_servers: [
        {
          server_uri: "127.0.0.1:18000",
          channel_creds: [{ type: "insecure" }],
          server_features: ["xds_v3"],
        },
      ],
      node: { id: "client-1", cluster: "payments", locality: {} },
    });
  });

  it("prints an Envoy bootstrap for a server requiring mTLS and a token: a TLS transport socket with the CA and client certificate, and the token as initial metadata", () => {
    const json = envoyBootstrap({
      nodeId: "edge-1",
      xdsAddress: "xds.internal:18000",
      delta: false,
      tls: {
        caFile: "/etc/envoy/xds-ca.pem",
        certFile: "/etc/envoy/tls.crt",
        keyFile: "/etc/envoy/tls.key",
      },
      token: "syx_secret",
    });
    const bootstrap = fromJson(BootstrapSchema, json as JsonValue, { registry });
    const grpcService = bootstrap.dynamicResources?.adsConfig?.grpcServices[0];
    expect(grpcService?.initialMetadata).toMatchObject([
      { key: "authorization", value: "Bearer syx_secret" },
    ]);
    const socket = bootstrap.staticResources?.clusters[0]?.transportSocket;
    expect(socket?.name).toBe("envoy.transport_sockets.tls");
    const tls = anyUnpack(
      socket?.configType.case === "typedConfig" ? socket.configType.value : create(AnySchema),
      UpstreamTlsContextSchema,
    );
    expect(tls?.sni).toBe("xds.internal");
    expect(tls?.commonTlsContext?.alpnProtocols).toEqual(["h2"]);
    const validation = tls?.commonTlsContext?.validationContextType;
    expect(
      validation?.case === "validationContext" && validation.value.trustedCa?.specifier,
    ).toEqual({ case: "filename", value: "/etc/envoy/xds-ca.pem" });
    expect(tls?.commonTlsContext?.tlsCertificates[0]?.certificateChain?.specifier).toEqual({
      case: "filename",
      value: "/etc/envoy/tls.crt",
    });
  });

  it("prints a gRPC bootstrap with gRFC A65 tls channel credentials, and refuses a token gRPC cannot carry", () => {
    expect(
      grpcBootstrap({
        nodeId: "g",
        xdsAddress: "xds.internal:18000",
        tls: { caFile: "/ca.pem", certFile: "/c.pem", keyFile: "/k.pem" },
      }),
    ).toMatchObject({
      xds_servers: [
        {
          channel_creds: [
            {
              type: "tls",
              config: {
                ca_certificate_file: "/ca.pem",
                certificate_file: "/c.pem",
                private_key_file: "/k.pem",
              },
            },
          ],
        },
      ],
    });
    expect(() =>
      grpcBootstrap({ nodeId: "g", xdsAddress: "xds.internal:18000", token: "syx_x" }),
    ).toThrow(/cannot carry a bearer token/);
  });

  it("prints an Envoy bootstrap reading CDS and LDS from a node group's delivered files, and refuses a relative folder", () => {
    const bootstrap = fromJson(
      BootstrapSchema,
      envoyFileBootstrap({
        nodeId: "edge-1",
        groupDir: "/etc/switchyard/default/",
        format: "yaml",
      }) as JsonValue,
      { registry },
    );
    const pathOf = (source: typeof bootstrap.dynamicResources) =>
      source?.cdsConfig?.configSourceSpecifier.case === "pathConfigSource"
        ? source.cdsConfig.configSourceSpecifier.value.path
        : undefined;
    expect(pathOf(bootstrap.dynamicResources)).toBe("/etc/switchyard/default/cds.yaml");
    expect(bootstrap.dynamicResources?.ldsConfig?.configSourceSpecifier).toMatchObject({
      case: "pathConfigSource",
      value: { path: "/etc/switchyard/default/lds.yaml" },
    });
    expect(bootstrap.dynamicResources?.adsConfig).toBeUndefined();
    const withLayer = fromJson(
      BootstrapSchema,
      envoyFileBootstrap({
        nodeId: "edge-1",
        groupDir: "/etc/switchyard/default",
        format: "json",
        runtimeLayers: ["faults"],
      }) as JsonValue,
      { registry },
    );
    expect(withLayer.layeredRuntime?.layers[0]?.layerSpecifier).toMatchObject({
      case: "rtdsLayer",
      value: {
        name: "faults",
        rtdsConfig: {
          configSourceSpecifier: {
            case: "pathConfigSource",
            value: { path: "/etc/switchyard/default/rtds/faults.json" },
          },
        },
      },
    });
    expect(() =>
      envoyFileBootstrap({ nodeId: "e", groupDir: "files/default", format: "yaml" }),
    ).toThrow(/absolute path/);
  });

  it("adds a layered_runtime with one RTDS layer over ADS per --runtime-layer, in order, then an admin layer, that Envoy's schema accepts", () => {
    const bootstrap = fromJson(
      BootstrapSchema,
      envoyBootstrap({
        nodeId: "edge-1",
        xdsAddress: "localhost:18000",
        delta: true,
        runtimeLayers: ["defaults", "faults"],
      }) as JsonValue,
      { registry },
    );
    const layers = bootstrap.layeredRuntime?.layers ?? [];
    expect(layers.map((layer) => [layer.name, layer.layerSpecifier.case])).toEqual([
      ["rtds/defaults", "rtdsLayer"],
      ["rtds/faults", "rtdsLayer"],
      ["admin", "adminLayer"],
    ]);
    const [first] = layers;
    expect(first?.layerSpecifier.case === "rtdsLayer" && first.layerSpecifier.value.name).toBe(
      "defaults",
    );
    expect(
      first?.layerSpecifier.case === "rtdsLayer" &&
        first.layerSpecifier.value.rtdsConfig?.configSourceSpecifier.case,
    ).toBe("ads");
    expect(
      "layeredRuntime" in
        envoyBootstrap({ nodeId: "n", xdsAddress: "localhost:18000", delta: false }),
    ).toBe(false);
    expect(() =>
      envoyBootstrap({
        nodeId: "n",
        xdsAddress: "localhost:18000",
        delta: false,
        runtimeLayers: ["a", "a"],
      }),
    ).toThrow("--runtime-layer a is given twice");
  });

  it("refuses an xDS address that is not HOST:PORT", () => {
    expect(() => grpcBootstrap({ nodeId: "x", xdsAddress: "localhost" })).toThrow(/HOST:PORT/);
    expect(() =>
      envoyBootstrap({ nodeId: "x", xdsAddress: "localhost:99999", delta: false }),
    ).toThrow(/HOST:PORT/);
  });

  it("gRPC with --xdstp-authority maps the authority to Switchyard and names listeners by xdstp://", () => {
    const bootstrap = grpcBootstrap({
      nodeId: "client-1",
      xdsAddress: "127.0.0.1:18000",
      xdstpAuthority: "xds.example.com",
    }) as Record<string, unknown>;
    expect(bootstrap.authorities).toEqual({ "xds.example.com": {} });
    expect(bootstrap.client_default_listener_resource_name_template).toBe(
      "xdstp://xds.example.com/envoy.config.listener.v3.Listener/%s",
    );
  });
});
