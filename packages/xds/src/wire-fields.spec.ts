import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  DeltaDiscoveryRequestSchema,
  DiscoveryRequestSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { describe, expect, it } from "vitest";
import { withoutFields } from "./wire-fields.js";

const NODE = new Set([2]); // DiscoveryRequest.node
const node = {
  id: "envoy-1",
  cluster: "edge",
  extensions: Array.from({ length: 50 }, (_, i) => ({ name: `envoy.filters.ext_${i}` })),
};
const rest = {
  versionInfo: "v1",
  resourceNames: ["a", "b"],
  typeUrl: "type.googleapis.com/envoy.config.cluster.v3.Cluster",
  responseNonce: "7",
  errorDetail: { code: 3, message: "bad" },
};

const bytes = (...parts: number[][]) => new Uint8Array(parts.flat());

describe("withoutFields (a message's top level, read without decoding it)", () => {
  it("leaves a field out wherever it stands, however often, and every other byte as it was", () => {
    const withNode = toBinary(
      DiscoveryRequestSchema,
      create(DiscoveryRequestSchema, { ...rest, node }),
    );
    const withoutNode = toBinary(DiscoveryRequestSchema, create(DiscoveryRequestSchema, rest));
    expect(withoutFields(withNode, NODE)).toEqual(withoutNode);
    // The node first, and once more at the end (a decoder merges repeats: both go).
    const nodeBytes = toBinary(DiscoveryRequestSchema, create(DiscoveryRequestSchema, { node }));
    const twice = new Uint8Array([...nodeBytes, ...withoutNode, ...nodeBytes]);
    expect(withoutFields(twice, NODE)).toEqual(withoutNode);
    expect(fromBinary(DiscoveryRequestSchema, withoutFields(twice, NODE))).toEqual(
      fromBinary(DiscoveryRequestSchema, withoutNode),
    );
    // Delta's node is field 1.
    const delta = toBinary(
      DeltaDiscoveryRequestSchema,
      create(DeltaDiscoveryRequestSchema, { node, typeUrl: rest.typeUrl, responseNonce: "3" }),
    );
    expect(fromBinary(DeltaDiscoveryRequestSchema, withoutFields(delta, new Set([1])))).toEqual(
      create(DeltaDiscoveryRequestSchema, { typeUrl: rest.typeUrl, responseNonce: "3" }),
    );
  });

  it("steps over every wire type: varints (multi-byte), fixed 64 and 32 bits, length-delimited", () => {
    const message = bytes(
      [0xa0, 0x06, 0xff, 0xff, 0x03], // field 100 (a two-byte tag), varint 65535
      [0x09, 1, 2, 3, 4, 5, 6, 7, 8], // field 1, fixed64
      [0x12, 0x02, 0x68, 0x69], // field 2, "hi"
      [0x1d, 9, 9, 9, 9], // field 3, fixed32
    );
    expect(withoutFields(message, new Set([2]))).toEqual(
      bytes([0xa0, 0x06, 0xff, 0xff, 0x03], [0x09, 1, 2, 3, 4, 5, 6, 7, 8], [0x1d, 9, 9, 9, 9]),
    );
    expect(withoutFields(message, new Set([1, 3, 100]))).toEqual(bytes([0x12, 0x02, 0x68, 0x69]));
  });

  it("gives the message itself when the field is absent, or when it cannot walk it (the decoder judges those as before)", () => {
    const plain = toBinary(DiscoveryRequestSchema, create(DiscoveryRequestSchema, rest));
    expect(withoutFields(plain, NODE)).toBe(plain);
    const truncated = bytes([0x12, 0x05, 0x68]); // says 5 bytes, holds 1
    expect(withoutFields(truncated, NODE)).toBe(truncated);
    const group = bytes([0x0b, 0x0c], [0x12, 0x00]); // a group (wire type 3)
    expect(withoutFields(group, NODE)).toBe(group);
    const endless = bytes([0x80, 0x80, 0x80]); // a tag that never ends
    expect(withoutFields(endless, NODE)).toBe(endless);
  });
});
