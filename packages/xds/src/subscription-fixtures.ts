/**
 * Test fixtures for the pure protocol core: snapshots from specs, and simulated xDS clients that
 * drive a SotwSession or DeltaSession the way Envoy or a proxyless gRPC client does, with no
 * sockets. Used by the *.spec.ts files of sotw/delta sessions; not part of the package API.
 */
import {
  type ConfigSpec,
  compile,
  isFullStateType,
  type ResourceSnapshot,
  referencedType,
  rejectedNames,
  TYPE_ORDER,
  TypeUrl,
  type XdsResource,
} from "@switchyard/snapshot";
import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  endpointSpec,
  routeConfigurationSpec,
} from "@switchyard/snapshot/fixtures";
import { type DeltaResponse, DeltaSession } from "./delta-session.js";
import { type SotwResponse, SotwSession } from "./sotw-session.js";
import type { SessionOptions } from "./subscription-ttl.js";

/** The names of a response's resources. */
const names = (response: { readonly resources: readonly XdsResource[] }) =>
  response.resources.map((r) => r.name);

export function snapshotOf(spec: ConfigSpec): ResourceSnapshot {
  const { groups, issues } = compile(spec);
  if (issues.length > 0) throw new Error(`fixture does not compile: ${JSON.stringify(issues)}`);
  const snapshot = groups[0]?.snapshot;
  if (!snapshot) throw new Error("no snapshot");
  if (snapshot.danglingReferences().length > 0) {
    throw new Error(`fixture has dangling references: ${snapshot.danglingReferences().join("; ")}`);
  }
  return snapshot;
}

export const SHORT: Record<string, string> = {
  [TypeUrl.Cluster]: "CDS",
  [TypeUrl.ClusterLoadAssignment]: "EDS",
  [TypeUrl.Listener]: "LDS",
  [TypeUrl.RouteConfiguration]: "RDS",
};

/**
 * How a simulated client decides what to subscribe to. `envoy`: wildcard CDS and LDS, then the
 * assignments of its clusters and the route configurations of its listeners. `grpc` (proxyless
 * gRPC): the listener it dials by name, then by name its route configuration, clusters and
 * assignments, in that order, never a wildcard.
 */
export type ClientStyle =
  | { readonly t: "envoy" }
  | { readonly t: "grpc"; readonly listener: string };

type Interest = { readonly t: "wildcard" } | { readonly t: "names"; readonly names: Set<string> };

/** The type whose held resources name what a grpc client subscribes to next. */
const GRPC_PARENT: Record<string, string> = {
  [TypeUrl.RouteConfiguration]: TypeUrl.Listener,
  [TypeUrl.Cluster]: TypeUrl.RouteConfiguration,
  [TypeUrl.ClusterLoadAssignment]: TypeUrl.Cluster,
};

/** What a client says about a response: undefined to ACK it, an error text to NACK it. */
export type Judge = (typeUrl: string, resources: readonly XdsResource[]) => string | undefined;

/** One event a simulated client saw, in order. */
export interface Seen {
  readonly typeUrl: string;
  readonly resources: readonly string[];
  readonly removed: readonly string[];
  readonly nacked: boolean;
  /** What the client had ACKed when the response arrived, by type: name → version. */
  readonly ackedBefore: ReadonlyMap<
    string,
    ReadonlyMap<string, string>
  > /** The response itself, as the session gave it. */;
  readonly response: SotwResponse | DeltaResponse;
}

/**
 * The types the simulated clients subscribe to: the routing chain. Neither models RTDS (a runtime
 * layer depends on nothing and nothing on it), SDS (secrets are subscribed by name from TLS
 * contexts) nor VHDS (on demand, by host, Delta only); those streams are tested against the real
 * server (rtds.e2e.spec.ts, sds.e2e.spec.ts, vhds.e2e.spec.ts).
 */
const CLIENT_TYPES: readonly string[] = TYPE_ORDER.filter(
  (t) => t !== TypeUrl.Runtime && t !== TypeUrl.Secret && t !== TypeUrl.VirtualHost,
);

/** The state and decisions common to both simulated clients. */
abstract class SimulatedClient<R> {
  readonly style: ClientStyle;
  /** What the client holds (accepted), by type. */
  readonly holds = new Map<string, Map<string, XdsResource>>(
    CLIENT_TYPES.map((t) => [t, new Map()]),
  );
  readonly seen: Seen[] = [];
  judge: Judge = () => undefined;
  protected readonly interests = new Map<string, Interest>();
  protected readonly inbox: R[] = [];

  constructor(style: ClientStyle) {
    this.style = style;
  }

  held(typeUrl: string): ReadonlyMap<string, XdsResource> {
    return this.holds.get(typeUrl) ?? new Map();
  }

  /** Names held, by type: compact expectations. */
  heldNames(): Record<string, string[]> {
    return Object.fromEntries(
      CLIENT_TYPES.map((t) => [SHORT[t] ?? t, [...this.held(t).keys()].sort()]),
    );
  }

  /**
   * Routes the client held, at some point, to a cluster it lacked: traffic lost (routes are not
   * warmed). Checked after every response.
   */
  readonly lostRoutes: string[] = [];

  /** Delivers every response in flight (and those they cause) to the client. */
  run(limit = 200): Seen[] {
    const start = this.seen.length;
    for (let i = 0; this.inbox.length > 0; i++) {
      if (i >= limit) throw new Error("the exchange did not settle");
      this.deliverOne();
    }
    return this.seen.slice(start);
  }

  /** Delivers the next response in flight; returns what the client saw of it. */
  deliverOne(): Seen | undefined {
    const response = this.inbox.shift();
    if (response === undefined) return undefined;
    this.receive(response);
    this.lostRoutes.push(...danglingOnClient(this, true));
    return this.seen.at(-1);
  }

  /** The type of the next response in flight. */
  abstract peekType(): string | undefined;

  /** How many responses are in flight to the client. */
  get pending(): number {
    return this.inbox.length;
  }

  protected ackedState(): Map<string, ReadonlyMap<string, string>> {
    return new Map(
      [...this.holds].map(([t, held]) => [t, new Map([...held].map(([n, r]) => [n, r.version]))]),
    );
  }

  protected wanted(typeUrl: string): Interest | undefined {
    const style = this.style;
    if (style.t === "envoy") {
      if (typeUrl === TypeUrl.Cluster || typeUrl === TypeUrl.Listener) return { t: "wildcard" };
      const parent = typeUrl === TypeUrl.ClusterLoadAssignment ? TypeUrl.Cluster : TypeUrl.Listener;
      return { t: "names", names: referencesOf(this.held(parent).values()) };
    }
    if (typeUrl === TypeUrl.Listener) return { t: "names", names: new Set([style.listener]) };
    const parent = GRPC_PARENT[typeUrl];
    return parent ? { t: "names", names: referencesOf(this.held(parent).values()) } : undefined;
  }

  /** The types whose interest changed since it was last sent, in make-before-break order. */
  protected changedInterests(): [string, Interest][] {
    const changed: [string, Interest][] = [];
    for (const typeUrl of CLIENT_TYPES) {
      const next = this.wanted(typeUrl);
      const before = this.interests.get(typeUrl);
      if (!next || sameInterest(before, next)) continue;
      if (!before && next.t === "names" && next.names.size === 0) continue;
      changed.push([typeUrl, next]);
    }
    return changed;
  }

  /** A client drops what it no longer subscribes to (its dependents went away). */
  protected dropUnwanted(typeUrl: string, interest: Interest): void {
    if (interest.t === "wildcard") return;
    const held = this.holds.get(typeUrl);
    for (const name of held?.keys() ?? []) if (!interest.names.has(name)) held?.delete(name);
  }

  protected abstract receive(response: R): void;
}

function referencesOf(resources: Iterable<XdsResource>): Set<string> {
  return new Set([...resources].flatMap((r) => r.references));
}

function sameInterest(a: Interest | undefined, b: Interest): boolean {
  if (!a || a.t !== b.t) return false;
  if (a.t === "wildcard" || b.t === "wildcard") return true;
  return a.names.size === b.names.size && [...a.names].every((n) => b.names.has(n));
}

/** A client on a SotW stream (ADS unless it only ever requests one type). */
export class SotwSimClient extends SimulatedClient<SotwResponse> {
  readonly session: SotwSession;
  readonly #nonces = new Map<string, string>();
  readonly #versions = new Map<string, string>();

  constructor(style: ClientStyle, options: SessionOptions = {}) {
    super(style);
    this.session = new SotwSession(options);
  }

  /** The snapshot is installed before the first request, as the transport does. */
  connect(snapshot: ResourceSnapshot | undefined): this {
    if (snapshot) this.#deliver(this.session.onSnapshot(snapshot));
    this.#sendInterests();
    return this;
  }

  publish(snapshot: ResourceSnapshot): void {
    this.#deliver(this.session.onSnapshot(snapshot));
  }

  /** A request as this client would send it for `typeUrl` now. */
  request(typeUrl: string, names: readonly string[], errorDetail?: string) {
    const result = this.session.onRequest({
      typeUrl,
      resourceNames: names,
      versionInfo: this.#versions.get(typeUrl) ?? "",
      responseNonce: this.#nonces.get(typeUrl) ?? "",
      errorDetail,
    });
    this.#deliver(result.responses);
    return result;
  }

  #namesOf(typeUrl: string): string[] {
    const interest = this.interests.get(typeUrl);
    return !interest || interest.t === "wildcard" ? [] : [...interest.names].sort();
  }

  #sendInterests(): void {
    for (const [typeUrl, interest] of this.changedInterests()) {
      this.interests.set(typeUrl, interest);
      this.dropUnwanted(typeUrl, interest);
      this.request(typeUrl, this.#namesOf(typeUrl));
    }
  }

  peekType(): string | undefined {
    return this.inbox[0]?.typeUrl;
  }

  #deliver(responses: readonly SotwResponse[]): void {
    this.inbox.push(...responses);
  }

  protected receive(response: SotwResponse): void {
    const { typeUrl } = response;
    const ackedBefore = this.ackedState();
    this.#nonces.set(typeUrl, response.nonce);
    const error = this.judge(typeUrl, response.resources);
    const before = this.held(typeUrl);
    const removed = isFullStateType(typeUrl)
      ? [...before.keys()].filter((n) => !response.resources.some((r) => r.name === n))
      : [];
    this.seen.push({
      typeUrl,
      resources: response.resources.map((r) => r.name),
      removed,
      nacked: error !== undefined,
      ackedBefore,
      response,
    });
    // Like gRPC (gRFC A46) and Envoy: a NACK naming resources rejects those only, the rest of
    // the response is applied; one naming none rejects the whole response.
    const rejected =
      error === undefined ? new Set<string>() : rejectedNames(error, names(response));
    if (rejected === undefined) {
      this.request(typeUrl, this.#namesOf(typeUrl), error);
      return;
    }
    const next = new Map(isFullStateType(typeUrl) ? [] : before);
    for (const r of response.resources) {
      const kept = rejected.has(r.name) ? before.get(r.name) : r;
      if (kept) next.set(r.name, kept);
    }
    this.holds.set(typeUrl, next);
    // Like Envoy: subscriptions the update calls for go out before its ACK.
    this.#sendInterests();
    if (error !== undefined) {
      this.request(typeUrl, this.#namesOf(typeUrl), error);
      return;
    }
    this.#versions.set(typeUrl, response.versionInfo);
    this.request(typeUrl, this.#namesOf(typeUrl));
  }
}

/** A client on a Delta stream (ADS unless it only ever requests one type). */
export class DeltaSimClient extends SimulatedClient<DeltaResponse> {
  readonly session: DeltaSession;

  constructor(style: ClientStyle, options: SessionOptions = {}) {
    super(style);
    this.session = new DeltaSession(options);
  }

  connect(snapshot: ResourceSnapshot | undefined): this {
    if (snapshot) this.inbox.push(...this.session.onSnapshot(snapshot));
    this.#sendInterests();
    return this;
  }

  publish(snapshot: ResourceSnapshot): void {
    this.inbox.push(...this.session.onSnapshot(snapshot));
  }

  request(
    typeUrl: string,
    change: { subscribe?: string[]; unsubscribe?: string[]; nonce?: string; errorDetail?: string },
  ) {
    const result = this.session.onRequest({
      typeUrl,
      subscribe: change.subscribe ?? [],
      unsubscribe: change.unsubscribe ?? [],
      initialResourceVersions: {},
      responseNonce: change.nonce ?? "",
      errorDetail: change.errorDetail,
    });
    this.inbox.push(...result.responses);
    return result;
  }

  #sendInterests(): void {
    for (const [typeUrl, interest] of this.changedInterests()) {
      const before = this.interests.get(typeUrl);
      this.interests.set(typeUrl, interest);
      this.dropUnwanted(typeUrl, interest);
      const old = before?.t === "names" ? before.names : new Set<string>();
      const now = interest.t === "names" ? interest.names : new Set<string>();
      this.request(typeUrl, {
        // A wildcard is the legacy one: a first request that subscribes nothing.
        subscribe: [...now].filter((n) => !old.has(n)).sort(),
        unsubscribe: [...old].filter((n) => !now.has(n)).sort(),
      });
    }
  }

  peekType(): string | undefined {
    return this.inbox[0]?.typeUrl;
  }

  protected receive(response: DeltaResponse): void {
    const { typeUrl } = response;
    const ackedBefore = this.ackedState();
    const error = this.judge(typeUrl, response.resources);
    this.seen.push({
      typeUrl,
      resources: response.resources.map((r) => r.name),
      removed: [...response.removed],
      nacked: error !== undefined,
      ackedBefore,
      response,
    });
    const rejected =
      error === undefined ? new Set<string>() : rejectedNames(error, names(response));
    if (rejected === undefined) {
      this.request(typeUrl, { nonce: response.nonce, errorDetail: error ?? "" });
      return;
    }
    const next = new Map(this.held(typeUrl));
    for (const r of response.resources) if (!rejected.has(r.name)) next.set(r.name, r);
    for (const name of response.removed) next.delete(name);
    this.holds.set(typeUrl, next);
    this.#sendInterests();
    if (error !== undefined) {
      this.request(typeUrl, { nonce: response.nonce, errorDetail: error });
      return;
    }
    this.request(typeUrl, { nonce: response.nonce });
  }
}

/** What a simulated client holds, by type. */
export interface HeldByClient {
  held(typeUrl: string): ReadonlyMap<string, XdsResource>;
}

/**
 * References the client cannot follow: a route to a cluster it lacks is lost traffic at once
 * (routes are not warmed); a listener without its route configuration or a cluster without its
 * assignment is still warming. `routesOnly` checks the first kind alone.
 */
export function danglingOnClient(client: HeldByClient, routesOnly = false): string[] {
  const problems: string[] = [];
  for (const typeUrl of TYPE_ORDER) {
    const next = referencedType(typeUrl);
    if (!next || (routesOnly && typeUrl !== TypeUrl.RouteConfiguration)) continue;
    for (const resource of client.held(typeUrl).values()) {
      for (const name of resource.references) {
        if (!client.held(next).has(name)) {
          problems.push(`${SHORT[typeUrl]} ${resource.name} → ${SHORT[next]} ${name}`);
        }
      }
    }
  }
  return problems;
}

/** `count` endpoints on 10.2.x.y:`port`. */
export function manyEndpoints(count: number, port: number) {
  return Array.from({ length: count }, (_, i) => endpointSpec(`10.2.${i >> 8}.${i & 255}`, port));
}

/**
 * 40 clusters svc-00 … svc-39 (and `extra`) of 100 endpoints each (~2.5 KiB of assignment each,
 * ~100 KiB in all: several responses at the smallest limit), route configuration `routes` → `to`,
 * listener `edge` → `routes`: a configuration whose EDS is split (response-split.ts).
 */
export function wideFleet(port = 8080, to = "svc-00", extra: readonly string[] = []): ConfigSpec {
  const names = Array.from({ length: 40 }, (_, i) => `svc-${String(i).padStart(2, "0")}`);
  return configSpec({
    clusters: [...names, ...extra].map((name) => clusterSpec(name, manyEndpoints(100, port))),
    routeConfigurations: [routeConfigurationSpec("routes", to)],
    listeners: [apiListenerSpec("edge", "routes")],
  });
}
