import { create, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import {
  type Route,
  RouteActionKind,
  RouteActionKindSchema,
  type RouteConfiguration,
  RouteConfigurationSchema,
  RouteMatchKind,
  RouteMatchKindSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { z } from "zod";
import {
  durationMs,
  type EnumValueName,
  enumName,
  enumValueNames,
  isEmptyObject,
  isObject,
  joinList,
  mergeManaged,
  msDuration,
  objectName,
  parseUint,
  passthrough,
  splitList,
  uintText,
  uintToText,
} from "./form-values";
import type { FieldMap } from "./issue-path";

/**
 * The route configuration form's values, and how they become a `switchyard.v1.RouteConfiguration`
 * and back. Long because it is one form's whole definition (schema, defaults, both conversions,
 * where server issues land), so a field added to the form is added in one file.
 */

/** The match and action choices, in proto order (config.proto), without UNSPECIFIED. */
export type MatchKindName = EnumValueName<typeof RouteMatchKind>;
export type ActionKindName = EnumValueName<typeof RouteActionKind>;
export const matchKinds = enumValueNames(RouteMatchKindSchema, RouteMatchKind);
export const actionKinds = enumValueNames(RouteActionKindSchema, RouteActionKind);
/** Match kinds whose matcher is Envoy JSON kept in the route's extra: no pattern in the form. */
export const matchKindsInExtra: ReadonlySet<string> = new Set<MatchKindName>([
  "CONNECT",
  "PATH_MATCH_POLICY",
]);
/** Actions that forward to a cluster (timeout, retries and rewrites apply). */
export const forwardingActions: ReadonlySet<string> = new Set<ActionKindName>([
  "CLUSTER",
  "WEIGHTED_CLUSTERS",
  "CLUSTER_HEADER",
  "CLUSTER_SPECIFIER_PLUGIN",
  "INLINE_CLUSTER_SPECIFIER_PLUGIN",
]);
export const matcherKinds = ["exact", "prefix", "suffix", "contains", "regex", "present"] as const;
/** envoy.config.route.v3.RedirectAction.RedirectResponseCode, in enum order. */
export const redirectCodes = [
  "MOVED_PERMANENTLY",
  "FOUND",
  "SEE_OTHER",
  "TEMPORARY_REDIRECT",
  "PERMANENT_REDIRECT",
] as const;
export const redirectCodeLabels: Record<(typeof redirectCodes)[number], string> = {
  MOVED_PERMANENTLY: "301 Moved permanently",
  FOUND: "302 Found",
  SEE_OTHER: "303 See other",
  TEMPORARY_REDIRECT: "307 Temporary redirect",
  PERMANENT_REDIRECT: "308 Permanent redirect",
};

const matcherSchema = z
  .object({
    name: z.string().trim().min(1, "Enter a name"),
    kind: z.enum(matcherKinds),
    value: z.string(),
    invert: z.boolean(),
    base: passthrough,
  })
  .superRefine((m, ctx) => {
    if (m.kind !== "present" && m.value === "") {
      ctx.addIssue({ code: "custom", path: ["value"], message: "Enter a value to match" });
    }
  });

const weightedSchema = z.object({
  name: z.string().trim().min(1, "Choose a cluster"),
  weight: uintText({ what: "a weight" }),
  /** The entry's other Envoy fields (headers to add, ...), kept as they are. */
  extra: passthrough.optional(),
});

const routeSchema = z
  .object({
    name: z.string().trim(),
    matchKind: z.enum(matchKinds),
    matchValue: z.string(),
    caseSensitive: z.boolean(),
    headers: z.array(matcherSchema),
    queryParameters: z.array(matcherSchema),
    actionKind: z.enum(actionKinds),
    cluster: z.string().trim(),
    /** CLUSTER_HEADER: the request header naming the cluster (extra.route.clusterHeader). */
    clusterHeader: z.string().trim(),
    weightedClusters: z.array(weightedSchema),
    redirectHost: z.string().trim(),
    redirectPath: z.string().trim(),
    redirectCode: z.enum(redirectCodes),
    httpsRedirect: z.boolean(),
    redirectBase: passthrough,
    directStatus: z.string(),
    directBody: z.string(),
    directBase: passthrough,
    timeoutMs: uintText({ optional: true }),
    prefixRewrite: z.string(),
    retryOn: z.string().trim(),
    numRetries: uintText({ optional: true }),
    perTryTimeoutMs: uintText({ min: 1, optional: true }),
    retryBase: passthrough,
    extra: passthrough,
  })
  .superRefine((r, ctx) => {
    const at = (path: string, message: string) =>
      ctx.addIssue({ code: "custom", path: [path], message });
    // A PATH or PATH_SEPARATED_PREFIX without a leading "/" (a PATH of "*" is OPTIONS *) is Envoy's
    // to take: the server warns that it never matches, and the review shows it.
    if (r.matchKind === "SAFE_REGEX" && r.matchValue === "")
      at("matchValue", "Enter a regular expression");
    switch (r.actionKind) {
      case "CLUSTER":
        if (r.cluster === "") at("cluster", "Choose the cluster that serves these requests");
        break;
      case "CLUSTER_HEADER":
        if (r.clusterHeader === "") at("clusterHeader", "Enter the header that names the cluster");
        break;
      case "WEIGHTED_CLUSTERS":
        if (r.weightedClusters.length === 0) at("weightedClusters", "Add at least one cluster");
        else if (r.weightedClusters.every((w) => (parseUint(w.weight) ?? 0) === 0)) {
          at("weightedClusters", "At least one weight must be above 0");
        }
        break;
      case "REDIRECT":
        if (r.redirectHost === "" && r.redirectPath === "" && !r.httpsRedirect) {
          at("redirectHost", "Redirect to another host, path, or to HTTPS");
        }
        break;
      case "DIRECT_RESPONSE": {
        const status = parseUint(r.directStatus);
        if (
          !/^\d+$/.test(r.directStatus.trim()) ||
          status === undefined ||
          status < 200 ||
          status > 599
        ) {
          at("directStatus", "Enter an HTTP status from 200 to 599");
        }
        break;
      }
    }
  });

const virtualHostSchema = z.object({
  name: objectName("virtual host"),
  /**
   * Who owns it as stored (VirtualHost.owner_team, output only: never sent back); undefined for a
   * virtual host not saved yet.
   */
  ownerTeam: z.string().optional(),
  domains: z
    .string()
    .refine(
      (text) => splitList(text).length > 0,
      "Enter at least one domain, e.g. * or api.example.com",
    ),
  routes: z.array(routeSchema),
  extra: passthrough,
});

export const routeConfigFormSchema = z
  .object({
    name: objectName("route configuration"),
    /** On-demand virtual hosts (VHDS): served over Delta xDS, each requested by host. */
    vhds: z.boolean(),
    virtualHosts: z.array(virtualHostSchema),
  })
  .superRefine((rc, ctx) => {
    const seen = new Set<string>();
    rc.virtualHosts.forEach((vh, i) => {
      // A VHDS resource is named "<route configuration>/<virtual host>" and read from its last
      // "/" (the server's vhds-virtual-host-name rule).
      if (rc.vhds && vh.name.includes("/")) {
        ctx.addIssue({
          code: "custom",
          path: ["virtualHosts", i, "name"],
          message: 'With on-demand virtual hosts, a virtual host name cannot hold "/"',
        });
      }
      if (seen.has(vh.name)) {
        ctx.addIssue({
          code: "custom",
          path: ["virtualHosts", i, "name"],
          message: "Another virtual host has this name",
        });
      }
      seen.add(vh.name);
    });
  });

export type RouteConfigForm = z.infer<typeof routeConfigFormSchema>;
export type VirtualHostForm = RouteConfigForm["virtualHosts"][number];
export type RouteForm = VirtualHostForm["routes"][number];
export type MatcherForm = RouteForm["headers"][number];

export const newMatcher = (): MatcherForm => ({
  name: "",
  kind: "exact",
  value: "",
  invert: false,
  base: undefined,
});

export function newRoute(cluster = ""): RouteForm {
  return {
    name: "",
    matchKind: "PREFIX",
    matchValue: "/",
    caseSensitive: true,
    headers: [],
    queryParameters: [],
    actionKind: "CLUSTER",
    cluster,
    clusterHeader: "",
    weightedClusters: [],
    redirectHost: "",
    redirectPath: "",
    redirectCode: "MOVED_PERMANENTLY",
    httpsRedirect: false,
    redirectBase: undefined,
    directStatus: "200",
    directBody: "",
    directBase: undefined,
    timeoutMs: "",
    prefixRewrite: "",
    retryOn: "",
    numRetries: "",
    perTryTimeoutMs: "",
    retryBase: undefined,
    extra: undefined,
  };
}

export const newVirtualHost = (name = "default", domains = "*"): VirtualHostForm => ({
  name,
  ownerTeam: undefined,
  domains,
  routes: [newRoute()],
  extra: undefined,
});

export const emptyRouteConfigForm = (): RouteConfigForm => ({
  name: "",
  vhds: false,
  virtualHosts: [newVirtualHost()],
});

// --- header and query parameter matchers (envoy.config.route.v3.HeaderMatcher, proto3 JSON) ---

const stringMatchKey = {
  exact: "exact",
  prefix: "prefix",
  suffix: "suffix",
  contains: "contains",
  regex: "safeRegex",
} as const;
const legacyKey = {
  exactMatch: "exact",
  prefixMatch: "prefix",
  suffixMatch: "suffix",
  containsMatch: "contains",
} as const;
const matcherManaged = [
  "name",
  "invertMatch",
  "stringMatch",
  "presentMatch",
  "exactMatch",
  "prefixMatch",
  "suffixMatch",
  "containsMatch",
  "safeRegexMatch",
];

export function matcherFormOf(json: JsonObject): MatcherForm {
  const name = typeof json.name === "string" ? json.name : "";
  const invert = json.invertMatch === true;
  const sm = isObject(json.stringMatch) ? json.stringMatch : undefined;
  let kind: MatcherForm["kind"] = "present";
  let value = "";
  if (sm) {
    for (const k of ["exact", "prefix", "suffix", "contains"] as const) {
      if (typeof sm[k] === "string") {
        kind = k;
        value = sm[k];
      }
    }
    if (isObject(sm.safeRegex) && typeof sm.safeRegex.regex === "string") {
      kind = "regex";
      value = sm.safeRegex.regex;
    }
  } else {
    for (const [k, mapped] of Object.entries(legacyKey)) {
      const v = json[k];
      if (typeof v === "string") {
        kind = mapped;
        value = v;
      }
    }
    if (isObject(json.safeRegexMatch) && typeof json.safeRegexMatch.regex === "string") {
      kind = "regex";
      value = json.safeRegexMatch.regex;
    }
  }
  return { name, kind, value, invert, base: json };
}

export function matcherOfForm(form: MatcherForm, allowInvert: boolean): JsonObject {
  const base = form.base;
  const baseSm = isObject(base?.stringMatch) ? base.stringMatch : undefined;
  let match: Record<string, JsonValue | undefined>;
  if (form.kind === "present") match = { presentMatch: true };
  else {
    const key = stringMatchKey[form.kind];
    const value: JsonValue = form.kind === "regex" ? { regex: form.value } : form.value;
    match = {
      stringMatch: mergeManaged(baseSm, Object.values(stringMatchKey), { [key]: value }),
    };
  }
  return mergeManaged(base, matcherManaged, {
    name: form.name.trim(),
    ...match,
    invertMatch: allowInvert && form.invert ? true : undefined,
  });
}

// --- actions ---

const redirectManaged = ["hostRedirect", "pathRedirect", "responseCode", "httpsRedirect"];
const retryManaged = ["retryOn", "numRetries", "perTryTimeout"];

function redirectCodeOf(value: JsonValue | undefined): RouteForm["redirectCode"] {
  if (typeof value === "number") return redirectCodes[value] ?? "MOVED_PERMANENTLY";
  return (redirectCodes as readonly unknown[]).includes(value)
    ? (value as RouteForm["redirectCode"])
    : "MOVED_PERMANENTLY";
}

const str = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");

export function routeFormOf(route: Route): RouteForm {
  const redirect = route.redirect;
  const direct = route.directResponse;
  const retry = route.retryPolicy;
  const body = isObject(direct?.body) ? direct.body : undefined;
  return {
    name: route.name,
    matchKind: enumName(RouteMatchKind, route.matchKind, matchKinds, "PREFIX"),
    matchValue: route.matchValue,
    caseSensitive: route.caseSensitive,
    headers: route.headers.map(matcherFormOf),
    queryParameters: route.queryParameters.map(matcherFormOf),
    actionKind: enumName(RouteActionKind, route.actionKind, actionKinds, "CLUSTER"),
    cluster: route.cluster ?? "",
    weightedClusters: route.weightedClusters.map((w) => ({
      name: w.name,
      weight: String(w.weight),
      extra: w.extra,
    })),
    clusterHeader: str(isObject(route.extra?.route) ? route.extra.route.clusterHeader : undefined),
    redirectHost: str(redirect?.hostRedirect),
    redirectPath: str(redirect?.pathRedirect),
    redirectCode: redirectCodeOf(redirect?.responseCode),
    httpsRedirect: redirect?.httpsRedirect === true,
    redirectBase: redirect,
    directStatus: typeof direct?.status === "number" ? String(direct.status) : "200",
    directBody: str(body?.inlineString),
    directBase: direct,
    timeoutMs: uintToText(route.timeoutMs),
    prefixRewrite: route.prefixRewrite ?? "",
    retryOn: str(retry?.retryOn),
    numRetries: typeof retry?.numRetries === "number" ? String(retry.numRetries) : "",
    perTryTimeoutMs: uintToText(durationMs(retry?.perTryTimeout)),
    retryBase: retry,
    extra: route.extra,
  };
}

const nonEmpty = (o: JsonObject): JsonObject | undefined => (isEmptyObject(o) ? undefined : o);

/**
 * One route as the API takes it. Only the fields the chosen action uses are sent: the server
 * warns about the others (`ignored-route-action-field`), and switching the action in the form
 * must not leave a stale redirect behind.
 */
export function routeOfForm(form: RouteForm) {
  const kind = form.actionKind;
  const forwards = forwardingActions.has(kind);
  const perTry = parseUint(form.perTryTimeoutMs);
  const body = isObject(form.directBase?.body) ? form.directBase.body : undefined;
  return {
    name: form.name.trim(),
    matchKind: RouteMatchKind[form.matchKind],
    matchValue: form.matchValue,
    caseSensitive: form.caseSensitive,
    headers: form.headers.map((h) => matcherOfForm(h, true)),
    queryParameters: form.queryParameters.map((q) => matcherOfForm(q, false)),
    actionKind: RouteActionKind[kind],
    cluster: kind === "CLUSTER" ? form.cluster.trim() : undefined,
    weightedClusters:
      kind === "WEIGHTED_CLUSTERS"
        ? form.weightedClusters.map((w) => ({
            name: w.name.trim(),
            weight: parseUint(w.weight) ?? 0,
            extra: w.extra,
          }))
        : [],
    redirect:
      kind === "REDIRECT"
        ? mergeManaged(form.redirectBase, redirectManaged, {
            hostRedirect: form.redirectHost || undefined,
            pathRedirect: form.redirectPath || undefined,
            responseCode: form.redirectCode === "MOVED_PERMANENTLY" ? undefined : form.redirectCode,
            httpsRedirect: form.httpsRedirect ? true : undefined,
          })
        : undefined,
    directResponse:
      kind === "DIRECT_RESPONSE"
        ? mergeManaged(form.directBase, ["status", "body"], {
            status: parseUint(form.directStatus),
            body:
              form.directBody !== ""
                ? mergeManaged(body, ["inlineString"], { inlineString: form.directBody })
                : body && typeof body.inlineString !== "string"
                  ? body
                  : undefined,
          })
        : undefined,
    timeoutMs: forwards ? parseUint(form.timeoutMs) : undefined,
    retryPolicy: forwards
      ? nonEmpty(
          mergeManaged(form.retryBase, retryManaged, {
            retryOn: form.retryOn || undefined,
            numRetries: parseUint(form.numRetries),
            perTryTimeout: perTry === undefined ? undefined : msDuration(perTry),
          }),
        )
      : undefined,
    prefixRewrite: forwards && form.prefixRewrite !== "" ? form.prefixRewrite : undefined,
    extra: routeExtraOf(form),
  };
}

/** Where the kinds kept in a route's extra have their Envoy JSON: [holder, key]. */
const keptAction: Record<string, readonly ["route" | "", string]> = {
  CLUSTER_HEADER: ["route", "clusterHeader"],
  CLUSTER_SPECIFIER_PLUGIN: ["route", "clusterSpecifierPlugin"],
  INLINE_CLUSTER_SPECIFIER_PLUGIN: ["route", "inlineClusterSpecifierPlugin"],
  NON_FORWARDING: ["", "nonForwardingAction"],
  FILTER_ACTION: ["", "filterAction"],
};
const keptMatch: Record<string, string> = {
  CONNECT: "connectMatcher",
  PATH_MATCH_POLICY: "pathMatchPolicy",
};

/**
 * The route's extra with only the action and matcher of its chosen kinds: switching a route from
 * "Cluster from a header" to "Route to a cluster" drops the header (Envoy takes one cluster
 * specifier), and the header field of the form is written where Envoy reads it.
 */
function routeExtraOf(form: RouteForm): JsonObject | undefined {
  const out: Record<string, JsonValue> = { ...(form.extra ?? {}) };
  const route: Record<string, JsonValue> = isObject(out.route) ? { ...out.route } : {};
  const match: Record<string, JsonValue> = isObject(out.match) ? { ...out.match } : {};
  for (const [kind, [holder, key]] of Object.entries(keptAction)) {
    if (kind === form.actionKind) continue;
    if (holder === "route") delete route[key];
    else delete out[key];
  }
  for (const [kind, key] of Object.entries(keptMatch)) {
    if (kind !== form.matchKind) delete match[key];
  }
  if (form.actionKind === "CLUSTER_HEADER") route.clusterHeader = form.clusterHeader;
  delete out.route;
  delete out.match;
  const all = {
    ...out,
    ...(isEmptyObject(route) ? {} : { route }),
    ...(isEmptyObject(match) ? {} : { match }),
  };
  return isEmptyObject(all) ? undefined : all;
}

export function routeConfigFormOf(rc: RouteConfiguration): RouteConfigForm {
  return {
    name: rc.name,
    vhds: rc.vhds,
    virtualHosts: rc.virtualHosts.map((vh) => ({
      name: vh.name,
      ownerTeam: vh.ownerTeam,
      domains: joinList(vh.domains),
      routes: vh.routes.map(routeFormOf),
      extra: vh.extra,
    })),
  };
}

export function routeConfigOfForm(
  form: RouteConfigForm,
  original?: RouteConfiguration,
): RouteConfiguration {
  return create(RouteConfigurationSchema, {
    name: form.name.trim(),
    vhds: form.vhds,
    extra: original?.extra,
    virtualHosts: form.virtualHosts.map((vh) => ({
      name: vh.name.trim(),
      domains: splitList(vh.domains),
      extra: vh.extra,
      routes: vh.routes.map(routeOfForm),
    })),
  });
}

/**
 * Each weight's share of the split in whole percent, summing to exactly 100 (largest remainder),
 * so the bar and the labels never disagree. All zero → all 0.
 */
export function splitPercentages(weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + Math.max(0, b), 0);
  if (total === 0) return weights.map(() => 0);
  const exact = weights.map((w) => (Math.max(0, w) * 100) / total);
  const floors = exact.map(Math.floor);
  let left = 100 - floors.reduce((a, b) => a + b, 0);
  const order = exact
    .map((e, i) => ({ i, rest: e - Math.floor(e) }))
    .sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    floors[i] = (floors[i] ?? 0) + 1;
    left--;
  }
  return floors;
}

const route = "virtualHosts.*.routes.*";
export const routeConfigFieldMap: FieldMap = {
  fields: [
    "name",
    "virtualHosts.*.name",
    "virtualHosts.*.domains",
    "virtualHosts.*.routes",
    ...[
      "name",
      "matchKind",
      "matchValue",
      "caseSensitive",
      "headers",
      "queryParameters",
      "actionKind",
      "cluster",
      "weightedClusters",
      "weightedClusters.*.name",
      "weightedClusters.*.weight",
      "timeoutMs",
      "prefixRewrite",
    ].map((f) => `${route}.${f}`),
  ],
  aliases: {
    [`${route}.redirect`]: `${route}.redirectHost`,
    [`${route}.redirect.hostRedirect`]: `${route}.redirectHost`,
    [`${route}.redirect.pathRedirect`]: `${route}.redirectPath`,
    [`${route}.redirect.responseCode`]: `${route}.redirectCode`,
    [`${route}.directResponse`]: `${route}.directStatus`,
    [`${route}.directResponse.body`]: `${route}.directBody`,
    [`${route}.retryPolicy`]: `${route}.retryOn`,
    [`${route}.retryPolicy.numRetries`]: `${route}.numRetries`,
    [`${route}.retryPolicy.perTryTimeout`]: `${route}.perTryTimeoutMs`,
  },
};

/**
 * Where the server's refusal of a virtual host that is not the caller's belongs (PermissionDenied,
 * worded by packages/server/src/auth/authorize.ts, routeConfigurationDecision): at the domains of
 * the virtual host it names, since the domains decide who owns it. Undefined when the refusal
 * names no virtual host of the form (or concerns the route configuration's own fields).
 */
export function placeOwnershipRefusal(
  message: string,
  form: RouteConfigForm,
): { readonly field: `virtualHosts.${number}.domains`; readonly message: string } | undefined {
  const named =
    /^team .+ does not own virtual host (\S+) \(domain /.exec(message) ??
    /^virtual host (\S+) in route configuration \S+ has no domains/.exec(message);
  const index = form.virtualHosts.findIndex((vh) => vh.name.trim() === named?.[1]);
  return index < 0 ? undefined : { field: `virtualHosts.${index}.domains`, message };
}

/** How a route reads in a list: "prefix /api → payments". */
export function describeMatch(r: Pick<RouteForm, "matchKind" | "matchValue">): string {
  const kind = {
    PREFIX: "prefix",
    PATH: "path",
    SAFE_REGEX: "regex",
    PATH_SEPARATED_PREFIX: "path-separated prefix",
    CONNECT: "CONNECT",
    PATH_MATCH_POLICY: "path template",
  }[r.matchKind];
  return matchKindsInExtra.has(r.matchKind) ? kind : `${kind} ${r.matchValue || "(empty)"}`;
}
