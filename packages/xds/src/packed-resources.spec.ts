import { equals, fromBinary, toBinary } from "@bufbuild/protobuf";
import { encodeEnvelope } from "@connectrpc/connect/protocol";
import {
  DeltaDiscoveryResponseSchema,
  DiscoveryResponseSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { compile, TypeUrl, type XdsResource } from "@switchyard/snapshot";
import {
  clusterSpec,
  largeConfigSpec,
  runtimeLayerSpec,
  validationSecretSpec,
  vhdsSpec,
} from "@switchyard/snapshot/fixtures";
import { createTestCa } from "@switchyard/testing";
import { describe, expect, it } from "vitest";
import { toDeltaDiscoveryResponse } from "./delta-transport.js";
import { packedFrame } from "./packed-resources.js";
import { toDiscoveryResponse } from "./sotw-transport.js";
import { wholeOf } from "./subscription.js";

const large = largeConfigSpec(20, 40);
const onDemand = vhdsSpec();
const snapshot = compile({
  ...large,
  // A cluster naming the secret, which is served only to those that name it.
  clusters: [
    ...large.clusters,
    ...onDemand.clusters,
    clusterSpec("to-upstream", [], { tlsSecretName: "upstream-ca" }),
  ],
  routeConfigurations: [...large.routeConfigurations, ...onDemand.routeConfigurations],
  listeners: [...large.listeners, ...onDemand.listeners],
  runtimeLayers: [runtimeLayerSpec("flags", { "feature.on": true, "fault.percent": 10 })],
  secrets: [validationSecretSpec("upstream-ca", createTestCa().cert)],
}).groups[0]?.snapshot;
if (snapshot === undefined) throw new Error("no snapshot");

describe("pre-encoded resources", () => {
  it.each(Object.values(TypeUrl))(
    "a SotW response of %s decodes to exactly what the plainly built one does",
    (typeUrl) => {
      const response = {
        typeUrl,
        versionInfo: "v1",
        nonce: "7",
        resources: [...snapshot.resources(typeUrl).values()],
      };
      const plain = toDiscoveryResponse(response, "switchyard@test", "message");
      const packed = toDiscoveryResponse(response, "switchyard@test", "packed");
      expect(plain.resources.length).toBeGreaterThan(0);
      const decoded = fromBinary(
        DiscoveryResponseSchema,
        toBinary(DiscoveryResponseSchema, packed),
      );
      expect(equals(DiscoveryResponseSchema, decoded, plain)).toBe(true);
      // Encoding it again (another stream) gives the same bytes.
      expect(
        toBinary(
          DiscoveryResponseSchema,
          toDiscoveryResponse(response, "switchyard@test", "packed"),
        ),
      ).toEqual(toBinary(DiscoveryResponseSchema, packed));
    },
  );

  it("a Delta response decodes to each resource's name, version and body, and the removals", () => {
    const resources = [...snapshot.resources(TypeUrl.Cluster).values()];
    const message = toDeltaDiscoveryResponse(
      {
        typeUrl: TypeUrl.Cluster,
        systemVersionInfo: "s1",
        nonce: "3",
        resources,
        removed: ["gone"],
      },
      "switchyard@test",
    );
    const decoded = fromBinary(
      DeltaDiscoveryResponseSchema,
      toBinary(DeltaDiscoveryResponseSchema, message),
    );
    expect(decoded.removedResources).toEqual(["gone"]);
    expect(decoded.nonce).toBe("3");
    expect([decoded.systemVersionInfo, decoded.typeUrl, decoded.controlPlane?.identifier]).toEqual([
      "s1",
      TypeUrl.Cluster,
      "switchyard@test",
    ]);
    expect(
      decoded.resources.map((r) => [r.name, r.version, r.resource?.typeUrl, r.resource?.value]),
    ).toEqual(resources.map((r) => [r.name, r.version, r.typeUrl, r.body]));
  });

  it("an empty version is left out as proto3 leaves it, and each response keeps its own nonce", () => {
    const response = { typeUrl: TypeUrl.Cluster, versionInfo: "", nonce: "1", resources: [] };
    const first = toBinary(DiscoveryResponseSchema, toDiscoveryResponse(response, "cp", "packed"));
    const second = toBinary(
      DiscoveryResponseSchema,
      toDiscoveryResponse({ ...response, nonce: "2" }, "cp", "packed"),
    );
    const plain = toDiscoveryResponse(response, "cp", "message");
    expect(equals(DiscoveryResponseSchema, fromBinary(DiscoveryResponseSchema, first), plain)).toBe(
      true,
    );
    // The same fields in another order: no empty version_info field written.
    expect(first.byteLength).toBe(toBinary(DiscoveryResponseSchema, plain).byteLength);
    expect(fromBinary(DiscoveryResponseSchema, second).nonce).toBe("2");
  });

  describe("framed in one buffer", () => {
    const framedAsConnect = (schema: Parameters<typeof toBinary>[0], message: never) =>
      encodeEnvelope(0, toBinary(schema, message));

    it.each(Object.values(TypeUrl))(
      "a SotW response of %s is the bytes of serializing and framing it",
      (typeUrl) => {
        const message = toDiscoveryResponse(
          {
            typeUrl,
            versionInfo: "v1",
            nonce: "17",
            resources: [...snapshot.resources(typeUrl).values()],
          },
          "switchyard@test",
          "packed",
        );
        expect(Buffer.concat(packedFrame(message) ?? [])).toEqual(
          Buffer.from(framedAsConnect(DiscoveryResponseSchema, message as never)),
        );
      },
    );

    it.each([
      ["no removals", []],
      ["removals, one empty, one not ASCII", ["gone", "", "ünïcødé-🚀", "lone \ud800 surrogate"]],
    ])("a Delta response with %s is the bytes of serializing and framing it", (_, removed) => {
      const message = toDeltaDiscoveryResponse(
        {
          typeUrl: TypeUrl.Cluster,
          systemVersionInfo: "",
          nonce: "300",
          resources: [...snapshot.resources(TypeUrl.Cluster).values()],
          removed,
        },
        "switchyard@test",
      );
      expect(Buffer.concat(packedFrame(message) ?? [])).toEqual(
        Buffer.from(framedAsConnect(DeltaDiscoveryResponseSchema, message as never)),
      );
    });

    it("responses of a list every stream is sent (all of a type) share its body, the bytes of serializing and framing each; another list is framed whole per response", () => {
      const response = (resources: readonly XdsResource[], nonce: string, versionInfo = "v1") =>
        toDiscoveryResponse(
          { typeUrl: TypeUrl.Cluster, versionInfo, nonce, resources },
          "switchyard@test",
          "packed",
        );
      const whole = wholeOf(snapshot.resources(TypeUrl.Cluster));
      const first = response(whole, "1");
      const [head1, body1] = packedFrame(first) ?? [];
      const [, body2] = packedFrame(response(whole, "2")) ?? [];
      const [, otherVersion] = packedFrame(response(whole, "3", "v2")) ?? [];
      expect(body2).toBe(body1);
      expect(otherVersion).not.toBe(body1);
      expect(head1?.byteLength).toBeLessThan(16);
      expect(Buffer.concat(packedFrame(first) ?? [])).toEqual(
        Buffer.from(framedAsConnect(DiscoveryResponseSchema, first as never)),
      );
      expect(packedFrame(response([...whole], "4"))).toHaveLength(1);
    });

    it("a response not built packed (with TTLs, or for REST) is left to the serializer", () => {
      const resources = [...snapshot.resources(TypeUrl.Cluster).values()];
      const plain = { typeUrl: TypeUrl.Cluster, versionInfo: "v", nonce: "1", resources };
      expect(packedFrame(toDiscoveryResponse(plain, "cp", "message"))).toBeUndefined();
      expect(
        packedFrame(
          toDiscoveryResponse({ ...plain, ttl: { ttlMs: 1000 } } as never, "cp", "packed"),
        ),
      ).toBeUndefined();
    });
  });
});
