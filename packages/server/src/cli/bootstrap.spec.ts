import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { BootstrapSchema } from "@switchyard/proto/envoy/config/bootstrap/v3/bootstrap_pb";
import { ApiConfigSource_ApiType } from "@switchyard/proto/envoy/config/core/v3/config_source_pb";
import { describe, expect, it } from "vitest";
import { envoyBootstrap, grpcBootstrap } from "./bootstrap.js";

describe("switchyard bootstrap", () => {
  it("prints an Envoy bootstrap that Envoy's own schema accepts, over SotW or Delta ADS", () => {
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
      const socket =
        bootstrap.staticResources?.clusters[0]?.loadAssignment?.endpoints[0]?.lbEndpoints[0]
          ?.hostIdentifier;
      expect(
        socket?.case === "endpoint" &&
          socket.value.address?.address.case === "socketAddress" &&
          socket.value.address.address.value.address,
      ).toBe("xds.internal");
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

  it("refuses an xDS address that is not HOST:PORT", () => {
    expect(() => grpcBootstrap({ nodeId: "x", xdsAddress: "localhost" })).toThrow(/HOST:PORT/);
    expect(() =>
      envoyBootstrap({ nodeId: "x", xdsAddress: "localhost:99999", delta: false }),
    ).toThrow(/HOST:PORT/);
  });
});
