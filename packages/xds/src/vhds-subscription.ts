import { fromBinary } from "@bufbuild/protobuf";
import { VirtualHostSchema } from "@switchyard/proto/envoy/config/route/v3/route_components_pb";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import {
  type ResourceSnapshot,
  splitVhdsName,
  TypeUrl,
  VirtualHostIndex,
  versionOf,
  type XdsResource,
} from "@switchyard/snapshot";
import { type DeltaResponsePlan, DeltaSubscription } from "./delta-subscription.js";

/**
 * VHDS, on-demand virtual hosts (Envoy's "Virtual Host Discovery Service (VHDS)" page,
 * https://www.envoyproxy.io/docs/envoy/latest/configuration/http/http_conn_man/vhds, and the
 * "Virtual Host Discovery Service" section of the xDS protocol page's v2-era editions, the only
 * source of some quotes below), on one Delta stream. Pure, like DeltaSubscription, whose protocol
 * rules it keeps (one response in flight, stale nonces still change the subscription, NACKs
 * remembered).
 *
 * What differs is naming. A proxy subscribes to `<route configuration>/<host>`: the Host header
 * (":authority") of a request no virtual host it holds serves, one name per host ("Requesting
 * Additional resources"). The server resolves each such alias against the domains of the route
 * configuration's virtual hosts, as Envoy would match the host (@switchyard/snapshot vhds.ts
 * `VirtualHostIndex`), and answers with the virtual host under its own name,
 * `<route configuration>/<virtual host>`, with `aliases` holding every subscribed name it serves:
 * "The resource.aliases field contains all host/authority header values used to create the
 * on-demand request", which is how Envoy resumes the requests it paused (vhds.cc adds the name and
 * every alias to the ids it resolves). So two hosts served by one virtual host get one resource
 * with both aliases.
 *
 * - An alias no virtual host serves (no domain matches, or no such VHDS route configuration) is
 *   answered with a Resource whose `name` and `aliases` are the alias and whose body is unset
 *   ("If a virtual host is requested for which the management server does not know about ...
 *   the resource unpopulated. This will allow Envoy to match the requested resource to the
 *   response"), not in `removed_resources`: Envoy would otherwise wait for it until its timeout.
 *   If a virtual host serving it appears later, it is sent then.
 * - A later change to a virtual host an alias resolves to is pushed ("Future updates to these
 *   virtual hosts will be sent via spontaneous updates"); only for virtual hosts the client was
 *   sent ("only send updates for virtual hosts that Envoy is aware of").
 * - A virtual host the client holds that no subscribed alias resolves to any more (deleted, or its
 *   hosts now served by another) is named in `removed_resources` by its own name: Envoy keys the
 *   virtual hosts it got over VHDS by name and drops those names. An unsubscribed alias needs no
 *   answer: the client dropped it itself.
 * - A name with no "/" (Envoy's first VHDS request names the bare route configuration, vhds.cc,
 *   a namespace subscription for a base set of virtual hosts) resolves to no alias: the base set is
 *   empty (every virtual host is on demand), and like any name that does not exist, it is answered
 *   in `removed_resources` (xDS protocol, "Incremental xDS"), so the proxy's initial fetch
 *   completes at once.
 * - A route configuration the client is sent again resets its virtual hosts: the scheduler marks
 *   its aliases to be resent after the RDS response is ACKed (subscription-scheduler.ts).
 * - The wildcard means nothing here: VHDS is by name only.
 *
 * Internally the subscription's core (subscription.ts) tracks aliases: each subscribed alias is
 * offered as an "alias resource" whose version names the virtual host it resolves to and that
 * host's version (or "unresolved"), so a change of either is a change the core sees and sends
 * again. `holds` (what status reports) is translated back to virtual hosts.
 */
export class VhdsSubscription extends DeltaSubscription {
  /** The core's effect of each plan handed out, by plan: what `markSent` records. */
  readonly #effects = new WeakMap<DeltaResponsePlan, AliasEffect>();
  /** Aliases reset by an RDS update, to be sent again by the next plan. */
  readonly #reset = new Set<string>();

  /** Route configurations whose host matching ignores the port (`ignore_port_in_host_matching`). */
  #ignoresPort: ReadonlySet<string> = new Set();

  constructor(snapshot?: ResourceSnapshot) {
    super(TypeUrl.VirtualHost);
    if (snapshot) this.useRouteConfigurations(snapshot);
  }

  /**
   * Reads the route configurations of the snapshot the node converges to for how they match
   * hosts: with `ignore_port_in_host_matching`, Envoy matches "shop.example.com:8080" as
   * "shop.example.com", and so does the server for that route configuration's hosts.
   */
  useRouteConfigurations(snapshot: ResourceSnapshot): void {
    this.#ignoresPort = portIgnoring(snapshot.resources(TypeUrl.RouteConfiguration));
  }

  /** What the client holds as virtual hosts: name → version (unresolved aliases left out). */
  override get holds(): ReadonlyMap<string, string> {
    return virtualHostsHeld(this.core.holds);
  }

  /**
   * Marks every subscribed alias under one of `routeConfigurations` to be sent again (an RDS update
   * resets that route configuration's virtual hosts). Kept until the next plan rather than
   * forced now: a VHDS response still in flight is not held yet, and its virtual hosts are reset
   * too.
   */
  resetRouteConfigurations(routeConfigurations: ReadonlySet<string>): void {
    for (const alias of this.core.names) {
      const owner = splitVhdsName(alias)?.routeConfiguration;
      if (owner !== undefined && routeConfigurations.has(owner)) this.#reset.add(alias);
    }
  }

  override plan(
    available: ReadonlyMap<string, XdsResource>,
    target: ReadonlyMap<string, XdsResource> = available,
  ): DeltaResponsePlan | undefined {
    if (!this.core.open) return undefined;
    if (this.#reset.size > 0) {
      this.core.forceResend(this.#reset);
      this.#reset.clear();
    }
    const now = resolveAliases(this.core.names, available, this.#ignoresPort);
    const later = resolveAliases(this.core.names, target, this.#ignoresPort);
    // An alias that resolves only in the target is on its way (a later plan step): neither
    // answered as unknown now nor reported missing.
    const basis = new Map<string, AliasResource>();
    for (const [alias, resource] of now) {
      if (resource.resolved !== undefined || later.get(alias)?.resolved === undefined)
        basis.set(alias, resource);
    }
    const { resources, removed, missing } = this.core.difference({ basis, target: later });
    if (resources.length === 0 && removed.length === 0 && missing.length === 0) return undefined;

    const sent = resources as readonly AliasResource[];

    // One Resource per virtual host, aliased by every subscribed name it now serves.
    const byHost = new Map<string, XdsResource>();
    const unresolved: string[] = [];
    for (const resource of sent) {
      if (resource.resolved) byHost.set(resource.resolved.name, resource.resolved);
      else unresolved.push(resource.name);
    }
    const aliasesOf = new Map<string, string[]>();
    const effectSent: AliasResource[] = [];
    for (const [alias, resource] of basis) {
      const host = resource.resolved?.name;
      if (host === undefined || !byHost.has(host)) continue;
      aliasesOf.set(host, [...(aliasesOf.get(host) ?? []), alias]);
      effectSent.push(resource);
    }
    effectSent.push(...sent.filter((r) => r.resolved === undefined));
    const after = new Map(this.core.holds);
    for (const alias of [...removed, ...missing]) after.delete(alias);
    for (const resource of effectSent) after.set(resource.name, resource.version);

    const before = virtualHostsHeld(this.core.holds);
    const still = virtualHostsHeld(after);
    const dropped = [...before.keys()].filter((host) => !still.has(host));
    // `removed_resources` never names a Resource of the same response (delta-session.ts): an
    // alias spelled like a dropped virtual host's name goes unanswered rather than contradict it.
    const droppedSet = new Set(dropped);
    const gone = [...new Set([...dropped, ...missing])].sort();
    const plan: DeltaResponsePlan = {
      systemVersionInfo: versionOf(after),
      resources: [...byHost.values()].sort((a, b) => byName(a.name, b.name)),
      removed: gone,
      aliases: aliasesOf,
      unresolved: unresolved.filter((alias) => !droppedSet.has(alias)).sort(byName),
    };
    this.#effects.set(plan, { sent: effectSent, removed: [...removed, ...missing] });
    return plan;
  }

  override markSent(plan: DeltaResponsePlan, nonce: string): readonly XdsResource[] {
    const effect = this.#effects.get(plan) ?? { sent: [], removed: [] };
    this.core.markSent(nonce, plan.systemVersionInfo, {
      replace: false,
      sent: effect.sent,
      removed: effect.removed,
    });
    // Nothing warms on a virtual host: no dependents to resend.
    return [];
  }
}

/** A subscribed alias as the core sees it: its name, and the virtual host it resolves to. */
interface AliasResource extends XdsResource {
  readonly resolved: XdsResource | undefined;
}

interface AliasEffect {
  readonly sent: readonly AliasResource[];
  readonly removed: readonly string[];
}

const UNRESOLVED = "unresolved";
const NO_BODY = new Uint8Array();

/** `<virtual host version>:<virtual host name>`: the version of an alias resolved to it. */
function aliasVersion(resolved: XdsResource): string {
  return `${resolved.version}:${resolved.name}`;
}

function virtualHostsHeld(aliases: ReadonlyMap<string, string>): ReadonlyMap<string, string> {
  const held = new Map<string, string>();
  for (const version of aliases.values()) {
    if (version === UNRESOLVED) continue;
    const colon = version.indexOf(":");
    if (colon > 0) held.set(version.slice(colon + 1), version.slice(0, colon));
  }
  return held;
}

/**
 * Each subscribed `<route configuration>/<host>` resolved against the virtual hosts in `offered`
 * (sorted by name, as the core wants its basis). A name without a host is left out (missing).
 */
function resolveAliases(
  names: ReadonlySet<string>,
  offered: ReadonlyMap<string, XdsResource>,
  ignoresPort: ReadonlySet<string>,
): Map<string, AliasResource> {
  const index = indexOf(offered);
  const out = new Map<string, AliasResource>();
  for (const alias of [...names].sort(byName)) {
    const parts = splitVhdsName(alias);
    if (!parts) continue;
    const host = ignoresPort.has(parts.routeConfiguration) ? withoutPort(parts.host) : parts.host;
    const resolved = index.get(parts.routeConfiguration)?.select(host)?.resource;
    out.set(alias, {
      typeUrl: TypeUrl.VirtualHost,
      name: alias,
      version: resolved ? aliasVersion(resolved) : UNRESOLVED,
      body: resolved?.body ?? NO_BODY,
      references: resolved?.references ?? [],
      resolved,
    });
  }
  return out;
}

interface Candidate {
  readonly resource: XdsResource;
  readonly domains: readonly string[];
}

/** Route configuration → its virtual hosts by domain; built once per offered map, shared. */
const indexes = new WeakMap<
  ReadonlyMap<string, XdsResource>,
  Map<string, VirtualHostIndex<Candidate>>
>();
/** A virtual host's domains, decoded once per resource (shared by every stream). */
const domainsOf = new WeakMap<XdsResource, readonly string[]>();

function indexOf(
  offered: ReadonlyMap<string, XdsResource>,
): Map<string, VirtualHostIndex<Candidate>> {
  const known = indexes.get(offered);
  if (known) return known;
  const byOwner = new Map<string, Candidate[]>();
  for (const resource of offered.values()) {
    const owner = splitVhdsName(resource.name)?.routeConfiguration;
    if (owner === undefined) continue;
    let domains = domainsOf.get(resource);
    if (!domains) {
      domains = fromBinary(VirtualHostSchema, resource.body).domains;
      domainsOf.set(resource, domains);
    }
    const list = byOwner.get(owner) ?? [];
    list.push({ resource, domains });
    byOwner.set(owner, list);
  }
  const index = new Map(
    [...byOwner].map(([owner, candidates]) => [owner, new VirtualHostIndex(candidates)]),
  );
  indexes.set(offered, index);
  return index;
}

/** Names of the route configurations with `ignore_port_in_host_matching`, decoded once per map. */
const portIgnoringOf = new WeakMap<ReadonlyMap<string, XdsResource>, ReadonlySet<string>>();

function portIgnoring(routeConfigurations: ReadonlyMap<string, XdsResource>): ReadonlySet<string> {
  const known = portIgnoringOf.get(routeConfigurations);
  if (known) return known;
  const names = new Set<string>();
  for (const resource of routeConfigurations.values()) {
    const routeConfiguration = fromBinary(RouteConfigurationSchema, resource.body);
    if (routeConfiguration.vhds && routeConfiguration.ignorePortInHostMatching)
      names.add(resource.name);
  }
  portIgnoringOf.set(routeConfigurations, names);
  return names;
}

/**
 * The host without a trailing ":port", as Envoy strips it: "shop.example.com:8080" and
 * "[::1]:8080" lose the port; an unbracketed IPv6 address ("::1") has none to lose.
 */
function withoutPort(host: string): string {
  const colon = host.lastIndexOf(":");
  if (colon === -1 || !/^\d+$/.test(host.slice(colon + 1))) return host;
  const head = host.slice(0, colon);
  if (head.startsWith("[")) return head.endsWith("]") ? head : host;
  return head.includes(":") ? host : head;
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
