import { describe, expect, it } from "vitest";
import { enumValueNames } from "./enum-names.js";
import {
  DiscoveryType,
  DiscoveryTypeSchema,
  ResourceKind,
  ResourceKindSchema,
} from "./gen/switchyard/v1/config_pb.js";

describe("enumValueNames", () => {
  it("lists the names in proto order, without the zero UNSPECIFIED", () => {
    expect(enumValueNames(DiscoveryTypeSchema, DiscoveryType)).toEqual([
      "EDS",
      "STATIC",
      "STRICT_DNS",
      "LOGICAL_DNS",
      "ORIGINAL_DST",
      "CUSTOM",
    ]);
    expect(enumValueNames(ResourceKindSchema, ResourceKind)).toEqual([
      "CLUSTER",
      "LISTENER",
      "ROUTE_CONFIGURATION",
      "NODE_GROUP",
      "RUNTIME_LAYER",
      "SECRET",
    ]);
  });
});
