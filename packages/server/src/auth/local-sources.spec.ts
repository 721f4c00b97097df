import type { ModelLocalSource } from "@switchyard/snapshot";
import { describe, expect, it } from "vitest";
import { principal } from "./fixtures.js";
import { insideAllowedDirectory, localSourcesDecision } from "./local-sources.js";

const file = (name: string): ModelLocalSource => ({
  path: 'routeConfigurations["r"].x',
  field: "envoy.config.core.v3.DataSource.filename",
  kind: "reads-file",
  does: `read the file ${JSON.stringify(name)}`,
  reads: name,
  instead: "ask an admin, or give the data inline",
});
const env: ModelLocalSource = {
  path: 'clusters["c"].x',
  field: "envoy.config.core.v3.DataSource.environment_variable",
  kind: "reads-env",
  does: 'read the environment variable "TOKEN"',
  reads: null,
  instead: "ask an admin, or give the data inline",
};
/** A use that does more than read a file: writing one, running code, a socket, ... */
const written = (name: string): ModelLocalSource => ({
  path: 'clusters["c"].healthChecks[0].eventLogPath',
  field: "envoy.config.core.v3.HealthCheck.event_log_path",
  kind: "writes-file",
  does: `append health check events to the file ${JSON.stringify(name)}`,
  reads: null,
  instead: null,
});
const inlineLua: ModelLocalSource = {
  path: 'routeConfigurations["r"].y',
  field: "envoy.extensions.filters.http.lua.v3.LuaPerRoute.source_code",
  kind: "runs-code",
  does: "run the Lua code given inline",
  reads: null,
  instead: null,
};

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

  it("members may not make proxies write a file, even under an allowed directory, saying what it does and the rule", () => {
    const decision = localSourcesDecision(
      principal("MEMBER"),
      [written("/etc/envoy/lua/x.lua")],
      ["/etc/envoy/lua"],
    );
    expect(decision).toEqual({
      t: "deny",
      message:
        'clusters["c"].healthChecks[0].eventLogPath makes proxies append health check events to the file "/etc/envoy/lua/x.lua" on their own host, which only an admin may write: ask an admin',
    });
    expect(localSourcesDecision(principal("ADMIN"), [written("/etc/envoy/envoy.yaml")], []).t).toBe(
      "allow",
    );
  });

  it("members may not make proxies run code given inline, whatever directory is allowed", () => {
    expect(localSourcesDecision(principal("MEMBER"), [inlineLua], ["/"])).toEqual({
      t: "deny",
      message:
        'routeConfigurations["r"].y makes proxies run the Lua code given inline on their own host, which only an admin may write: ask an admin',
    });
  });

  it.each([
    ["/etc/envoy/lua/a.lua", true],
    ["/etc/envoy/lua", false],
    ["/etc/envoy/lua/./b/../a.lua", true],
    ["/etc/envoy/lua/../../etc/passwd", false],
    ["relative/a.lua", false],
    ["/etc/envoy/lua/a\u0000.lua", false],
    ["/etc/envoy/lua/a\n.lua", false],
  ])("%s is inside /etc/envoy/lua: %s", (path, inside) => {
    expect(insideAllowedDirectory(path, ["/etc/envoy/lua"])).toBe(inside);
  });
});
