import { create } from "@bufbuild/protobuf";
import { NodeSchema } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import { StatusSchema } from "@switchyard/proto/google/rpc/status_pb";
import { describe, expect, it } from "vitest";
import {
  boundedNode,
  CLIENT_TEXT_LIMITS,
  errorDetailText,
  METADATA_TRUNCATED_KEY,
} from "./client-bounds.js";

const bytes = (text: string) => new TextEncoder().encode(text).length;
const MiB = 1024 * 1024;

describe("what an xDS client says of itself is cut to size before it is kept", () => {
  it("a NACK's error_detail message is kept to errorDetailBytes, with a marker", () => {
    const text = errorDetailText(create(StatusSchema, { code: 3, message: "e".repeat(8 * MiB) }));
    expect(bytes(text ?? "")).toBeLessThanOrEqual(CLIENT_TEXT_LIMITS.errorDetailBytes);
    expect(text).toMatch(/… \[truncated \d+ bytes\]$/);
    expect(errorDetailText(create(StatusSchema, { code: 3, message: "bad" }))).toBe("bad");
    expect(errorDetailText(undefined)).toBeUndefined();
  });

  it("a node within the bounds is the same object", () => {
    const node = create(NodeSchema, { id: "n", cluster: "c", metadata: { team: "a" } });
    expect(boundedNode(node)).toBe(node);
  });

  it("a node's cluster, user agent, locality, features and metadata are each cut to their bound", () => {
    const long = "é".repeat(MiB);
    const node = create(NodeSchema, {
      id: "n",
      cluster: long,
      userAgentName: long,
      userAgentVersionType: { case: "userAgentVersion", value: long },
      locality: { region: long, zone: long, subZone: long },
      clientFeatures: Array.from({ length: 10_000 }, (_, i) => `feature-${i}`),
      metadata: { first: "kept", huge: long, last: "x" },
    });
    const bounded = boundedNode(node);
    expect(bounded.id).toBe("n");
    for (const text of [
      bounded.cluster,
      bounded.userAgentName,
      String(bounded.userAgentVersionType.value),
      bounded.locality?.region ?? "",
      bounded.locality?.zone ?? "",
      bounded.locality?.subZone ?? "",
    ]) {
      expect(bytes(text)).toBeLessThanOrEqual(CLIENT_TEXT_LIMITS.nodeFieldBytes);
      expect(text).toMatch(/… \[truncated \d+ bytes\]$/);
    }
    expect(bounded.clientFeatures).toHaveLength(CLIENT_TEXT_LIMITS.clientFeatures + 1);
    expect(bounded.clientFeatures.at(-1)).toBe("… [9900 more features dropped]");
    expect(bytes(JSON.stringify(bounded.metadata))).toBeLessThanOrEqual(
      CLIENT_TEXT_LIMITS.metadataBytes,
    );
    expect(bounded.metadata).toEqual({
      first: "kept",
      last: "x",
      [METADATA_TRUNCATED_KEY]: expect.stringMatching(
        /^1 of 3 keys dropped… \[truncated \d+ bytes\]$/,
      ),
    });
  });
});
