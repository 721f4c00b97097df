/**
 * Who may make proxies touch their own host (issues 22 and 44): the fields of Envoy's API that
 * make a proxy read or write a file, read an environment variable, run code, reach a local socket
 * or use its host's credentials (@switchyard/snapshot proxy-local-fields.ts, found by
 * local-sources.ts) act on the proxy's host as written, so a route's direct response of
 * `/etc/envoy/envoy.yaml` would hand out the proxy's bootstrap, its xDS token or its client key,
 * and a cluster's health check event log would append to it. Admins may write any; members only
 * what reads a file under the directories an admin allows (SWITCHYARD_MEMBER_FILE_DIRS): never a
 * file written, an environment variable, code given inline or fetched, a socket or credentials.
 * Pure, like authorize.ts.
 */
import { posix } from "node:path";
import type { ModelLocalSource } from "@switchyard/snapshot";
import type { Decision } from "./authorize.js";
import type { Principal } from "./principal.js";

const ALLOW: Decision = { t: "allow" };

/**
 * True when `file` is an absolute path inside one of `dirs` once `..` and `.` are resolved, as
 * text: the proxy resolves it on its own host, so a symbolic link inside a directory that leads
 * out of it is followed there (README, "Security": such directories must not hold one). A path
 * with a control character is never inside: it is not a name an operator wrote.
 */
export function insideAllowedDirectory(file: string, dirs: readonly string[]): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
  if (!posix.isAbsolute(file) || /[\u0000-\u001f\u007f]/.test(file)) return false;
  const resolved = posix.normalize(file);
  return dirs.some((dir) => {
    const base = posix.normalize(dir).replace(/\/+$/, "");
    return base !== "" && resolved.startsWith(`${base}/`);
  });
}

/**
 * Whether `principal` may store an object whose proxies would do what `sources` say; a denial
 * names the model field, what the proxy would do on its host, and the rule.
 */
export function localSourcesDecision(
  principal: Principal,
  sources: readonly ModelLocalSource[],
  allowedDirs: readonly string[],
): Decision {
  if (principal.role === "ADMIN") return ALLOW;
  for (const source of sources) {
    if (source.reads !== null && insideAllowedDirectory(source.reads, allowedDirs)) continue;
    const where =
      allowedDirs.length === 0
        ? "no directory is allowed to members"
        : `members may name files under ${allowedDirs.join(", ")} only`;
    const rule =
      source.reads !== null
        ? `, and ${where} (SWITCHYARD_MEMBER_FILE_DIRS)`
        : ", which only an admin may write";
    return {
      t: "deny",
      message: `${source.path} makes proxies ${source.does} on their own host${rule}: ${source.instead ?? "ask an admin"}`,
    };
  }
  return ALLOW;
}
