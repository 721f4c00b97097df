/**
 * The xdstp:// authorities a Switchyard answers for (SWITCHYARD_XDS_AUTHORITY, `serve
 * --xds-authority`). An authority is the logical name of the control plane in resource names
 * (`xdstp://AUTHORITY/TYPE/ID`; "Logical resource naming" in the "xDS transport next steps"
 * design doc, the original design document of xDS proposal TP1, both linked in docs/xdstp.md);
 * clients map it to this server in their bootstrap (gRPC `authorities`, Envoy
 * `config_sources[].authorities`). Several may be given, e.g. while clients move from an old name
 * to a new one; every resource is served under each.
 */

/** The authority served when none is configured: it works from `npm start` as it is. */
export const DEFAULT_XDS_AUTHORITY = "switchyard";

/** A host name, optionally with a port: what gRPC and Envoy put there (no `/ ? # %` or spaces). */
const AUTHORITY = /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?(:[0-9]{1,5})?$/;

/**
 * The comma-separated list, checked; or a message saying which entry is wrong and why. `none`
 * (or an empty list) serves no authority: xdstp:// names then resolve to nothing.
 */
export function parseAuthorities(text: string): string[] | string {
  if (text.trim() === "none") return [];
  const entries = text
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  for (const entry of entries) {
    if (!AUTHORITY.test(entry)) {
      return `xdstp:// authority ${JSON.stringify(entry)} is not a host name (letters, digits, ".", "-", "_", optionally ":port"), e.g. xds.example.com`;
    }
  }
  return [...new Set(entries)];
}

/** For the startup banner. */
export function describeAuthorities(authorities: readonly string[]): string {
  return authorities.length === 0
    ? "off (SWITCHYARD_XDS_AUTHORITY is none: xdstp:// names resolve to nothing)"
    : `every resource also as xdstp://${authorities[0]}/TYPE/NAME${authorities.length > 1 ? ` (and under ${authorities.slice(1).join(", ")})` : ""}`;
}
