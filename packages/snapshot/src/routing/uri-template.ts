/**
 * Envoy's URI templates: the path matcher `envoy.path.match.uri_template.uri_template_matcher`
 * and the path rewriter `envoy.path.rewrite.uri_template.uri_template_rewriter`
 * (https://www.envoyproxy.io/docs/envoy/latest/api-v3/extensions/path/match/uri_template/v3/uri_template_match.proto
 * and .../path/rewrite/uri_template/v3/uri_template_rewrite.proto). Pure.
 *
 * A template is "/" then segments separated by "/": a literal, `*` (one segment), `**` (zero or
 * more segments, nothing glob after it), `{var}` (= `{var=*}`), `{var=**}` or `{var=a/*}`; the last
 * segment may be followed by a literal suffix (`/{file=**}.ts`). Envoy compiles it to an RE2
 * regex that must match the whole path, query and fragment excluded: `*` is one or more path
 * characters, `**` zero or more path characters or "/". At most 5 variables, names 1 to 16
 * characters. A rewrite is literals and `{var}` references to the matcher's variables.
 */
import { RE2JS } from "re2js";

// RFC 3986 pchar without "*" and "/" (Envoy's uri_template_internal.cc, kLiteral).
const LITERAL = "a-zA-Z0-9\\-._~%!$&'()+,;:@=";
const LITERAL_RE = new RegExp(`^[${LITERAL}]+$`);
const PATH_GLOB = `[${LITERAL}]+`;
const TEXT_GLOB = `[${LITERAL}/]*`;

/** A template Envoy would refuse; the message says which part. */
export class UriTemplateError extends Error {}

function escapeLiteral(literal: string): string {
  return literal.replace(/[$()+.]/g, (c) => `\\${c}`);
}

interface Parsed {
  readonly regex: string;
  readonly variables: readonly string[];
}

function parseOperator(text: string): { glob: "*" | "**"; rest: string } {
  if (text.startsWith("**")) return { glob: "**", rest: text.slice(2) };
  return { glob: "*", rest: text.slice(1) };
}

function parseLiteral(text: string): { literal: string; rest: string } {
  const slash = text.indexOf("/");
  const literal = slash < 0 ? text : text.slice(0, slash);
  if (!LITERAL_RE.test(literal)) throw new UriTemplateError(`invalid literal "${literal}"`);
  return { literal, rest: text.slice(literal.length) };
}

/** Parses a path template to the regex Envoy matches with, checking what Envoy checks. */
export function parseUriTemplate(template: string): Parsed {
  if (!/^\/[\x21-\x7e]*$/.test(template)) {
    throw new UriTemplateError(
      `invalid pattern "${template}": it must start with "/" and be printable`,
    );
  }
  let rest = template.slice(1);
  const segments: string[] = [];
  const variables: string[] = [];
  let suffix = "";
  let seenTextGlob = false;
  const glob = (g: "*" | "**") => {
    if (seenTextGlob) throw new UriTemplateError("a glob after a text glob (**)");
    if (g === "**") seenTextGlob = true;
    return g === "**" ? TEXT_GLOB : PATH_GLOB;
  };
  while (rest !== "") {
    if (rest.startsWith("*")) {
      const op = parseOperator(rest);
      segments.push(glob(op.glob));
      rest = op.rest;
    } else if (rest.startsWith("{")) {
      const close = rest.indexOf("}");
      if (close < 0) throw new UriTemplateError(`unmatched variable bracket in "${rest}"`);
      const [name = "", match] = splitOnce(rest.slice(1, close), "=");
      if (!/^[a-zA-Z][a-zA-Z0-9_]*$/.test(name)) {
        throw new UriTemplateError(`invalid variable name "${name}"`);
      }
      if (name.length > 16)
        throw new UriTemplateError(`variable name "${name}" is over 16 characters`);
      if (variables.includes(name)) throw new UriTemplateError(`repeated variable name "${name}"`);
      variables.push(name);
      if (variables.length > 5) throw new UriTemplateError("more than 5 variables");
      segments.push(`(?P<${name}>${variableRegex(match, glob)})`);
      rest = rest.slice(close + 1);
    } else {
      const lit = parseLiteral(rest);
      segments.push(escapeLiteral(lit.literal));
      rest = lit.rest;
    }
    if (rest === "") break;
    if (rest === "/") {
      segments.push("");
      break;
    }
    if (rest.startsWith("/")) {
      rest = rest.slice(1);
      continue;
    }
    const lit = parseLiteral(rest);
    if (lit.rest !== "") throw new UriTemplateError("prefix match not supported");
    suffix = escapeLiteral(lit.literal);
    break;
  }
  return { regex: `/${segments.join("/")}${suffix}`, variables };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

function variableRegex(match: string | undefined, glob: (g: "*" | "**") => string): string {
  if (match === undefined) return glob("*");
  if (match === "") throw new UriTemplateError("empty variable match");
  const parts: string[] = [];
  let rest = match;
  while (rest !== "") {
    if (rest.startsWith("*")) {
      const op = parseOperator(rest);
      parts.push(glob(op.glob));
      rest = op.rest;
    } else {
      const lit = parseLiteral(rest);
      parts.push(escapeLiteral(lit.literal));
      rest = lit.rest;
    }
    if (rest !== "") {
      if (!rest.startsWith("/") || rest.length === 1) {
        throw new UriTemplateError(`invalid variable match "${rest}"`);
      }
      rest = rest.slice(1);
    }
  }
  return parts.join("/");
}

/** A matcher for `template`: its captures when the path (query excluded) matches, else null. */
export function uriTemplateMatcher(
  template: string,
): (pathWithoutQuery: string) => Record<string, string> | null {
  const parsed = parseUriTemplate(template);
  const re = RE2JS.compile(parsed.regex);
  return (path) => {
    const m = re.matcher(path);
    if (!m.matches()) return null;
    return Object.fromEntries(parsed.variables.map((v) => [v, m.group(v) ?? ""]));
  };
}

/**
 * The rewritten path (query excluded) for a path the template matched, or null when Envoy leaves
 * the path as it is (the rewrite fails or gives ""). Throws UriTemplateError for a rewrite Envoy
 * refuses: not starting with "/", "//", an unknown variable.
 */
export function rewriteUriTemplate(
  rewrite: string,
  template: string,
  pathWithoutQuery: string,
): string | null {
  if (!rewrite.startsWith("/")) throw new UriTemplateError('a rewrite must start with "/"');
  if (rewrite.includes("//")) throw new UriTemplateError('a rewrite cannot hold "//"');
  const captures = uriTemplateMatcher(template)(pathWithoutQuery);
  const names = parseUriTemplate(template).variables;
  let out = "";
  let rest = rewrite;
  while (rest !== "") {
    const open = rest.indexOf("{");
    const literal = open < 0 ? rest : rest.slice(0, open);
    if (literal !== "" && !/^[a-zA-Z0-9\-._~%!$&'()+,;:@=/]+$/.test(literal)) {
      throw new UriTemplateError(`invalid rewrite literal "${literal}"`);
    }
    out += literal;
    if (open < 0) break;
    const close = rest.indexOf("}", open);
    if (close < 0) throw new UriTemplateError("unmatched variable bracket");
    const name = rest.slice(open + 1, close);
    if (!names.includes(name)) throw new UriTemplateError(`unknown variable "${name}"`);
    if (captures === null) return null;
    out += captures[name] ?? "";
    rest = rest.slice(close + 1);
  }
  return captures === null || out === "" ? null : out;
}
