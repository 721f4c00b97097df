import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { NodeMatcherSchema } from "@switchyard/proto/envoy/type/matcher/v3/node_pb";
import { StringMatcherSchema } from "@switchyard/proto/envoy/type/matcher/v3/string_pb";
import { ValueMatcherSchema } from "@switchyard/proto/envoy/type/matcher/v3/value_pb";
import { describe, expect, it } from "vitest";
import { MatcherError, nodeMatcher, stringMatcher, valueMatcher } from "./matchers.js";

const string = (init: MessageInitShape<typeof StringMatcherSchema>) =>
  stringMatcher(create(StringMatcherSchema, init), "m");
const value = (init: MessageInitShape<typeof ValueMatcherSchema>) =>
  valueMatcher(create(ValueMatcherSchema, init), "m");
const nodes = (...init: MessageInitShape<typeof NodeMatcherSchema>[]) =>
  nodeMatcher(init.map((m) => create(NodeMatcherSchema, m)));

describe("Envoy's matchers", () => {
  it("string matchers: exact, prefix, suffix and contains, ignore_case folding both sides", () => {
    expect(string({ matchPattern: { case: "exact", value: "shop-1" } })("shop-1")).toBe(true);
    expect(string({ matchPattern: { case: "exact", value: "shop-1" } })("Shop-1")).toBe(false);
    expect(
      string({ matchPattern: { case: "exact", value: "shop-1" }, ignoreCase: true })("SHOP-1"),
    ).toBe(true);
    expect(string({ matchPattern: { case: "prefix", value: "shop-" } })("shop-9")).toBe(true);
    expect(string({ matchPattern: { case: "suffix", value: "-9" } })("shop-9")).toBe(true);
    expect(string({ matchPattern: { case: "contains", value: "op-" } })("shop-9")).toBe(true);
    expect(string({ matchPattern: { case: "contains", value: "x" } })("shop-9")).toBe(false);
  });

  it("safe_regex is RE2 and must match the whole value; ignore_case does not apply to it", () => {
    const regex = (r: string, ignoreCase = false) =>
      string({ matchPattern: { case: "safeRegex", value: { regex: r } }, ignoreCase });
    expect(regex("shop-\\d+")("shop-12")).toBe(true);
    expect(regex("shop-\\d+")("my-shop-12")).toBe(false);
    expect(regex("shop", true)("SHOP")).toBe(false);
    expect(regex("(?i)shop")("SHOP")).toBe(true);
  });

  it("refuses what it cannot evaluate, naming the field: a bad regex, a custom matcher, no pattern", () => {
    expect(() => string({ matchPattern: { case: "safeRegex", value: { regex: "(" } } })).toThrow(
      MatcherError,
    );
    expect(() => string({ matchPattern: { case: "safeRegex", value: { regex: "(" } } })).toThrow(
      /^m\.safe_regex\.regex: not an RE2 regular expression/,
    );
    expect(() => string({ matchPattern: { case: "custom", value: {} } })).toThrow(/^m\.custom: /);
    expect(() => string({})).toThrow(/^m: one of exact/);
    expect(() =>
      nodes({
        nodeMetadatas: [{ path: [], value: { matchPattern: { case: "boolMatch", value: true } } }],
      }),
    ).toThrow(/^node_matchers\[0\]\.node_metadatas\[0\]\.path: /);
  });

  it("value matchers: null, double (exact, or a range whose end is excluded), bool, list and or", () => {
    expect(value({ matchPattern: { case: "nullMatch", value: {} } })(null)).toBe(true);
    expect(value({ matchPattern: { case: "nullMatch", value: {} } })(0)).toBe(false);
    const range = value({
      matchPattern: {
        case: "doubleMatch",
        value: { matchPattern: { case: "range", value: { start: 1, end: 3 } } },
      },
    });
    expect([range(1), range(2.5), range(3), range("2")]).toEqual([true, true, false, false]);
    expect(value({ matchPattern: { case: "boolMatch", value: true } })(true)).toBe(true);
    expect(value({ matchPattern: { case: "boolMatch", value: true } })("true")).toBe(false);
    const list = value({
      matchPattern: {
        case: "listMatch",
        value: {
          matchPattern: {
            case: "oneOf",
            value: {
              matchPattern: {
                case: "stringMatch",
                value: { matchPattern: { case: "exact", value: "b" } },
              },
            },
          },
        },
      },
    });
    expect([list(["a", "b"]), list(["a"]), list("b")]).toEqual([true, false, false]);
    const either = value({
      matchPattern: {
        case: "orMatch",
        value: {
          valueMatchers: [
            { matchPattern: { case: "boolMatch", value: true } },
            { matchPattern: { case: "nullMatch", value: {} } },
          ],
        },
      },
    });
    expect([either(true), either(null), either(false)]).toEqual([true, true, false]);
  });

  it("present_match, as Envoy: true matches any value the path reaches, null included; false matches nothing", () => {
    const present = value({ matchPattern: { case: "presentMatch", value: true } });
    const absent = value({ matchPattern: { case: "presentMatch", value: false } });
    expect([present(null), present("x"), present(undefined)]).toEqual([true, true, false]);
    expect([absent(undefined), absent("x")]).toEqual([false, false]);
  });

  it("node matchers: any matcher may match (OR); in one, the id and every metadata path must (AND); none matches all", () => {
    const shop = { id: "shop-1", metadata: { team: "shop", zone: { name: "eu-1" } } };
    const cart = { id: "cart-1", metadata: { team: "cart" } };
    const bare = { id: "bare", metadata: undefined };
    expect([shop, cart, bare].map(nodes())).toEqual([true, true, true]);
    const euShop = nodes({
      nodeId: { matchPattern: { case: "prefix", value: "shop-" } },
      nodeMetadatas: [
        {
          path: [
            { segment: { case: "key", value: "zone" } },
            { segment: { case: "key", value: "name" } },
          ],
          value: {
            matchPattern: {
              case: "stringMatch",
              value: { matchPattern: { case: "prefix", value: "eu-" } },
            },
          },
        },
      ],
    });
    expect([shop, cart, bare].map(euShop)).toEqual([true, false, false]);
    const shopOrCart = nodes(
      { nodeId: { matchPattern: { case: "exact", value: "cart-1" } } },
      {
        nodeMetadatas: [
          {
            path: [{ segment: { case: "key", value: "team" } }],
            value: {
              matchPattern: {
                case: "stringMatch",
                value: { matchPattern: { case: "exact", value: "shop" } },
              },
            },
          },
        ],
      },
    );
    expect([shop, cart, bare].map(shopOrCart)).toEqual([true, true, false]);
  });
});
