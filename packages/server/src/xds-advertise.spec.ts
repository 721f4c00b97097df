import { describe, expect, it } from "vitest";
import { readEnv } from "./env.js";
import { type XdsAdvertisement, xdsAddressProblem, xdsServerInfo } from "./xds-advertise.js";

const ad = (over: Partial<XdsAdvertisement>): XdsAdvertisement => ({
  host: "127.0.0.1",
  port: 18100,
  tls: false,
  auth: "none",
  ...over,
});

describe("the xDS address proxies are told to dial", () => {
  it.each([
    ["a loopback bind: its address and the port listened on", ad({}), undefined, "127.0.0.1:18100"],
    ["an IPv6 bind: in brackets", ad({ host: "::1" }), undefined, "[::1]:18100"],
    ["a named bind: as given", ad({ host: "xds.internal" }), "x:3000", "xds.internal:18100"],
    [
      "a wildcard bind: the host the caller reached the API by",
      ad({ host: "0.0.0.0" }),
      "switchyard.example.com:3100",
      "switchyard.example.com:18100",
    ],
    ["a wildcard IPv6 bind, an IPv6 Host", ad({ host: "::" }), "[fd00::5]:3000", "[fd00::5]:18100"],
    [
      "a wildcard bind and no Host: localhost",
      ad({ host: "0.0.0.0" }),
      undefined,
      "localhost:18100",
    ],
    ["a Host that is no host name: localhost", ad({ host: "0.0.0.0" }), "a b", "localhost:18100"],
    [
      "--advertise-xds-address wins over the bind",
      ad({ host: "0.0.0.0", advertised: "xds.example.com:443" }),
      "switchyard.example.com:3100",
      "xds.example.com:443",
    ],
  ])("%s", (_rule, given, requestHost, expected) => {
    expect(xdsServerInfo(given, requestHost).xdsAddress).toBe(expected);
  });

  it("says whether the port speaks TLS and how it authenticates clients", () => {
    expect(xdsServerInfo(ad({ tls: true, auth: "token" }), undefined)).toMatchObject({
      xdsTls: true,
      xdsAuth: "token",
    });
  });

  it.each([
    ["xds.example.com:18000", true],
    ["10.0.0.5:18000", true],
    ["[fd00::1]:18000", true],
    ["xds.example.com", false],
    ["xds.example.com:0", false],
    ["xds.example.com:70000", false],
    ["http://xds.example.com:18000", false],
    ["fd00::1:18000", false],
  ])("%s is an address a proxy can dial: %s", (address, ok) => {
    expect(xdsAddressProblem(address) === undefined).toBe(ok);
  });

  it("SWITCHYARD_ADVERTISE_XDS_ADDRESS is checked when the environment is read", () => {
    const env = (value: string) =>
      readEnv({ NODE_ENV: "test", SWITCHYARD_ADVERTISE_XDS_ADDRESS: value } as NodeJS.ProcessEnv);
    expect(env("xds.example.com:18000").SWITCHYARD_ADVERTISE_XDS_ADDRESS).toBe(
      "xds.example.com:18000",
    );
    expect(() => env("xds.example.com")).toThrow(/SWITCHYARD_ADVERTISE_XDS_ADDRESS: .*HOST:PORT/);
  });
});
