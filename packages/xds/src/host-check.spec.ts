import { describe, expect, it } from "vitest";
import { hostAllowed, requestHostName } from "./host-check.js";

describe("the host a request names", () => {
  it.each([
    [{ host: "Switchyard.Example:3000" }, "switchyard.example"],
    [{ host: "127.0.0.1:3000" }, "127.0.0.1"],
    [{ host: "[::1]:3000" }, "::1"],
    [{ ":authority": "xds.internal:18000" }, "xds.internal"],
    [{ host: "" }, undefined],
    [{}, undefined],
    // Never a user, a path or a query: only host[:port].
    [{ host: "evil.example@127.0.0.1" }, undefined],
    [{ host: "127.0.0.1/evil.example" }, undefined],
    [{ host: "127.0.0.1?x" }, undefined],
    [{ host: "127.0.0.1#x" }, undefined],
  ])("%j names %j", (headers, expected) => {
    expect(requestHostName(headers)).toBe(expected);
  });
});

describe("the hosts a server answers to (DNS rebinding)", () => {
  it.each([
    ["127.0.0.1", [], true],
    ["10.1.2.3", [], true],
    ["::1", [], true],
    ["localhost", [], true],
    ["localhost.", [], true],
    ["rebind.attacker.example", [], false],
    ["rebind.attacker.example", ["switchyard.example"], false],
    ["switchyard.example", ["Switchyard.Example."], true],
    ["switchyard.example.", ["switchyard.example"], true],
    ["localhost.attacker.example", [], false],
    [undefined, ["switchyard.example"], false],
  ])("%j with names %j: %j", (host, names, expected) => {
    expect(hostAllowed(host, names)).toBe(expected);
  });
});
