import type { Node } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import {
  isGlob,
  isXdstp,
  parseXdstp,
  type ResourceSnapshot,
  versionOf,
  type XdsResource,
} from "@switchyard/snapshot";
import { nodeIdentity } from "./node-identity.js";
import type { ConfigWatcher } from "./snapshot-cache.js";
import { WILDCARD } from "./subscription.js";
import { nodeContextOf, XdstpNaming } from "./xdstp-naming.js";

/** One REST (or unary Fetch) discovery request, already validated. */
export interface FetchRequest {
  readonly typeUrl: string;
  readonly node: Node;
  /** Empty, or containing "*", means every resource of the type. */
  readonly resourceNames: readonly string[];
  /** The version the client holds; "" when it holds nothing. */
  readonly versionInfo: string;
  /** The xdstp:// authorities served (xdstp-naming.ts); none when absent. */
  readonly authorities?: readonly string[] | undefined;
}

export interface FetchOptions {
  /** How long a request at the current version waits for a change. */
  readonly timeoutMs: number;
  /** Aborts the wait (the client went away, or the server is closing). */
  readonly signal: AbortSignal;
  /**
   * Whether the caller may be served the node group `group`: undefined when it may, else the
   * message saying why not (client-auth.ts). Absent: every group.
   */
  readonly admit?: (group: string) => string | undefined;
}

/** What a fetch came to. */
export type FetchResult =
  /** The resources, at a version other than the one the client holds. */
  | {
      readonly t: "changed";
      readonly versionInfo: string;
      readonly resources: readonly XdsResource[];
    }
  /** The client's version is still current after waiting `timeoutMs`. */
  | { readonly t: "unchanged"; readonly versionInfo: string }
  /** No configuration was installed for the node within `timeoutMs`. */
  | { readonly t: "unconfigured" }
  /** The node selects a group the caller's credential does not cover. */
  | { readonly t: "denied"; readonly message: string }
  | { readonly t: "aborted" };

/**
 * The resources of `typeUrl` a stateless request for `resourceNames` gets from `snapshot`: every
 * one for a wildcard request (no names, or "*" among them), else the named ones that exist, each
 * once, in name order. xdstp:// names and glob collections are resolved by `naming`, as on a
 * stream (xdstp-naming.ts); without it they name nothing.
 */
export function selectResources(
  snapshot: ResourceSnapshot,
  typeUrl: string,
  resourceNames: readonly string[],
  naming?: XdstpNaming,
): { readonly versionInfo: string; readonly resources: readonly XdsResource[] } {
  let available = snapshot.resources(typeUrl);
  const wildcard = resourceNames.length === 0 || resourceNames.includes(WILDCARD);
  const names = new Set(resourceNames);
  if (naming && resourceNames.some(isXdstp)) {
    const globs = resourceNames.filter((name) => {
      const parsed = isXdstp(name) ? parseXdstp(name) : undefined;
      return parsed?.ok === true && isGlob(parsed.name);
    });
    const offer = { basis: available, target: available };
    const extended = naming.extend(offer, typeUrl, resourceNames, globs);
    available = extended.basis;
    for (const member of extended.globMembers) names.add(member);
  }
  const resources = wildcard
    ? [...available.values()]
    : [...available.values()].filter((r) => names.has(r.name));
  // The same hash a SotW response's version_info is, so a REST client and a SotW stream given the
  // same CDS or LDS state see the same version (rest.e2e.spec.ts pins this).
  return { versionInfo: versionOf(resources.map((r) => [r.name, r.version])), resources };
}

/**
 * Answers one stateless discovery request (REST-JSON; xDS protocol, "REST-JSON polling
 * subscriptions"). A client that sends the current version is answered only when its resources
 * change (a long poll), or with `unchanged` once `timeoutMs` elapses; any other version is
 * answered at once. The wait watches the node's snapshot, so a publish that leaves the requested
 * resources alone does not end it.
 */
export function fetchResources(
  watcher: ConfigWatcher,
  request: FetchRequest,
  options: FetchOptions,
): Promise<FetchResult> {
  if (options.signal.aborted) return Promise.resolve({ t: "aborted" });
  const naming = new XdstpNaming(request.authorities ?? [], nodeContextOf(request.node));
  return new Promise((resolve) => {
    let done = false;
    let latest: { readonly versionInfo: string } | undefined;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: FetchResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      watch.cancel();
      options.signal.removeEventListener("abort", onAbort);
      resolve(result);
    };
    const onAbort = () => finish({ t: "aborted" });
    const consider = (snapshot: ResourceSnapshot, group: string) => {
      const denied = options.admit?.(group);
      if (denied) {
        finish({ t: "denied", message: denied });
        return;
      }
      const selected = selectResources(snapshot, request.typeUrl, request.resourceNames, naming);
      latest = selected;
      if (selected.versionInfo !== request.versionInfo) finish({ t: "changed", ...selected });
    };
    // The watch calls back only after `watch` returns (ConfigWatcher's contract).
    const watch = watcher.watch(nodeIdentity(request.node), consider);
    if (watch.current && watch.group !== undefined) consider(watch.current, watch.group);
    if (done) return;
    options.signal.addEventListener("abort", onAbort);
    timer = setTimeout(
      () =>
        finish(
          latest ? { t: "unchanged", versionInfo: latest.versionInfo } : { t: "unconfigured" },
        ),
      options.timeoutMs,
    );
  });
}
