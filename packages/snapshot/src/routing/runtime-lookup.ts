/**
 * Runtime keys as the router reads them, from the ConfigSpec's runtime layers (RTDS) or as
 * router_check_tool mocks them. Pure.
 *
 * A route's runtime_fraction (https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/route/v3/route_components.proto,
 * RouteMatch.runtime_fraction) is Envoy's Snapshot::featureEnabled(key, default, random_value):
 * the runtime value when the key is set (an integer is a percentage, over 100 always enabled),
 * else the default fraction; enabled when random_value % denominator < numerator. A weighted
 * cluster's weight may come from the integer runtime key `<runtime_key_prefix>.<cluster name>`.
 *
 * Layers: a proxy layers the runtime layers its bootstrap names, later ones winning; which the
 * ConfigSpec cannot say. So a key two layers set to different values cannot be resolved, and the
 * answer says so rather than guess an order.
 */
import type { FractionalPercent } from "@switchyard/proto/envoy/type/v3/percent_pb";
import { quotedInput } from "../bounded-text.js";
import type { RuntimeLayerSpec, RuntimeValue } from "../model.js";
import type { RouteRequest, RuntimeFractionUse } from "./route-answer.js";

const DENOMINATORS = [100, 10_000, 1_000_000] as const;

export type RuntimeFraction = RuntimeFractionUse | { readonly undecidable: string };

export interface RuntimeLookup {
  fraction(
    key: string,
    fallback: FractionalPercent | undefined,
    randomValue: bigint,
  ): RuntimeFraction;
  /** An integer key (weighted cluster weights), or `fallback`. */
  integer(
    key: string,
    fallback: number,
  ): { readonly value: number; readonly fromRuntime: boolean } | { readonly undecidable: string };
}

/** The unsigned integer Envoy reads from a runtime value, if any (numbers and numeric strings). */
function uintOf(value: RuntimeValue): number | undefined {
  const n =
    typeof value === "number" ? value : typeof value === "string" ? Number(value.trim()) : NaN;
  if (typeof value === "string" && value.trim() === "") return undefined;
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

type Found =
  | { readonly t: "none" }
  | {
      readonly t: "found";
      readonly value: RuntimeValue;
      readonly source: "layer" | "override";
      readonly layer?: string;
    }
  | { readonly t: "conflict"; readonly message: string };

function find(
  layers: readonly RuntimeLayerSpec[],
  overrides: { readonly [key: string]: RuntimeValue } | undefined,
  key: string,
): Found {
  if (key === "") return { t: "none" };
  if (overrides && Object.hasOwn(overrides, key)) {
    const value = overrides[key];
    if (value !== undefined) return { t: "found", value, source: "override" };
  }
  const setting = layers.flatMap((layer) =>
    layer.entries.filter((e) => e.key === key).map((e) => ({ layer: layer.name, value: e.value })),
  );
  const [first] = setting;
  if (!first) return { t: "none" };
  if (setting.some((s) => s.value !== first.value)) {
    return {
      t: "conflict",
      message: `runtime key ${quotedInput(key)} is set differently by layers ${setting.map((s) => `${quotedInput(s.layer)} (${quotedInput(s.value)})`).join(", ")}: the proxy's bootstrap order decides, which the configuration does not hold`,
    };
  }
  return { t: "found", value: first.value, source: "layer", layer: first.layer };
}

function evaluate(numerator: number, denominator: number, randomValue: bigint): boolean {
  return Number(randomValue % BigInt(denominator)) < numerator;
}

/** The runtime the request asks for (RouteRequest.runtime). */
export function runtimeLookup(
  layers: readonly RuntimeLayerSpec[],
  mode: RouteRequest["runtime"],
): RuntimeLookup {
  if (mode?.t === "router-check-tool") {
    // router_check_tool's runtimeMock: only the test's `runtime` key is enabled, evaluated with
    // the default fraction, whose 0 numerator the tool raises to 1 (assignRuntimeFraction).
    return {
      fraction: (key, fallback, randomValue) => {
        const denominator = DENOMINATORS[fallback?.denominator ?? 0] ?? 100;
        const numerator = Math.max(1, fallback?.numerator ?? 0);
        const enabled =
          mode.enabledKey !== "" &&
          key === mode.enabledKey &&
          evaluate(numerator, denominator, randomValue);
        return {
          key,
          source: "router-check-tool",
          numerator,
          denominator,
          randomValue: randomValue.toString(),
          enabled,
        };
      },
      integer: (_key, fallback) => ({ value: fallback, fromRuntime: false }),
    };
  }
  const overrides = mode?.overrides;
  return {
    fraction: (key, fallback, randomValue) => {
      const found = find(layers, overrides, key);
      if (found.t === "conflict") return { undecidable: found.message };
      const base = { key, randomValue: randomValue.toString() };
      const uint = found.t === "found" ? uintOf(found.value) : undefined;
      if (found.t === "found" && uint !== undefined) {
        const origin = { source: found.source, ...(found.layer ? { layer: found.layer } : {}) };
        // Snapshot::featureEnabled: an integer runtime value is a percentage; over 100, enabled.
        const enabled = uint > 100 || evaluate(uint, 100, randomValue);
        return { ...base, ...origin, numerator: uint, denominator: 100, enabled };
      }
      const denominator = DENOMINATORS[fallback?.denominator ?? 0] ?? 100;
      const numerator = fallback?.numerator ?? 0;
      return {
        ...base,
        source: "default",
        numerator,
        denominator,
        enabled: evaluate(numerator, denominator, randomValue),
      };
    },
    integer: (key, fallback) => {
      const found = find(layers, overrides, key);
      if (found.t === "conflict") return { undecidable: found.message };
      const uint = found.t === "found" ? uintOf(found.value) : undefined;
      return uint === undefined
        ? { value: fallback, fromRuntime: false }
        : { value: uint, fromRuntime: true };
    },
  };
}
