import { create, toBinary } from "@bufbuild/protobuf";
import { ClusterSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import { binaryProblem } from "./binary-problem.js";

/** A cluster with two localities, the second with one endpoint at `address`. */
const cluster = (address: string) =>
  toBinary(
    ClusterSchema,
    create(ClusterSchema, {
      name: "payments",
      localities: [
        { zone: "a", endpoints: [{ address: "10.0.0.1", port: 80 }] },
        { zone: "b", endpoints: [{ address, port: 80 }] },
      ],
    }),
  );

/** `bytes` with the UTF-8 of `marker` overwritten by bytes that are no UTF-8. */
function breakUtf8(bytes: Uint8Array, marker: string): Uint8Array {
  const at = Buffer.from(bytes).indexOf(marker);
  const broken = Uint8Array.from(bytes);
  broken.fill(0xff, at, at + marker.length);
  return broken;
}

describe("binaryProblem", () => {
  it("a message that decodes has no problem", () => {
    expect(binaryProblem(ClusterSchema, cluster("10.0.0.2"))).toBeUndefined();
  });

  it("bytes that are no UTF-8 deep in a list are named by their path, list indexes included", () => {
    expect(binaryProblem(ClusterSchema, breakUtf8(cluster("placeholder"), "placeholder"))).toEqual({
      path: "Cluster.localities[1].endpoints[0].address",
      reason: "invalid UTF-8 in a string",
    });
  });

  it("a message cut short is named by the field it ends in", () => {
    const bytes = cluster("10.0.0.2");
    expect(binaryProblem(ClusterSchema, bytes.subarray(0, bytes.length - 2))).toEqual({
      path: "Cluster.localities[1]",
      reason: "premature EOF",
    });
  });

  it("a tag that is no tag is named at the message that holds it", () => {
    expect(binaryProblem(ClusterSchema, Uint8Array.from([0x00, 0x01]))?.path).toBe("Cluster");
  });

  it("an unknown field is skipped, and one that cannot be skipped is named by its number", () => {
    // Field 99, length-delimited, 2 bytes: kept as unknown.
    expect(
      binaryProblem(ClusterSchema, Uint8Array.from([0x9a, 0x06, 0x02, 0x41, 0x42])),
    ).toBeUndefined();
    // Field 99 announcing 5 bytes where there are 2.
    expect(
      binaryProblem(ClusterSchema, Uint8Array.from([0x9a, 0x06, 0x05, 0x41, 0x42]))?.path,
    ).toBe("Cluster (field 99)");
  });
});
