/** What every check reads: the spec, its objects indexed by name, and where to record issues. */

import { quotedInput } from "../bounded-text.js";
import type {
  ClusterSpec,
  ConfigSpec,
  FilterChainSpec,
  ListenerSpec,
  RouteConfigurationSpec,
  RouteSpec,
  VirtualHostSpec,
} from "../model.js";
import { nth } from "../nth.js";
import type { SecretOpener } from "../secret-box.js";
import type { IssueList } from "./validate-issues.js";
import { NameSuggester } from "./validate-syntax.js";

export interface ValidationContext {
  readonly spec: ConfigSpec;
  readonly issues: IssueList;
  /** The first object of each name (a later one of the same name is a `duplicate-name`). */
  readonly clusters: ReadonlyMap<string, ClusterSpec>;
  readonly listeners: ReadonlyMap<string, ListenerSpec>;
  readonly routeConfigurations: ReadonlyMap<string, RouteConfigurationSpec>;
  /** When certificates are judged expired (ms since the epoch; ValidateOptions.now). */
  readonly now: number;
  /**
   * Opens sealed secret values (ValidateOptions.openSecret), for the checks that need them in the
   * clear (a ticket key's length); without it those checks are left to the caller that has one.
   */
  readonly openSecret: SecretOpener | undefined;
  /** "did you mean" lookups, built on first use. */
  readonly suggest: {
    cluster(name: string): string | undefined;
    listener(name: string): string | undefined;
    routeConfiguration(name: string): string | undefined;
  };
}

function firstByName<T extends { readonly name: string }>(objects: readonly T[]): Map<string, T> {
  const byName = new Map<string, T>();
  for (const object of objects) if (!byName.has(object.name)) byName.set(object.name, object);
  return byName;
}

function lazySuggester(names: () => Iterable<string>): (name: string) => string | undefined {
  let suggester: NameSuggester | undefined;
  return (name) => {
    suggester ??= new NameSuggester(names());
    return suggester.suggest(name);
  };
}

export function createContext(
  spec: ConfigSpec,
  issues: IssueList,
  now: number = Date.now(),
  openSecret?: SecretOpener,
): ValidationContext {
  const clusters = firstByName(spec.clusters);
  const listeners = firstByName(spec.listeners);
  const routeConfigurations = firstByName(spec.routeConfigurations);
  return {
    spec,
    issues,
    clusters,
    listeners,
    routeConfigurations,
    now,
    openSecret,
    suggest: {
      cluster: lazySuggester(() => clusters.keys()),
      listener: lazySuggester(() => listeners.keys()),
      routeConfiguration: lazySuggester(() => routeConfigurations.keys()),
    },
  };
}

/** `; did you mean "x"?`, or nothing. */
export function didYouMean(suggestion: string | undefined): string {
  return suggestion === undefined ? "" : `; did you mean ${JSON.stringify(suggestion)}?`;
}

/** The route configuration a filter chain uses, by RDS or inline (RDS wins when both are set). */
export function routeConfigurationName(chain: FilterChainSpec): string | null {
  return chain.rdsRouteConfigName ?? chain.inlineRouteConfigName;
}

/** A cluster a route sends traffic to, with the field (relative to the route) that names it. */
export interface RouteTarget {
  readonly cluster: string;
  readonly field: string;
}

/** The clusters a route sends traffic to, per its actionKind (what the compiler encodes). */
export function routeTargets(route: RouteSpec): RouteTarget[] {
  switch (route.actionKind) {
    case "CLUSTER":
      return route.cluster ? [{ cluster: route.cluster, field: ".cluster" }] : [];
    case "WEIGHTED_CLUSTERS":
      return route.weightedClusters.flatMap((weighted, index) =>
        weighted.name
          ? [{ cluster: weighted.name, field: `.weightedClusters[${index}].name` }]
          : [],
      );
    default:
      return [];
  }
}

/**
 * "route 2 of virtual host "api"" for routes[1], naming the route too when it has a name. Messages
 * count as the console does, from 1 (nth); field paths stay 0-based.
 */
export function describeRoute(
  virtualHost: VirtualHostSpec,
  index: number,
  route: RouteSpec,
): string {
  const name = route.name ? ` (${quotedInput(route.name)})` : "";
  return `route ${nth(index)}${name} of virtual host ${quotedInput(virtualHost.name)}`;
}
