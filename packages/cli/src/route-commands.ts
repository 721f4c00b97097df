/**
 * `switchyard route test`: where a request goes (RoutingService.TestRoute), or a file of route
 * test cases in Envoy's router_check_tool format run on the draft or a version
 * (RoutingService.CheckRouteTests), exiting 1 when one fails: for a pull request's CI.
 */
import { toJson } from "@bufbuild/protobuf";
import { type Value, ValueSchema } from "@bufbuild/protobuf/wkt";
import {
  CheckRouteTestsResponseSchema,
  DomainMatch,
  type Outcome,
  type RouteTest,
  type TestRouteResponse,
  TestRouteResponseSchema,
} from "@switchyard/proto/switchyard/v1/routing_pb";
import { readApplySources } from "./apply-sources.js";
import { CliError, type RoutingClient } from "./client.js";
import { cliIo } from "./io.js";
import { type Output, outputFormat, table } from "./output.js";

export interface RouteTestOptions {
  readonly host?: string;
  readonly path?: string;
  readonly method?: string;
  readonly header?: readonly string[];
  readonly version?: string;
  readonly listener?: string;
  readonly routeConfiguration?: string;
  readonly filterChain?: string;
  readonly nodeGroup?: string;
  readonly https?: boolean;
  readonly randomValue?: string;
  readonly file?: string;
  readonly output?: string;
}

function versionOption(value: string | undefined): bigint {
  if (value === undefined || value === "draft") return 0n;
  if (!/^\d+$/.test(value) || value === "0")
    throw new CliError(`--version "${value}": use a published version number, or draft`);
  return BigInt(value);
}

/** "name: value" or "name:value" → [name, value]. */
export function parseHeader(text: string): { name: string; value: string } {
  const at = text.indexOf(":", 1);
  if (at < 0) throw new CliError(`-H "${text}": use NAME:VALUE, e.g. -H x-canary:1`);
  return { name: text.slice(0, at).trim(), value: text.slice(at + 1).trimStart() };
}

/** `switchyard route test --host H --path P ...` or `switchyard route test -f cases.yaml`. */
export async function routeTest(
  client: RoutingClient,
  output: Output,
  options: RouteTestOptions,
): Promise<void> {
  const format = outputFormat(options.output, ["text", "json"], "text");
  const version = versionOption(options.version);
  if (options.file !== undefined) {
    if (options.host !== undefined || options.path !== undefined)
      throw new CliError("-f runs the file's test cases: --host and --path go in them");
    const [source] = readApplySources([options.file], false);
    if (source === undefined) throw new CliError(`${options.file}: no test file there`);
    const answer = await client.checkRouteTests({
      content: source.content,
      filename: source.name,
      version,
      listener: options.listener ?? "",
      routeConfiguration: options.routeConfiguration ?? "",
    });
    if (format === "json")
      output.out(`${JSON.stringify(toJson(CheckRouteTestsResponseSchema, answer), null, 2)}\n`);
    else {
      for (const result of answer.results) {
        output.out(`${result.passed ? "PASS" : "FAIL"}  ${result.name}\n`);
        if (result.refused !== "") output.out(`      cannot run it: ${result.refused}\n`);
        for (const m of result.mismatches) output.out(`      ${mismatchLine(m)}\n`);
      }
      output.out(
        `${answer.passed} passed, ${answer.failed} failed (${version === 0n ? "the draft" : `version ${version}`})\n`,
      );
    }
    if (answer.failed > 0) cliIo().setExitCode(1);
    return;
  }
  if (options.host === undefined || options.path === undefined)
    throw new CliError("route test needs --host and --path (or -f FILE of test cases)");
  const answer = await client.testRoute({
    version,
    listener: options.listener ?? "",
    routeConfiguration: options.routeConfiguration ?? "",
    filterChain: options.filterChain ?? "",
    authority: options.host,
    path: options.path,
    method: options.method ?? "",
    headers: (options.header ?? []).map(parseHeader),
    randomValue: randomValue(options.randomValue),
    scheme: options.https ? "https" : "http",
    nodeGroup: options.nodeGroup ?? "",
  });
  output.out(
    format === "json"
      ? `${JSON.stringify(toJson(TestRouteResponseSchema, answer), null, 2)}\n`
      : routeAnswerText(answer),
  );
}

function randomValue(text: string | undefined): bigint {
  if (text === undefined) return 0n;
  if (!/^\d+$/.test(text)) throw new CliError(`--random-value "${text}": use a whole number`);
  return BigInt(text);
}

const policyText = (policy: Value | undefined) =>
  policy === undefined ? "{}" : JSON.stringify(toJson(ValueSchema, policy));

const show = (text: string) => (text === "" ? '""' : JSON.stringify(text));

/** `cluster_name: expected "api-v2", got "api-v1"`. */
const mismatchLine = (m: { field: string; expected: string; actual: string }) =>
  `${m.field}: expected ${show(m.expected)}, got ${show(m.actual)}`;

const howWord: Record<DomainMatch, string> = {
  [DomainMatch.UNSPECIFIED]: "",
  [DomainMatch.EXACT]: "exact domain",
  [DomainMatch.SUFFIX_WILDCARD]: "suffix wildcard",
  [DomainMatch.PREFIX_WILDCARD]: "prefix wildcard",
  [DomainMatch.ANY]: "the * domain",
};

/** The answer as a person reads it: one line per step, the outcome last. */
export function routeAnswerText(answer: TestRouteResponse): string {
  const lines: string[] = [];
  const where = answer.version === 0n ? "the draft" : `version ${answer.version}`;
  lines.push(
    `route configuration  ${answer.routeConfiguration}${answer.listener ? ` (listener ${answer.listener}, filter chain ${answer.filterChain})` : ""}, in ${where}`,
  );
  const vh = answer.virtualHost;
  lines.push(
    vh
      ? `virtual host         ${vh.name} (host "${answer.matchedHost}" matched ${howWord[vh.how]} "${vh.domain}")`
      : `virtual host         none serves host "${answer.matchedHost}": Envoy answers 404`,
  );
  const verdict = answer.verdict;
  if (verdict.case === "noRoute")
    lines.push("route                none matches: Envoy answers 404");
  else if (verdict.case === "cannotEvaluate")
    lines.push(
      `route                cannot tell: route #${verdict.value.routeIndex + 1}${verdict.value.routeName ? ` (${verdict.value.routeName})` : ""} depends on ${verdict.value.reasons.join("; ")}`,
    );
  else if (verdict.case === "routed") {
    const { route, outcome, forwarding } = verdict.value;
    if (route)
      lines.push(
        `route                #${route.index + 1}${route.name ? ` ${route.name}` : ""}: ${route.matchKind} "${route.matchValue}"${route.caseSensitive ? "" : " (case-insensitive)"}${route.conditions.length > 0 ? `, ${route.conditions.join(", ")}` : ""}`,
      );
    lines.push(`outcome              ${outcomeText(outcome?.kind)}`);
    if (forwarding) {
      if (forwarding.pathRewrite !== "none")
        lines.push(`path rewrite         ${forwarding.pathRewrite} → ${forwarding.path}`);
      if (forwarding.hostRewrite !== "none")
        lines.push(`host rewrite         ${forwarding.hostRewrite} → ${forwarding.host}`);
      lines.push(
        `timeout              ${forwarding.timeoutMs === 0 ? "disabled" : `${forwarding.timeoutMs} ms`}${forwarding.timeoutSource === "default" ? " (Envoy's default)" : ""}`,
      );
      if (forwarding.retryPolicy)
        lines.push(
          `retry policy         ${policyText(forwarding.retryPolicy.policy)} (from the ${forwarding.retryPolicy.source})`,
        );
    }
  }
  for (const op of answer.requestHeaders?.operations ?? [])
    lines.push(
      `request header       ${op.op} ${op.name}${op.op === "add" ? `: ${op.value}` : ""} (${op.level})`,
    );
  for (const op of answer.responseHeaders?.operations ?? [])
    lines.push(
      `response header      ${op.op} ${op.name}${op.op === "add" ? `: ${op.value}` : ""} (${op.level})`,
    );
  const filters = answer.httpFilters.map((f) => `${f.name}${f.enabled ? "" : " (disabled)"}`);
  if (filters.length > 0) lines.push(`http filters         ${filters.join(", ")}`);
  for (const missing of answer.clustersNotInGroup)
    lines.push(`not in node group    cluster ${missing}: its nodes answer 503`);
  for (const note of answer.notes) lines.push(`note                 ${note}`);
  return `${lines.join("\n")}\n`;
}

function outcomeText(kind: Outcome["kind"] | undefined): string {
  switch (kind?.case) {
    case "cluster":
      return `cluster ${kind.value}`;
    case "weightedClusters":
      return `weighted clusters ${kind.value.clusters.map((c) => `${c.name} ${c.percent}%`).join(", ")}; this request (random value ${kind.value.selectionValue}): ${kind.value.cluster || "none"}`;
    case "clusterHeader":
      return `the cluster named by header ${kind.value.header}: ${kind.value.cluster || `absent, Envoy answers ${kind.value.clusterNotFoundStatus}`}`;
    case "clusterSpecifierPlugin":
      return `cluster specifier plugin ${kind.value} (not evaluated)`;
    case "redirect":
      return `redirect ${kind.value.status} to ${kind.value.location}`;
    case "tlsRedirect":
      return `TLS required: redirect ${kind.value.status} to ${kind.value.location}`;
    case "directResponse":
      return `direct response ${kind.value.status}${kind.value.body ? ` (${kind.value.bodySource} ${JSON.stringify(kind.value.body)})` : ""}`;
    case "nonForwarding":
      return "not forwarded (non_forwarding_action): left to the filters";
    case "filterAction":
      return `filter action ${kind.value}`;
    default:
      return "-";
  }
}

export interface PutTestOptions {
  readonly file: string;
  readonly team?: string;
  readonly listener?: string;
  readonly routeConfiguration?: string;
  readonly knownFailing?: boolean;
}

/** "1 of 3" cases known failing, or "-". */
const knownFailingColumn = (test: RouteTest) =>
  test.knownFailingCases.length === 0 ? "-" : `${test.knownFailingCases.length} of ${test.cases}`;

/** What a put stored, in a line: how many cases, whose, and which are known failing. */
function storedLine(test: RouteTest, verb: string): string {
  const known = test.knownFailingCases;
  return `${verb} route test ${test.name} (${test.cases} case(s)${test.team ? `, team ${test.team}` : ""}): every publish runs it${
    known.length === 0
      ? ""
      : `; known failing on the latest version, gating nothing until it passes and the test is promoted (switchyard route tests promote ${test.name}): ${known.map((name) => JSON.stringify(name)).join(", ")}`
  }\n`;
}

/** `switchyard route tests`: one line per stored test. */
export async function listTests(client: RoutingClient, output: Output): Promise<void> {
  const { tests } = await client.listRouteTests({});
  if (tests.length === 0) {
    output.out("no route tests (switchyard route tests put NAME -f FILE stores one)\n");
    return;
  }
  output.out(
    table(
      ["NAME", "TEAM", "CASES", "THROUGH", "AUTHOR", "KNOWN FAILING"],
      tests.map((t) => [
        t.name,
        t.team || "-",
        String(t.cases),
        t.listener
          ? `listener ${t.listener}`
          : t.routeConfiguration
            ? `route configuration ${t.routeConfiguration}`
            : "-",
        t.author,
        knownFailingColumn(t),
      ]),
    ),
  );
}

/** `switchyard route tests put NAME -f FILE`. */
export async function putTest(
  client: RoutingClient,
  output: Output,
  name: string,
  options: PutTestOptions,
): Promise<void> {
  const [source] = readApplySources([options.file], false);
  if (source === undefined) throw new CliError(`${options.file}: no test file there`);
  const stored = await client.putRouteTest({
    name,
    team: options.team ?? "",
    content: source.content,
    listener: options.listener ?? "",
    routeConfiguration: options.routeConfiguration ?? "",
    knownFailing: options.knownFailing ?? false,
  });
  output.out(storedLine(stored, "stored"));
}

/**
 * `switchyard route tests promote NAME`: the stored test stored again as it is, without known
 * failing: refused (as any put) unless every case now passes on the latest version; then every
 * case gates again.
 */
export async function promoteTest(
  client: RoutingClient,
  output: Output,
  name: string,
): Promise<void> {
  const { tests } = await client.listRouteTests({});
  const test = tests.find((t) => t.name === name);
  if (test === undefined) throw new CliError(`route test "${name}" does not exist`);
  if (test.knownFailingCases.length === 0) {
    output.out(`route test ${name} has no known-failing case: every case gates already\n`);
    return;
  }
  const stored = await client.putRouteTest({
    name: test.name,
    team: test.team,
    content: test.content,
    listener: test.listener,
    routeConfiguration: test.routeConfiguration,
    knownFailing: false,
  });
  output.out(storedLine(stored, "promoted"));
}

/** `switchyard route tests delete NAME`. */
export async function deleteTest(
  client: RoutingClient,
  output: Output,
  name: string,
): Promise<void> {
  await client.deleteRouteTest({ name });
  output.out(`deleted route test ${name}\n`);
}

/** `switchyard route tests run [--version V]`: exit 1 when a case not known failing fails. */
export async function runTests(
  client: RoutingClient,
  output: Output,
  options: { readonly version?: string },
): Promise<void> {
  const version = versionOption(options.version);
  const answer = await client.runRouteTests({ version });
  for (const test of answer.tests) {
    output.out(
      `${test.failed > test.knownFailing ? "FAIL" : "PASS"}  ${test.name}${test.team ? ` (team ${test.team})` : ""}\n`,
    );
    for (const result of test.results) {
      if (result.passed) {
        if (result.knownFailing)
          output.out(
            `      case "${result.name}" passes, stored as known failing: switchyard route tests promote ${test.name} lets it gate (once it passes on the latest version)\n`,
          );
        continue;
      }
      output.out(
        `      case "${result.name}"${result.knownFailing ? " (known failing: gates nothing)" : ""}\n`,
      );
      if (result.refused !== "") output.out(`        cannot run it: ${result.refused}\n`);
      for (const m of result.mismatches) output.out(`        ${mismatchLine(m)}\n`);
    }
  }
  const known = answer.knownFailing > 0 ? ` (${answer.knownFailing} known failing)` : "";
  output.out(
    `${answer.passed} case(s) passed, ${answer.failed} failed${known} (${version === 0n ? "the draft" : `version ${version}`})\n`,
  );
  if (answer.failed > answer.knownFailing) cliIo().setExitCode(1);
}
