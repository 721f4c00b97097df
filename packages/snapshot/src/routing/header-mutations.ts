/**
 * Request and response headers added and removed by a route, its weighted cluster entry, its
 * virtual host and its route configuration, in Envoy's order. Pure.
 *
 * Envoy (https://www.envoyproxy.io/docs/envoy/latest/configuration/http/http_conn_man/headers,
 * "Custom request/response headers"; RouteConfiguration.most_specific_header_mutations_wins in
 * https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/route/v3/route.proto): the weighted
 * cluster entry's headers are applied first, then the route's, the virtual host's and the route
 * configuration's, so with an overwriting append_action the least specific level wins; with
 * `most_specific_header_mutations_wins` the three are applied route configuration first, route
 * last. The weighted cluster entry still comes first (Envoy's WeightedClusterEntry applies its
 * own before its route's). At each level the removals come before the additions
 * (HeaderParser::evaluateHeaders: "remove-before-add").
 *
 * HeaderValueOption (https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/core/v3/base.proto):
 * the deprecated `append` wins over `append_action` when set (true: APPEND_IF_EXISTS_OR_ADD, false:
 * OVERWRITE_IF_EXISTS_OR_ADD); an empty value is not added unless `keep_empty_value`.
 */
import {
  HeaderValueOption_HeaderAppendAction as AppendAction,
  type HeaderValueOption,
} from "@switchyard/proto/envoy/config/core/v3/base_pb";
import type { HeaderMap } from "./request-headers.js";
import type { HeaderOperation } from "./route-answer.js";

export type MutationLevel = HeaderOperation["level"];

/** One level's configured mutations. */
export interface LevelMutations {
  readonly level: MutationLevel;
  readonly add: readonly HeaderValueOption[];
  readonly remove: readonly string[];
}

interface Mutable {
  readonly requestHeadersToAdd: readonly HeaderValueOption[];
  readonly requestHeadersToRemove: readonly string[];
  readonly responseHeadersToAdd: readonly HeaderValueOption[];
  readonly responseHeadersToRemove: readonly string[];
}

/** The levels in Envoy's order of application, for requests or responses. */
export function mutationLevels(
  direction: "request" | "response",
  levels: {
    readonly routeConfiguration: Mutable;
    readonly virtualHost: Mutable;
    readonly route?: Mutable;
    readonly weightedCluster?: Mutable;
  },
  mostSpecificWins: boolean,
): LevelMutations[] {
  const of = (level: MutationLevel, m: Mutable | undefined): LevelMutations[] =>
    m === undefined
      ? []
      : [
          direction === "request"
            ? { level, add: m.requestHeadersToAdd, remove: m.requestHeadersToRemove }
            : { level, add: m.responseHeadersToAdd, remove: m.responseHeadersToRemove },
        ];
  const route = of("route", levels.route);
  const virtualHost = of("virtual-host", levels.virtualHost);
  const routeConfiguration = of("route-configuration", levels.routeConfiguration);
  return [
    ...of("weighted-cluster", levels.weightedCluster),
    ...(mostSpecificWins
      ? [...routeConfiguration, ...virtualHost, ...route]
      : [...route, ...virtualHost, ...routeConfiguration]),
  ];
}

// An Envoy substitution command: %REQ(x-foo)%, %DOWNSTREAM_REMOTE_ADDRESS%, %START_TIME(%s)%, ...
const COMMAND = /%[A-Z][A-Z0-9_]*(\(.*?\))?(:\d+)?%/;

function actionOf(option: HeaderValueOption): AppendAction {
  if (option.append !== undefined) {
    return option.append
      ? AppendAction.APPEND_IF_EXISTS_OR_ADD
      : AppendAction.OVERWRITE_IF_EXISTS_OR_ADD;
  }
  return option.appendAction;
}

/** Applies `levels` to `headers` in order; returns each operation as applied. */
export function applyMutations(
  headers: HeaderMap,
  levels: readonly LevelMutations[],
): HeaderOperation[] {
  const operations: HeaderOperation[] = [];
  for (const { level, add, remove } of levels) {
    for (const name of remove) {
      headers.remove(name);
      operations.push({ level, op: "remove", name: name.toLowerCase() });
    }
    for (const option of add) {
      const name = (option.header?.key ?? "").toLowerCase();
      const raw = option.header?.rawValue ?? new Uint8Array();
      const value = option.header?.value || new TextDecoder().decode(raw);
      const action = actionOf(option);
      const operation: HeaderOperation = {
        level,
        op: "add",
        name,
        value,
        appendAction: AppendAction[action] ?? String(action),
        ...(COMMAND.test(value) ? { dynamic: true } : {}),
      };
      if (value === "" && !option.keepEmptyValue) {
        operations.push({ ...operation, skipped: true });
        continue;
      }
      switch (action) {
        case AppendAction.APPEND_IF_EXISTS_OR_ADD:
          headers.add(name, value);
          break;
        case AppendAction.ADD_IF_ABSENT:
          if (!headers.has(name)) headers.add(name, value);
          break;
        case AppendAction.OVERWRITE_IF_EXISTS:
          if (headers.has(name)) headers.set(name, value);
          break;
        case AppendAction.OVERWRITE_IF_EXISTS_OR_ADD:
          headers.set(name, value);
          break;
      }
      operations.push(operation);
    }
  }
  return operations;
}
