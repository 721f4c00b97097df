/**
 * Who may make proxies read their own host (issue 22): a `DataSource` with a `filename` or an
 * `environment_variable` (@switchyard/snapshot local-sources.ts) is served or used by the proxy
 * as it is, so a route's direct response of `/etc/envoy/envoy.yaml` would hand out the proxy's
 * bootstrap, its xDS token or its client key. Admins may write any; members only files under the
 * directories an admin allows (SWITCHYARD_MEMBER_FILE_DIRS), and never environment variables.
 * Pure, like authorize.ts.
 */
import { posix } from "node:path";
import type { ModelLocalSource } from "@switchyard/snapshot";
import type { Decision } from "./authorize.js";
import type { Principal } from "./principal.js";

const ALLOW: Decision = { t: "allow" };

/** True when `file` is an absolute path inside one of `dirs` once `..` and `.` are resolved. */
export function insideAllowedDirectory(file: string, dirs: readonly string[]): boolean {
  if (!posix.isAbsolute(file)) return false;
  const resolved = posix.normalize(file);
  return dirs.some((dir) => {
    const base = posix.normalize(dir).replace(/\/+$/, "");
    return base !== "" && resolved.startsWith(`${base}/`);
  });
}

/** Whether `principal` may store an object whose proxies would read `sources`. */
export function localSourcesDecision(
  principal: Principal,
  sources: readonly ModelLocalSource[],
  allowedDirs: readonly string[],
): Decision {
  if (principal.role === "ADMIN") return ALLOW;
  for (const source of sources) {
    if (source.kind === "file" && insideAllowedDirectory(source.name, allowedDirs)) continue;
    const where =
      allowedDirs.length === 0
        ? "no directory is allowed to members"
        : `members may name files under ${allowedDirs.join(", ")} only`;
    return {
      t: "deny",
      message:
        source.kind === "file"
          ? `${source.path} makes proxies read the file ${JSON.stringify(source.name)} on their own host, and ${where} (SWITCHYARD_MEMBER_FILE_DIRS): ask an admin, or give the data inline`
          : `${source.path} makes proxies read the environment variable ${JSON.stringify(source.name)} on their own host, which only an admin may write: ask an admin, or give the data inline`,
    };
  }
  return ALLOW;
}
