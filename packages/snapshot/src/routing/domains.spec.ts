import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { virtualHostSpec } from "../fixtures.js";
import { chooseVirtualHost, stripHostPort } from "./domains.js";
import { answered, ask, edgeConfig, prefixRoute } from "./routing-fixtures.js";

const hosts = (...domains: string[][]) => domains.map((d, i) => ({ name: `vh${i}`, domains: d }));

describe("virtual host choice (VirtualHost.domains search order)", () => {
  it("an exact domain wins over a suffix wildcard that also matches", () => {
    const chosen = chooseVirtualHost(
      "api.example.com",
      hosts(["*.example.com"], ["api.example.com"]),
    );
    expect(chosen).toEqual({ index: 1, name: "vh1", domain: "api.example.com", how: "exact" });
  });

  it("the longest suffix wildcard wins over a shorter one", () => {
    const chosen = chooseVirtualHost("foo-bar.baz.com", hosts(["*.baz.com"], ["*-bar.baz.com"]));
    expect(chosen?.name).toBe("vh1");
    expect(chosen?.how).toBe("suffix-wildcard");
  });

  it("a suffix wildcard wins over a longer prefix wildcard", () => {
    const chosen = chooseVirtualHost("api.example.com", hosts(["api.example.*"], ["*.com"]));
    expect(chosen).toMatchObject({ name: "vh1", how: "suffix-wildcard", domain: "*.com" });
  });

  it("the longest prefix wildcard wins among prefix wildcards", () => {
    const chosen = chooseVirtualHost("api.example.com", hosts(["api.*"], ["api.example.*"]));
    expect(chosen).toMatchObject({ name: "vh1", how: "prefix-wildcard" });
  });

  it("* is chosen only when nothing else matches", () => {
    expect(chooseVirtualHost("other.org", hosts(["*"], ["*.example.com"]))).toMatchObject({
      name: "vh0",
      how: "any",
    });
    expect(chooseVirtualHost("a.example.com", hosts(["*"], ["*.example.com"]))?.name).toBe("vh1");
  });

  it("domains match case-insensitively", () => {
    expect(chooseVirtualHost("api.example.com", hosts(["API.Example.COM"]))?.how).toBe("exact");
    expect(chooseVirtualHost("x.example.com", hosts(["*.EXAMPLE.com"]))?.how).toBe(
      "suffix-wildcard",
    );
  });

  it("a wildcard does not match the empty string", () => {
    expect(chooseVirtualHost("-bar.foo.com", hosts(["*-bar.foo.com"]))).toBeNull();
    expect(chooseVirtualHost("example.com", hosts(["*.example.com"]))).toBeNull();
    expect(chooseVirtualHost("foo.", hosts(["foo.*"]))).toBeNull();
  });

  it("a domain held by two virtual hosts is refused, as Envoy refuses the configuration", () => {
    const config = edgeConfig([
      virtualHostSpec("a", ["shop.example.com"], [prefixRoute("/", "a")]),
      virtualHostSpec("b", ["SHOP.example.com"], [prefixRoute("/", "b")]),
    ]);
    expect(ask(config)).toMatchObject({
      t: "refused",
      code: "invalid-config",
      path: 'routeConfigurations["routes"].virtualHosts[1].domains',
    });
  });

  it("no matching domain means no virtual host (Envoy answers 404)", () => {
    const result = answered(
      ask(edgeConfig([virtualHostSpec("shop", ["shop.example.com"], [prefixRoute("/", "shop")])]), {
        authority: "other.example.com",
      }),
    );
    expect(result.virtualHost).toBeNull();
    expect(result.verdict).toEqual({ t: "no-virtual-host", status: 404 });
  });

  it("domain order holds for any generated set of domains", () => {
    const label = fc.stringMatching(/^[a-z]{1,4}$/);
    fc.assert(
      fc.property(
        fc.array(label, { minLength: 1, maxLength: 4 }),
        fc.uniqueArray(
          fc.oneof(
            label.map((l) => `${l}.example.com`),
            label.map((l) => `*.${l}.example.com`),
            fc.constant("*.example.com"),
            label.map((l) => `${l}.*`),
            fc.constant("*"),
          ),
          { minLength: 1, maxLength: 6 },
        ),
        (hostLabels, domains) => {
          const host = `${hostLabels.join(".")}.example.com`;
          const chosen = chooseVirtualHost(
            host,
            domains.map((d, i) => ({ name: `vh${i}`, domains: [d] })),
          );
          const exact = domains.filter((d) => d === host);
          const suffixes = domains.filter(
            (d) => d.startsWith("*.") && host.endsWith(d.slice(1)) && host.length > d.length - 1,
          );
          const prefixes = domains.filter(
            (d) =>
              d !== "*" &&
              d.endsWith("*") &&
              !d.startsWith("*") &&
              host.startsWith(d.slice(0, -1)) &&
              host.length > d.length - 1,
          );
          const longest = (ds: string[]) => ds.reduce((a, b) => (b.length > a.length ? b : a));
          if (exact.length > 0) return chosen?.how === "exact" && chosen.domain === host;
          if (suffixes.length > 0)
            return chosen?.how === "suffix-wildcard" && chosen.domain === longest(suffixes);
          if (prefixes.length > 0)
            return chosen?.how === "prefix-wildcard" && chosen.domain === longest(prefixes);
          if (domains.includes("*")) return chosen?.how === "any";
          return chosen === null;
        },
      ),
    );
  });
});

describe("the Host's port", () => {
  const shop = edgeConfig([
    virtualHostSpec("shop", ["shop.example.com"], [prefixRoute("/", "shop")]),
  ]);

  it("a Host with a port matches no domain that lacks it", () => {
    const result = answered(ask(shop, { authority: "shop.example.com:8080" }));
    expect(result.matchedHost).toBe("shop.example.com:8080");
    expect(result.verdict.t).toBe("no-virtual-host");
  });

  it("a domain that lists the port matches it", () => {
    const config = edgeConfig([
      virtualHostSpec("shop", ["shop.example.com:8080"], [prefixRoute("/", "shop")]),
    ]);
    expect(answered(ask(config, { authority: "shop.example.com:8080" })).virtualHost?.how).toBe(
      "exact",
    );
  });

  it("strip_matching_host_port removes the listener's own port, and only it", () => {
    const config = edgeConfig(
      [virtualHostSpec("shop", ["shop.example.com"], [prefixRoute("/", "shop")])],
      { chain: { hcmExtra: { stripMatchingHostPort: true } } },
    );
    expect(answered(ask(config, { authority: "shop.example.com:8080" })).virtualHost?.name).toBe(
      "shop",
    );
    expect(answered(ask(config, { authority: "shop.example.com:9090" })).virtualHost).toBeNull();
  });

  it("strip_any_host_port removes any port, also from the upstream Host", () => {
    const config = edgeConfig(
      [virtualHostSpec("shop", ["shop.example.com"], [prefixRoute("/", "shop")])],
      { chain: { hcmExtra: { stripAnyHostPort: true } } },
    );
    const result = answered(ask(config, { authority: "shop.example.com:9090" }));
    expect(result.virtualHost?.name).toBe("shop");
    expect(result.requestHeaders.result).toContainEqual([":authority", "shop.example.com"]);
  });

  it("ignore_port_in_host_matching ignores the port for the choice only", () => {
    const config = edgeConfig(
      [virtualHostSpec("shop", ["shop.example.com"], [prefixRoute("/", "shop")])],
      { routeConfiguration: { extra: { ignorePortInHostMatching: true } } },
    );
    const result = answered(ask(config, { authority: "shop.example.com:9090" }));
    expect(result.virtualHost?.name).toBe("shop");
    expect(result.requestHeaders.result).toContainEqual([":authority", "shop.example.com:9090"]);
  });

  it("only a numeric port is stripped, and an IPv6 literal keeps its colons", () => {
    expect(stripHostPort("[::1]:8080", { t: "any" })).toBe("[::1]");
    expect(stripHostPort("[::1]", { t: "any" })).toBe("[::1]");
    expect(stripHostPort("example.com:http", { t: "any" })).toBe("example.com:http");
  });
});
