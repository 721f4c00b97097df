import { DiscoveryType } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import { enumName } from "./proto-enum";

describe("enumName", () => {
  const offered = ["EDS", "STATIC"] as const;

  it("names a value the form offers", () => {
    expect(enumName(DiscoveryType, DiscoveryType.STATIC, offered, "EDS")).toBe("STATIC");
  });

  it("opens anything else (UNSPECIFIED, a value the form leaves out, an unknown number) as the fallback", () => {
    for (const value of [DiscoveryType.UNSPECIFIED, DiscoveryType.CUSTOM, 99])
      expect(enumName(DiscoveryType, value, offered, "EDS")).toBe("EDS");
  });
});
