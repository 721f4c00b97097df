import { describe, expect, it } from "vitest";
import { parseResponseBytes, readEnv as readVariables } from "./env.js";

/** The environment holding just `variables`. */
const readEnv = (variables: Record<string, string>) =>
  readVariables(variables as NodeJS.ProcessEnv);

describe("the xDS response limit (--xds-max-response-bytes, SWITCHYARD_XDS_MAX_RESPONSE_BYTES)", () => {
  it("is gRPC's default max receive message size, 4 MiB, unless set", () => {
    expect(readEnv({}).SWITCHYARD_XDS_MAX_RESPONSE_BYTES).toBe(4 * 1024 * 1024);
  });

  it("takes bytes, KiB or MiB", () => {
    for (const [text, bytes] of [
      ["65536", 65536],
      ["64KiB", 65536],
      ["64k", 65536],
      ["4MiB", 4 * 1024 * 1024],
      [" 16 MiB ", 16 * 1024 * 1024],
    ] as const) {
      expect(parseResponseBytes(text)).toBe(bytes);
    }
    expect(
      readEnv({ SWITCHYARD_XDS_MAX_RESPONSE_BYTES: "8MiB" }).SWITCHYARD_XDS_MAX_RESPONSE_BYTES,
    ).toBe(8 * 1024 * 1024);
  });

  it("refuses what no gRPC client's max receive message size could be, saying what it takes", () => {
    for (const text of ["", "lots", "-1", "1000", "1.5MiB", "2048MiB", "4GiB"]) {
      const parsed = parseResponseBytes(text);
      expect(parsed).toEqual({
        problem: expect.stringContaining("from 16384 (16 KiB) to 2147483647"),
      });
    }
    expect(() => readEnv({ SWITCHYARD_XDS_MAX_RESPONSE_BYTES: "1000" })).toThrow(
      /SWITCHYARD_XDS_MAX_RESPONSE_BYTES/,
    );
  });
});
