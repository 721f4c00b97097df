import { describe, expect, it } from "vitest";
import { principal } from "./fixtures.js";
import { insideAllowedDirectory, localSourcesDecision } from "./local-sources.js";

const file = (name: string) => ({
  path: 'routeConfigurations["r"].x',
  kind: "file" as const,
  name,
});
const env = { path: 'clusters["c"].x', kind: "environment variable" as const, name: "TOKEN" };

describe("what proxies may be made to read of their own host", () => {
  it("admins may name any file or environment variable", () => {
    expect(
      localSourcesDecision(principal("ADMIN"), [file("/etc/envoy/envoy.yaml"), env], []).t,
    ).toBe("allow");
  });

  it("members may name no file when no directory is allowed, saying where and why", () => {
    const decision = localSourcesDecision(principal("MEMBER"), [file("/etc/envoy/envoy.yaml")], []);
    expect(decision).toEqual({
      t: "deny",
      message:
        'routeConfigurations["r"].x makes proxies read the file "/etc/envoy/envoy.yaml" on their own host, and no directory is allowed to members (SWITCHYARD_MEMBER_FILE_DIRS): ask an admin, or give the data inline',
    });
  });

  it("members may name files under an allowed directory only, never by .. out of it", () => {
    const dirs = ["/etc/envoy/lua/"];
    expect(
      localSourcesDecision(principal("MEMBER"), [file("/etc/envoy/lua/auth.lua")], dirs).t,
    ).toBe("allow");
    expect(
      localSourcesDecision(principal("MEMBER"), [file("/etc/envoy/lua/../envoy.yaml")], dirs).t,
    ).toBe("deny");
    expect(localSourcesDecision(principal("MEMBER"), [file("lua/auth.lua")], dirs).t).toBe("deny");
    expect(localSourcesDecision(principal("MEMBER"), [file("/etc/envoy/luaX/a.lua")], dirs).t).toBe(
      "deny",
    );
  });

  it("members may never name an environment variable", () => {
    expect(localSourcesDecision(principal("MEMBER"), [env], ["/"]).t).toBe("deny");
  });

  it.each([
    ["/etc/envoy/lua/a.lua", true],
    ["/etc/envoy/lua", false],
    ["/etc/envoy/lua/./b/../a.lua", true],
    ["/etc/envoy/lua/../../etc/passwd", false],
    ["relative/a.lua", false],
  ])("%s is inside /etc/envoy/lua: %s", (path, inside) => {
    expect(insideAllowedDirectory(path, ["/etc/envoy/lua"])).toBe(inside);
  });
});
