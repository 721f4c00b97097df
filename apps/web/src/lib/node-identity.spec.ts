import { create } from "@bufbuild/protobuf";
import { NodeLocalitySchema } from "@switchyard/proto/switchyard/v1/status_pb";
import { describe, expect, it } from "vitest";
import { localityText, metadataEntries } from "./node-identity";

describe("localityText", () => {
  it("joins region, zone and sub-zone, leaving out the empty parts", () => {
    expect(localityText(create(NodeLocalitySchema, { region: "eu", zone: "eu-1a" }))).toBe(
      "eu / eu-1a",
    );
    expect(localityText(create(NodeLocalitySchema, { region: "eu", subZone: "rack-4" }))).toBe(
      "eu / rack-4",
    );
  });

  it("is empty when the node reported no locality", () => {
    expect(localityText(undefined)).toBe("");
    expect(localityText(create(NodeLocalitySchema))).toBe("");
  });
});

describe("metadataEntries", () => {
  it("flattens nested objects into dotted keys, sorted, and shows non-strings as JSON", () => {
    expect(
      metadataEntries({
        team: "shop",
        labels: { tier: "edge", canary: true },
        weight: 3,
        ports: [80, 443],
        none: null,
        empty: {},
      }),
    ).toEqual([
      ["empty", "{}"],
      ["labels.canary", "true"],
      ["labels.tier", "edge"],
      ["none", "null"],
      ["ports", "[80,443]"],
      ["team", "shop"],
      ["weight", "3"],
    ]);
  });

  it("is empty for no metadata", () => {
    expect(metadataEntries(undefined)).toEqual([]);
    expect(metadataEntries({})).toEqual([]);
  });
});
