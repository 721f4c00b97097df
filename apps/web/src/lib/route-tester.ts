import type { MessageInitShape } from "@bufbuild/protobuf";
import { toJson } from "@bufbuild/protobuf";
import { type Value, ValueSchema } from "@bufbuild/protobuf/wkt";
import type { RouteConfiguration } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  DomainMatch,
  type Outcome,
  type TestRouteRequestSchema,
  type TestRouteResponse,
} from "@switchyard/proto/switchyard/v1/routing_pb";
import { z } from "zod";

/**
 * The Route tester page's form and answer (RoutingService.TestRoute): the request as typed, checked
 * and turned into the API's message; the answer as the steps Envoy takes, each a label and a line.
 */

/** "listener:NAME" or "route-configuration:NAME": what the request goes through. */
const through = z
  .string()
  .regex(/^(listener|route-configuration):.+$/, "Choose a listener or a route configuration.");

/** One header per line, "name: value". */
const headerLines = z.string().superRefine((text, ctx) => {
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const at = line.indexOf(":", 1);
    if (at < 0 || line.slice(0, at).trim() === "")
      ctx.addIssue({
        code: "custom",
        message: `Line ${i + 1}: write a header as name: value.`,
      });
  }
});

export const routeTesterSchema = z.object({
  through,
  host: z.string().trim().min(1, "A host is required.").max(1_024, "At most 1,024 characters."),
  path: z
    .string()
    .trim()
    .min(1, "A path is required.")
    .max(8_192, "At most 8,192 characters.")
    .refine((p) => p.startsWith("/"), "A path starts with /."),
  method: z.string(),
  headers: headerLines,
  version: z.string().regex(/^\d+$/, "Choose the draft or a version."),
  nodeGroup: z.string(),
});

export type RouteTesterValues = z.input<typeof routeTesterSchema>;

export const routeTesterDefaults: RouteTesterValues = {
  through: "",
  host: "",
  path: "/",
  method: "GET",
  headers: "",
  version: "0",
  nodeGroup: "",
};

export function headersOf(text: string): { name: string; value: string }[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const at = line.indexOf(":", 1);
      return { name: line.slice(0, at).trim(), value: line.slice(at + 1).trim() };
    });
}

export function testRouteRequest(
  values: z.output<typeof routeTesterSchema>,
): MessageInitShape<typeof TestRouteRequestSchema> {
  const [kind, ...rest] = values.through.split(":");
  const name = rest.join(":");
  return {
    ...(kind === "listener" ? { listener: name } : { routeConfiguration: name }),
    authority: values.host,
    path: values.path,
    method: values.method,
    headers: headersOf(values.headers),
    version: BigInt(values.version),
    nodeGroup: values.nodeGroup,
  };
}

export interface AnswerStep {
  readonly label: string;
  readonly text: string;
  /** "danger": where Envoy answers an error (404, 503, cannot tell). */
  readonly tone?: "danger" | "accent";
}

const how: Record<DomainMatch, string> = {
  [DomainMatch.UNSPECIFIED]: "",
  [DomainMatch.EXACT]: "exact domain",
  [DomainMatch.SUFFIX_WILDCARD]: "suffix wildcard",
  [DomainMatch.PREFIX_WILDCARD]: "prefix wildcard",
  [DomainMatch.ANY]: "the * domain",
};

const policy = (value: Value | undefined) =>
  value === undefined ? "" : JSON.stringify(toJson(ValueSchema, value));

export function outcomeText(kind: Outcome["kind"] | undefined): string {
  switch (kind?.case) {
    case "cluster":
      return `Cluster ${kind.value}`;
    case "weightedClusters":
      return `Weighted: ${kind.value.clusters.map((c) => `${c.name} ${c.percent}%`).join(", ")}`;
    case "clusterHeader":
      return `The cluster named by header ${kind.value.header}${kind.value.cluster ? `: ${kind.value.cluster}` : ` (absent: ${kind.value.clusterNotFoundStatus})`}`;
    case "clusterSpecifierPlugin":
      return `Cluster specifier plugin ${kind.value} (not evaluated)`;
    case "redirect":
      return `Redirect ${kind.value.status} to ${kind.value.location}`;
    case "tlsRedirect":
      return `TLS required: redirect ${kind.value.status} to ${kind.value.location}`;
    case "directResponse":
      return `Direct response ${kind.value.status}${kind.value.body ? ` (${kind.value.bodySource})` : ""}`;
    case "nonForwarding":
      return "Not forwarded: left to the filters";
    case "filterAction":
      return `Filter action ${kind.value}`;
    default:
      return "—";
  }
}

/** The answer as the steps Envoy takes, in order. */
export function answerSteps(answer: TestRouteResponse): AnswerStep[] {
  const steps: AnswerStep[] = [];
  steps.push({
    label: "Route configuration",
    text: `${answer.routeConfiguration}${answer.listener ? ` (listener ${answer.listener})` : ""}`,
  });
  const vh = answer.virtualHost;
  steps.push(
    vh
      ? {
          label: "Virtual host",
          text: `${vh.name}: host ${answer.matchedHost} matched ${how[vh.how]} ${vh.domain}`,
        }
      : {
          label: "Virtual host",
          text: `None serves host ${answer.matchedHost}: Envoy answers 404`,
          tone: "danger",
        },
  );
  const verdict = answer.verdict;
  if (verdict.case === "noRoute")
    steps.push({ label: "Route", text: "None matches: Envoy answers 404", tone: "danger" });
  if (verdict.case === "cannotEvaluate")
    steps.push({
      label: "Route",
      text: `Cannot tell: route ${verdict.value.routeIndex + 1} depends on ${verdict.value.reasons.join("; ")}`,
      tone: "danger",
    });
  if (verdict.case === "routed") {
    const { route, outcome, forwarding } = verdict.value;
    if (route)
      steps.push({
        label: "Route",
        text: `#${route.index + 1}${route.name ? ` ${route.name}` : ""}: ${route.matchKind} ${route.matchValue}${route.caseSensitive ? "" : " (any case)"}${route.conditions.length > 0 ? `, ${route.conditions.join(", ")}` : ""}`,
      });
    steps.push({ label: "Outcome", text: outcomeText(outcome?.kind), tone: "accent" });
    if (forwarding) {
      if (forwarding.pathRewrite !== "none")
        steps.push({
          label: "Path rewrite",
          text: `${forwarding.path} (${forwarding.pathRewrite})`,
        });
      if (forwarding.hostRewrite !== "none")
        steps.push({
          label: "Host rewrite",
          text: `${forwarding.host} (${forwarding.hostRewrite})`,
        });
      steps.push({
        label: "Timeout",
        text:
          forwarding.timeoutMs === 0
            ? "Disabled"
            : `${forwarding.timeoutMs} ms${forwarding.timeoutSource === "default" ? " (Envoy's default)" : ""}`,
      });
      if (forwarding.retryPolicy)
        steps.push({
          label: "Retry policy",
          text: `${policy(forwarding.retryPolicy.policy)} (from the ${forwarding.retryPolicy.source})`,
        });
    }
  }
  for (const op of answer.requestHeaders?.operations ?? [])
    steps.push({
      label: "Request header",
      text: `${op.op === "add" ? `Add ${op.name}: ${op.value}` : `Remove ${op.name}`} (${op.level})`,
    });
  for (const op of answer.responseHeaders?.operations ?? [])
    steps.push({
      label: "Response header",
      text: `${op.op === "add" ? `Add ${op.name}: ${op.value}` : `Remove ${op.name}`} (${op.level})`,
    });
  if (answer.httpFilters.length > 0)
    steps.push({
      label: "HTTP filters",
      text: answer.httpFilters.map((f) => `${f.name}${f.enabled ? "" : " (off)"}`).join(", "),
    });
  for (const cluster of answer.clustersNotInGroup)
    steps.push({
      label: "Node group",
      text: `Its nodes do not receive cluster ${cluster}: Envoy answers 503`,
      tone: "danger",
    });
  return steps;
}

export interface RouteRow {
  readonly key: string;
  /** The virtual host on its first route's row ("name (domains)"), empty on the others. */
  readonly virtualHost: string;
  /** 1-based, within its virtual host. */
  readonly position: number;
  readonly match: string;
  readonly target: string;
  readonly inChosenHost: boolean;
  readonly taken: boolean;
}

/** A route configuration's routes as rows, the one the request took (by indexes) marked. */
export function routeRows(
  rc: RouteConfiguration,
  chosenHost: number | undefined,
  chosenRoute: number | undefined,
): RouteRow[] {
  return rc.virtualHosts.flatMap((vh, h) =>
    vh.routes.map((route, r) => ({
      key: `${h}/${r}`,
      virtualHost: r === 0 ? `${vh.name} (${vh.domains.join(", ")})` : "",
      position: r + 1,
      match: route.matchValue || "(any)",
      target:
        route.cluster ?? route.weightedClusters.map((w) => `${w.name} ${w.weight}`).join(", "),
      inChosenHost: h === chosenHost,
      taken: h === chosenHost && r === chosenRoute,
    })),
  );
}

/**
 * The Topology page showing the path the request takes (`?focus=` its listener or route
 * configuration, `?path=` the nodes: listener, route configuration, virtual host, clusters), or
 * undefined when it reached no virtual host.
 */
export function topologyPathHref(answer: TestRouteResponse): string | undefined {
  const rc = answer.routeConfiguration;
  const vh = answer.virtualHost;
  if (vh === undefined) return undefined;
  const ids = [
    ...(answer.listener ? [`listener:${answer.listener}`] : []),
    `route-configuration:${rc}`,
    `virtual-host:${rc}/${vh.name}`,
  ];
  if (answer.verdict.case === "routed") {
    const kind = answer.verdict.value.outcome?.kind;
    if (kind?.case === "cluster") ids.push(`cluster:${kind.value}`);
    if (kind?.case === "weightedClusters")
      for (const c of kind.value.clusters) if (!c.clusterHeader) ids.push(`cluster:${c.name}`);
    if (kind?.case === "clusterHeader" && kind.value.cluster)
      ids.push(`cluster:${kind.value.cluster}`);
  }
  const focus = ids[0] ?? "";
  const encode = (id: string) => encodeURIComponent(id).replaceAll("%3A", ":");
  return `/topology?focus=${encode(focus)}&path=${ids.map(encode).join(",")}`;
}
