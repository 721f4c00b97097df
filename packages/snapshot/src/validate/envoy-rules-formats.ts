/**
 * The string formats protoc-gen-validate's `StringRules.well_known` names (validate/validate.proto),
 * as PGV's validators test them. PGV's C++ validators (what Envoy runs) test host names, addresses,
 * IPs and UUIDs and leave `email`, `uri` and `uri_ref` unimplemented; for those the Go validators'
 * reading is followed, approximately (Go's `net/mail` and `net/url` parsers are not reproduced).
 */
import { isIP, isIPv4, isIPv6 } from "node:net";

/**
 * A host name as PGV reads one (`_validateHostname`, templates/goshared/known.go, and the C++
 * `IsHostname`): at most 253 characters, an optional final dot, dot-separated labels of 1 to 63
 * letters, digits and hyphens, none starting or ending with a hyphen. No underscore.
 */
export function isHostname(s: string): boolean {
  if (s.length > 253) return false;
  const name = s.endsWith(".") ? s.slice(0, -1) : s;
  return name.split(".").every(isLabel);
}

const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

function isLabel(label: string): boolean {
  return LABEL.test(label);
}

/** An IPv4 or IPv6 address as `inet_pton` reads it: no zone (`%eth0`), no brackets, no port. */
export function isIp(s: string): boolean {
  return isIP(s) !== 0 && !s.includes("%");
}

export function isIpv4(s: string): boolean {
  return isIPv4(s);
}

/** An IPv6 address, IPv4-mapped ones (`::ffff:10.0.0.1`) included, as `inet_pton` reads them. */
export function isIpv6(s: string): boolean {
  return isIPv6(s) && !s.includes("%");
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A UUID in its 8-4-4-4-12 hexadecimal form, any version (PGV's `_uuidPattern`). */
export function isUuid(s: string): boolean {
  return UUID.test(s);
}

const ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

/**
 * An email address: at most 254 characters, a dot-atom local part of at most 64, "@" and a host
 * name (PGV's Go `_validateEmail`; quoted local parts and display names are not accepted here).
 */
export function isEmail(s: string): boolean {
  if (s.length > 254) return false;
  const at = s.lastIndexOf("@");
  if (at <= 0 || at > 64) return false;
  return ATOM.test(s.slice(0, at)) && isHostname(s.slice(at + 1));
}

const URI_TEXT = /^[^\s\p{Cc}]*$/u;
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** A URI reference (RFC 3986 section 4.1): no whitespace or control character, valid escapes. */
export function isUriRef(s: string): boolean {
  return URI_TEXT.test(s) && !BAD_ESCAPE.test(s);
}

/** An absolute URI: a URI reference with a scheme (Go's `url.Parse` then `IsAbs`). */
export function isUri(s: string): boolean {
  return isUriRef(s) && SCHEME.test(s);
}

/** A `KnownRegex` test: the expression PGV uses, with what to tell the user. */
export interface KnownRegexTest {
  readonly name: string;
  readonly expected: string;
  test(s: string): boolean;
}

/*
 * PGV's patterns (the same in every language it targets). `+-.` in the name class is a range, so
 * it admits "," too, as PGV's does. With `strict: false` both kinds only refuse what would break a
 * header line (validate.proto, StringRules.strict: "a looser validation that only disallows \r\n\0
 * characters").
 */
const HEADER_NAME = /^:?[0-9a-zA-Z!#$%&'*+-.^_|~`]+$/;

/** `^[^\u0000-\u0008\u000A-\u001F\u007F]*$`: no control character but tab. */
function isHeaderValue(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c <= 0x1f && c !== 0x09) || c === 0x7f) return false;
  }
  return true;
}

/** `^[^\u0000\u000A\u000D]*$`: no NUL, LF or CR. */
function isHeaderString(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x00 || c === 0x0a || c === 0x0d) return false;
  }
  return true;
}

/** The test for `well_known_regex` value `known` (KnownRegex) with `strict`; none for UNKNOWN. */
export function knownRegex(known: number, strict: boolean): KnownRegexTest | undefined {
  const name = known === 1 ? "HTTP_HEADER_NAME" : known === 2 ? "HTTP_HEADER_VALUE" : undefined;
  if (name === undefined) return undefined;
  if (!strict) {
    const what = known === 1 ? "an HTTP header name" : "an HTTP header value";
    return {
      name,
      expected: `must be ${what} without NUL, CR or LF characters`,
      test: isHeaderString,
    };
  }
  return known === 1
    ? {
        name,
        expected: `must be an HTTP header name (RFC 7230 token characters, optionally after ":")`,
        test: (s) => HEADER_NAME.test(s),
      }
    : {
        name,
        expected: "must be an HTTP header value (no control characters other than tab)",
        test: isHeaderValue,
      };
}
