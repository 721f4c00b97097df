import { describe, expect, it } from "vitest";
import { readEnv } from "./env.js";
import { DEFAULT_XDS_AUTHORITY, describeAuthorities, parseAuthorities } from "./xds-authority.js";

const env = (variables: Record<string, string>) =>
  ({ NODE_ENV: "test", ...variables }) as NodeJS.ProcessEnv;

describe("SWITCHYARD_XDS_AUTHORITY", () => {
  it("defaults to one authority, so xdstp:// names work from npm start", () => {
    expect(readEnv(env({})).SWITCHYARD_XDS_AUTHORITY).toEqual([DEFAULT_XDS_AUTHORITY]);
  });

  it("takes a comma-separated list of host names (with a port or not); none turns xdstp:// off", () => {
    expect(
      readEnv(env({ SWITCHYARD_XDS_AUTHORITY: "xds.example.com, old.example.com:443" }))
        .SWITCHYARD_XDS_AUTHORITY,
    ).toEqual(["xds.example.com", "old.example.com:443"]);
    expect(readEnv(env({ SWITCHYARD_XDS_AUTHORITY: "none" })).SWITCHYARD_XDS_AUTHORITY).toEqual([]);
    expect(describeAuthorities([])).toMatch(/off/);
  });

  it("refuses an entry that cannot be an authority, naming it", () => {
    expect(() => readEnv(env({ SWITCHYARD_XDS_AUTHORITY: "good.example, bad/name" }))).toThrow(
      /SWITCHYARD_XDS_AUTHORITY: xdstp:\/\/ authority "bad\/name" is not a host name/,
    );
    expect(parseAuthorities("xdstp://x")).toMatch(/is not a host name/);
  });
});
