/**
 * The make-before-break plan: the ordered steps by which one node moves from the resources it
 * holds to a new snapshot without dropping traffic, and the cursor its stream uses to follow them.
 *
 * Why (the xDS protocol, https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol,
 * "Eventual consistency considerations": its make-before-break order): routes are not warmed, so
 * a route must never reach a node before the cluster it points at is in place, and clusters must
 * not go away while a route still uses them. A route moving from cluster X to Y therefore takes
 * "a CDS/EDS update with both X and Y, then the RDS update repointing from X to Y and then a
 * CDS/EDS update dropping X". In general:
 *
 *   make   SDS  every new or changed secret, the old ones kept: a cluster or listener whose TLS
 *             context names an SDS secret is not ready until the secret arrives (Envoy warms it
 *             on its SDS init target, as a cluster on its assignment), and a rotation (a new
 *             certificate under the same name) must reach the node before anything else moves.
 *             A rotation changes only the Secret: the clusters and listeners that name it are
 *             unchanged and not resent
 *          CDS  every new or changed cluster, the old ones kept (CDS is full-state in SotW, so the
 *             response holds old and new together)
 *          EDS  every new or changed assignment, and the assignment of every new or changed cluster
 *             even when unchanged: a cluster stays warming until its assignment arrives
 *             (xDS protocol, "Resource warming")
 *          LDS  the listeners of the new snapshot (a deleted listener goes here: nothing refers to
 *             listeners)
 *          RDS  every new or changed route configuration; those the LDS step stopped referencing
 *             are removed (Delta `removed_resources`; SotW has nothing to send, the node drops
 *             its RDS subscription itself)
 *          VHDS every new or changed on-demand virtual host, and every one of a route
 *             configuration the RDS step sent (an RDS update resets them), those gone removed
 *   break  CDS  drop the clusters nothing refers to any more, after the RDS step that stopped
 *             referencing them was ACKed
 *          EDS  drop their assignments, after the clusters that used them
 *   then   RTDS every new or changed runtime layer, those gone removed. Runtime layers warm
 *             nothing and depend on nothing, and the spec orders them nowhere: last, so a runtime
 *             value (a fault percentage, a feature flag) changes once the routing it tunes is in
 *             place (resource-snapshot.ts, TYPE_ORDER)
 *   break  SDS  drop the secrets nothing refers to any more, last: after the LDS and CDS steps
 *             that stopped naming them were ACKed, so no listener or cluster loses its
 *             certificate while it is still in use (the make-before-break rule of the xDS
 *             protocol's "Eventual consistency considerations", applied to the secrets
 *             clusters and listeners depend on as to the clusters routes depend on)
 *
 * Each step waits for the node's answer before the next goes. The ACK, not the arrival, is what
 * counts: a NACKed CDS step means Y is not there, so the routes to Y must not follow; a NACKed RDS
 * step means the routes still point at X, so X must stay. But a NACK rejects only the resources it
 * names (gRFC A46; Envoy likewise keeps the valid clusters and listeners of a response): the node
 * holds the rest of the step, and the plan goes on without the rejected versions and what needs
 * them (containRejections), so one bad resource never freezes a node's other changes, in this
 * snapshot or later ones. A rejected version is not offered again until a snapshot changes it (a
 * client rejects the same content the same way); a new stream tries it again. Waiting for the CDS
 * (LDS) ACK also gives an Envoy time to subscribe to the assignments (route configurations) the
 * new clusters (listeners) need, since Envoy sends those subscriptions before the ACK.
 *
 * Listener warming and RDS: a listener with RDS is warm only once its route configuration
 * arrives, so a new or changed listener is followed by its route configuration even when that did
 * not change, as a new or changed cluster is by its assignment (our reading of xDS protocol,
 * "Resource warming": a new CDS/LDS update must be followed by the EDS/RDS it depends on, even
 * when those did not change). The Envoy-specific implementation notes of that section, in the
 * page's latest edition, say Envoy finishes warming with the route configuration it already has
 * and that a server should send a RouteConfiguration only if it has changed or was never sent:
 * that is a remark about Envoy, for which the resend is redundant but harmless (same version,
 * ignored); other clients need it.
 *
 * How a stream drives it: one PlanCursor per node and stream. Feed it every snapshot the node
 * should converge to (`onSnapshot`). While its state is `due`, send the step narrowed to what the
 * node subscribes to — SotW: for CDS/LDS the subscribed part of `held`, for EDS/RDS the subscribed
 * part of `changed`; Delta: the subscribed part of `changed` and of `removed` — and call `sent`
 * with the response's nonce, or `skipped` when that leaves nothing to send. Pass the node's
 * ACK/NACK of that nonce to `answered`. Answer subscription changes between steps from `held`
 * (what the plan has brought the node to so far), never from the target snapshot: a route
 * configuration requested early must not overtake the clusters it points at. A snapshot that
 * arrives mid-plan does not interrupt a step in flight: once it is answered, a new plan is made
 * from what the node then holds (which may be a union of old and new clusters), so stale clusters
 * are still dropped only after the routes that used them moved.
 *
 * Long because planUpdate, containRejections and PlanCursor are the one algorithm described
 * above: the cursor takes the node's rejections out of its target, plans towards it (one plan
 * shared by the nodes holding the same maps) and walks the steps, all on the same held maps.
 */
import {
  type ResourceSnapshot,
  referencedType,
  TYPE_ORDER,
  TypeUrl,
  type XdsResource,
} from "./resource-snapshot.js";
import { splitVhdsName } from "./vhds.js";
import { storedNameOf } from "./xdstp.js";

/**
 * The resources a node holds, by type: a ResourceSnapshot, or the view of a PlanCursor (what the
 * node has ACKed). The maps are owned by the view and must not be altered.
 */
export interface HeldResources {
  /** The resources of one type the node holds, by name; empty when it holds none. */
  resources(typeUrl: string): ReadonlyMap<string, XdsResource>;
}

/**
 * What must happen before the step after this one may go: the node's answer to the response that
 * carried this step (a NACK holds back what it rejected and what needs it, see PlanCursor).
 */
export type StepAwaits = { readonly t: "ack" };

interface StepFields {
  /**
   * Every resource of `typeUrl` the node should hold once the step is ACKed, by name, sorted by
   * name: what a SotW CDS/LDS response carries (full state). Shared, must not be altered.
   */
  readonly held: ReadonlyMap<string, XdsResource>;
  /**
   * Names dropped from the node in this step, sorted: what a Delta response carries in
   * `removed_resources`.
   */
  readonly removed: readonly string[];
  readonly awaits: StepAwaits;
}

/**
 * A step that brings in new or changed resources. The CDS and EDS make steps keep what they
 * replace (held = old ∪ new); the LDS and RDS make steps also remove what nothing refers to any more
 * (a listener never has a referrer; a route configuration's listener changed in the LDS step).
 */
export interface MakeStep extends StepFields {
  readonly t: "make";
  readonly typeUrl: TypeUrl;
  /**
   * Resources sent in this step, sorted by name: new, changed, or resent for warming. What a
   * Delta response carries in `resources` and a SotW EDS/RDS response carries.
   */
  readonly changed: readonly XdsResource[];
}

/** A step that only drops clusters, assignments or secrets nothing refers to any more. */
export interface BreakStep extends StepFields {
  readonly t: "break";
  readonly typeUrl:
    | typeof TypeUrl.Cluster
    | typeof TypeUrl.ClusterLoadAssignment
    | typeof TypeUrl.Secret;
  readonly changed: readonly [];
}

export type PlanStep = MakeStep | BreakStep;

/** The steps in the order they must be ACKed; empty when the node already holds the snapshot. */
export type UpdatePlan = readonly PlanStep[];

const EMPTY: ReadonlyMap<string, XdsResource> = new Map();
const NOTHING_HELD_BACK: readonly HeldBack[] = [];
const HOLDS_NOTHING: HeldResources = { resources: () => EMPTY };
const AWAIT_ACK: StepAwaits = { t: "ack" };

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Resources of `after` the node lacks at that version, or that must be resent anyway. */
function changedResources(
  before: ReadonlyMap<string, XdsResource>,
  after: ReadonlyMap<string, XdsResource>,
  resend: ReadonlySet<string> = new Set(),
): XdsResource[] {
  return [...after.values()]
    .filter((r) => resend.has(r.name) || before.get(r.name)?.version !== r.version)
    .sort((a, b) => byName(a.name, b.name));
}

function removedNames(
  before: ReadonlyMap<string, XdsResource>,
  after: ReadonlyMap<string, XdsResource>,
): string[] {
  return [...before.keys()].filter((name) => !after.has(name)).sort(byName);
}

/**
 * `before` with `after` laid over it: what a make step holds while the old ones stay. When `after`
 * already has every name of `before` (nothing is removed: the common case), that is `after`
 * itself, not a copy: nodes that hold the same resources then hold the same map, which is what
 * lets their cursors share one plan (sharedPlan).
 */
function union(
  before: ReadonlyMap<string, XdsResource>,
  after: ReadonlyMap<string, XdsResource>,
): ReadonlyMap<string, XdsResource> {
  for (const name of before.keys()) {
    if (!after.has(name)) return new Map([...before, ...after].sort(([a], [b]) => byName(a, b)));
  }
  return after;
}

function references(resources: Iterable<XdsResource>): Set<string> {
  return new Set([...resources].flatMap((r) => r.references));
}

/**
 * The make-before-break plan from what the node holds (`previous`; undefined: nothing, e.g. a new
 * stream) to `next`. Pure: the result depends only on the arguments, shares their resources and
 * must not be altered.
 *
 * `next` must be consistent (`danglingReferences()` empty), as every published snapshot is: the
 * ordering guarantees rest on `next`'s routes naming only clusters `next` has.
 */
export function planUpdate(previous: HeldResources | undefined, next: HeldResources): UpdatePlan {
  const before = previous ?? HOLDS_NOTHING;
  const old = (typeUrl: TypeUrl) => before.resources(typeUrl);
  const steps: PlanStep[] = [];
  const make = (
    typeUrl: TypeUrl,
    held: ReadonlyMap<string, XdsResource>,
    changed: readonly XdsResource[],
    removed: readonly string[],
  ) => {
    if (changed.length > 0 || removed.length > 0) {
      steps.push({ t: "make", typeUrl, held, changed, removed, awaits: AWAIT_ACK });
    }
  };

  make(
    TypeUrl.Secret,
    union(old(TypeUrl.Secret), next.resources(TypeUrl.Secret)),
    changedResources(old(TypeUrl.Secret), next.resources(TypeUrl.Secret)),
    [],
  );

  const clusters = changedResources(old(TypeUrl.Cluster), next.resources(TypeUrl.Cluster));
  make(TypeUrl.Cluster, union(old(TypeUrl.Cluster), next.resources(TypeUrl.Cluster)), clusters, []);

  // A new or changed cluster warms until its assignment arrives, so that is sent even when
  // unchanged (xDS protocol, "Resource warming").
  make(
    TypeUrl.ClusterLoadAssignment,
    union(old(TypeUrl.ClusterLoadAssignment), next.resources(TypeUrl.ClusterLoadAssignment)),
    changedResources(
      old(TypeUrl.ClusterLoadAssignment),
      next.resources(TypeUrl.ClusterLoadAssignment),
      references(clusters),
    ),
    [],
  );

  const listeners = changedResources(old(TypeUrl.Listener), next.resources(TypeUrl.Listener));
  make(
    TypeUrl.Listener,
    next.resources(TypeUrl.Listener),
    listeners,
    removedNames(old(TypeUrl.Listener), next.resources(TypeUrl.Listener)),
  );

  // A new or changed listener warms until its route configuration arrives, so that is sent even
  // when unchanged (xDS protocol, "Resource warming").
  make(
    TypeUrl.RouteConfiguration,
    next.resources(TypeUrl.RouteConfiguration),
    changedResources(
      old(TypeUrl.RouteConfiguration),
      next.resources(TypeUrl.RouteConfiguration),
      references(listeners),
    ),
    removedNames(old(TypeUrl.RouteConfiguration), next.resources(TypeUrl.RouteConfiguration)),
  );

  // VHDS after RDS (xDS protocol, "Eventual consistency considerations": "VHDS updates ... must
  // arrive after RDS updates"), and before clusters go: a virtual host routes to clusters as a
  // route configuration does. A route configuration sent again resets the node's virtual hosts of
  // it (Envoy's VHDS page: "Updates to the route configuration entry to which a virtual host
  // belongs will clear the virtual host table and require all virtual hosts to be sent again"):
  // they are in this step even when unchanged.
  const routeConfigurations = new Set(
    changedResources(
      old(TypeUrl.RouteConfiguration),
      next.resources(TypeUrl.RouteConfiguration),
      references(listeners),
    ).map((r) => r.name),
  );
  const vhosts = next.resources(TypeUrl.VirtualHost);
  make(
    TypeUrl.VirtualHost,
    vhosts,
    changedResources(
      old(TypeUrl.VirtualHost),
      vhosts,
      new Set(
        [...vhosts.keys()].filter((name) =>
          routeConfigurations.has(splitVhdsName(name)?.routeConfiguration ?? ""),
        ),
      ),
    ),
    removedNames(old(TypeUrl.VirtualHost), vhosts),
  );

  // Only now, behind the ACKed RDS (and LDS) steps that stopped referencing them.
  for (const typeUrl of [TypeUrl.Cluster, TypeUrl.ClusterLoadAssignment] as const) {
    const removed = removedNames(old(typeUrl), next.resources(typeUrl));
    if (removed.length > 0) {
      steps.push({
        t: "break",
        typeUrl,
        held: next.resources(typeUrl),
        changed: [],
        removed,
        awaits: AWAIT_ACK,
      });
    }
  }

  make(
    TypeUrl.Runtime,
    next.resources(TypeUrl.Runtime),
    changedResources(old(TypeUrl.Runtime), next.resources(TypeUrl.Runtime)),
    removedNames(old(TypeUrl.Runtime), next.resources(TypeUrl.Runtime)),
  );

  // Last: behind every ACKed step that stopped naming them.
  const removedSecrets = removedNames(old(TypeUrl.Secret), next.resources(TypeUrl.Secret));
  if (removedSecrets.length > 0) {
    steps.push({
      t: "break",
      typeUrl: TypeUrl.Secret,
      held: next.resources(TypeUrl.Secret),
      changed: [],
      removed: removedSecrets,
      awaits: AWAIT_ACK,
    });
  }
  return steps;
}

/**
 * The node's answer to the response that carried a step. Structurally a subset of the stream's
 * request verdicts, so an `ack`/`nack` verdict can be passed as it is.
 */
export type StepAnswer =
  | { readonly t: "ack" }
  | {
      readonly t: "nack";
      readonly errorDetail: string;
      /**
       * The resources of the response the client named as rejected (nack-attribution.ts); absent
       * when it named none, and every resource the step changed is taken as rejected.
       */
      readonly rejected?: ReadonlySet<string> | undefined;
    };

/** Why a resource of the snapshot a node converges to is not sent to it. */
export type HoldReason =
  /** The node NACKed this version of it. */
  | { readonly t: "rejected"; readonly errorDetail: string }
  /** It refers to `name` of `typeUrl`, which the node lacks because of a rejection. */
  | { readonly t: "needs"; readonly typeUrl: TypeUrl; readonly name: string };

/** A resource held back from a node: the node keeps its earlier version (or has none). */
export interface HeldBack {
  readonly typeUrl: TypeUrl;
  readonly name: string;
  /** The version of the snapshot the node does not get. */
  readonly version: string;
  readonly reason: HoldReason;
}

/** A version of a resource a node rejected, and the client's words. */
export interface Rejection {
  readonly version: string;
  readonly errorDetail: string;
}

/** The types whose resources refer to others (`XdsResource.references`), referrers first. */
const REFERRERS = [
  TypeUrl.Listener,
  TypeUrl.RouteConfiguration,
  TypeUrl.VirtualHost,
  TypeUrl.Cluster,
] as const;

function sortedByName(map: Map<string, XdsResource>): Map<string, XdsResource> {
  return new Map([...map].sort(([a], [b]) => byName(a, b)));
}

/**
 * The part of `next` a node can take after rejecting some resources: each rejected version is
 * replaced by what the node holds (its earlier version, or nothing), and so is, in turn, whatever
 * would refer to something the node then lacks: a route configuration routing to a rejected new
 * cluster keeps routing where it did, a listener whose new route configuration was held back keeps
 * its earlier self. What the node's kept resources still refer to is kept too, though `next`
 * dropped it: a cluster a rejected route configuration still routes to is not removed. The result
 * is consistent whenever `held` is, and everything else of `next` goes out as planned (the xDS
 * protocol page, "ACK and NACK semantics": a client keeps using its last valid configuration of a
 * rejected resource; gRFC A46: it accepts the other resources of the response).
 *
 * `rejected` holds, per type, the rejected version of each name; a rejection of a version `next`
 * no longer has (fixed, rolled back, deleted) does not apply.
 */
export function containRejections(
  next: HeldResources,
  held: HeldResources,
  rejected: ReadonlyMap<string, ReadonlyMap<string, Rejection>>,
): { readonly target: HeldResources; readonly heldBack: readonly HeldBack[] } {
  const maps = new Map<string, Map<string, XdsResource>>();
  const of = (typeUrl: string): Map<string, XdsResource> => {
    let map = maps.get(typeUrl);
    if (map === undefined) {
      map = new Map(next.resources(typeUrl));
      maps.set(typeUrl, map);
    }
    return map;
  };
  const heldBack: HeldBack[] = [];
  const heldBackKeys = new Set<string>();
  const holdBack = (typeUrl: TypeUrl, name: string, reason: HoldReason) => {
    const map = of(typeUrl);
    const current = map.get(name);
    const earlier = held.resources(typeUrl).get(name);
    // An earlier version that itself cannot stay (its references are gone too) goes altogether.
    if (earlier !== undefined && current !== earlier) map.set(name, earlier);
    else map.delete(name);
    const wanted = next.resources(typeUrl).get(name);
    const key = `${typeUrl} ${name}`;
    if (wanted !== undefined && !heldBackKeys.has(key)) {
      heldBackKeys.add(key);
      heldBack.push({ typeUrl, name, version: wanted.version, reason });
    }
  };
  for (const [typeUrl, byName] of rejected) {
    for (const [name, rejection] of byName) {
      if (next.resources(typeUrl).get(name)?.version === rejection.version) {
        holdBack(typeUrl as TypeUrl, name, { t: "rejected", errorDetail: rejection.errorDetail });
      }
    }
  }
  if (heldBack.length === 0) return { target: next, heldBack };
  for (let changed = true; changed; ) {
    changed = false;
    for (const typeUrl of REFERRERS) {
      const referenced = referencedType(typeUrl);
      if (referenced === undefined) continue;
      for (const resource of [...of(typeUrl).values()]) {
        const missing = resource.references.find((name) => !of(referenced).has(name));
        if (missing === undefined) continue;
        const kept = held.resources(referenced).get(missing);
        if (kept !== undefined) of(referenced).set(missing, kept);
        else holdBack(typeUrl, resource.name, { t: "needs", typeUrl: referenced, name: missing });
        changed = true;
      }
    }
  }
  // An assignment (route configuration) only the held-back clusters (listeners) loaded is of no
  // use to the node without them: it is not sent either.
  for (const [referrer, referenced] of [
    [TypeUrl.Cluster, TypeUrl.ClusterLoadAssignment],
    [TypeUrl.Listener, TypeUrl.RouteConfiguration],
  ] as const) {
    const used = references(of(referrer).values());
    const wanted = references(next.resources(referrer).values());
    for (const name of [...of(referenced).keys()]) {
      if (!used.has(name) && wanted.has(name) && !held.resources(referenced).has(name))
        of(referenced).delete(name);
    }
  }
  const target = new Map([...maps].map(([typeUrl, map]) => [typeUrl, sortedByName(map)]));
  return {
    target: { resources: (typeUrl) => target.get(typeUrl) ?? next.resources(typeUrl) },
    heldBack,
  };
}

/** Numbers for held maps, so that plans can be looked up by what a node holds (sharedPlan). */
const mapIds = new WeakMap<ReadonlyMap<string, XdsResource>, number>();
let lastMapId = 0;

function mapId(map: ReadonlyMap<string, XdsResource>): number {
  let id = mapIds.get(map);
  if (id === undefined) {
    lastMapId += 1;
    id = lastMapId;
    mapIds.set(map, id);
  }
  return id;
}

/** Plans made towards each snapshot, by what the node held (sharedPlan); dropped with it. */
const plansTowards = new WeakMap<ResourceSnapshot, Map<string, UpdatePlan>>();
/** Distinct starting points kept per snapshot: beyond them, plans are made and not kept. */
const MAX_SHARED_PLANS = 256;

/**
 * planUpdate(held, next), made once for every node that holds the same maps. A publish plans the
 * same move for a whole fleet: the nodes of one group hold the maps of the same earlier snapshot
 * (plan steps share the snapshots' maps, `union` above), so a thousand cursors make one plan, and
 * their steps, shared, keep the maps shared for the next publish. Maps are immutable, so the same
 * map is the same content; equal content in different maps only makes another entry.
 */
function sharedPlan(
  held: ReadonlyMap<string, ReadonlyMap<string, XdsResource>>,
  next: ResourceSnapshot,
): UpdatePlan {
  // Map numbers in TYPE_ORDER, not type URLs sorted: the key is made for every node on every
  // publish. (A snapshot holds no other type, ResourceSnapshot; any other is keyed by name.)
  let key = "";
  let keyed = 0;
  for (const typeUrl of TYPE_ORDER) {
    const map = held.get(typeUrl);
    if (map !== undefined) keyed += 1;
    key += map === undefined || map.size === 0 ? "-," : `${mapId(map)},`;
  }
  if (keyed < held.size) {
    const others = [...held].filter(([typeUrl]) => !TYPE_ORDER.includes(typeUrl as TypeUrl));
    for (const [typeUrl, map] of others.sort(([a], [b]) => (a < b ? -1 : 1)))
      if (map.size > 0) key += `${typeUrl}=${mapId(map)},`;
  }
  let plans = plansTowards.get(next);
  if (plans === undefined) {
    plans = new Map();
    plansTowards.set(next, plans);
  }
  let plan = plans.get(key);
  if (plan === undefined) {
    plan = planUpdate({ resources: (typeUrl) => held.get(typeUrl) ?? EMPTY }, next);
    if (plans.size < MAX_SHARED_PLANS) plans.set(key, plan);
  }
  return plan;
}

/** Where a node's stream stands in its plan. */
export type CursorState =
  /** Nothing to send: no snapshot yet, or the node holds the latest one. */
  | { readonly t: "idle" }
  /** `step` may be sent now; then call `sent`, or `skipped` if nothing of it is for this node. */
  | { readonly t: "due"; readonly step: PlanStep }
  /** `step` went out with `nonce`; the plan goes on once the node answers it. */
  | { readonly t: "awaiting"; readonly step: PlanStep; readonly nonce: string };

const IDLE: CursorState = { t: "idle" };

/**
 * Follows plans for one node on one stream, step by step as ACKs arrive, and keeps what the node
 * holds as far as its answers show. No I/O: the stream feeds it snapshots and answers and sends
 * what it says is due (see the header of this file). Methods that need a step `due` throw
 * otherwise: that is a bug in the caller.
 *
 * A NACK stops nothing but what depends on it. The node keeps the resources of the step it
 * accepted and its earlier version of those it rejected; the rejected versions are remembered
 * (until a snapshot changes them) and the plan goes on towards the target without them and
 * without what needs them (containRejections), in this snapshot and the next ones. `heldBack`
 * says what the node is not sent, and why.
 */
export class PlanCursor {
  /** Per type, the `held` of the last step of that type the node answered (or that was skipped). */
  readonly #held = new Map<string, ReadonlyMap<string, XdsResource>>();
  /**
   * `held` as last handed out, until `#held` changes: a stream asks for it on every event, and
   * it changes once per step answered.
   */
  #heldView: HeldResources | undefined;
  /** Per type, the versions the node rejected, by name. */
  readonly #rejected = new Map<string, Map<string, Rejection>>();
  #heldBack: readonly HeldBack[] = [];
  #plan: UpdatePlan = [];
  #index = 0;
  #state: CursorState = IDLE;
  #target: ResourceSnapshot | undefined;
  /** A snapshot that arrived while a step was in flight: planned for once that is answered. */
  #pending: ResourceSnapshot | undefined;

  get state(): CursorState {
    return this.#state;
  }

  /** The latest snapshot the node should converge to. */
  get target(): ResourceSnapshot | undefined {
    return this.#target;
  }

  /** The steps not yet ACKed, the current one first. */
  get remaining(): UpdatePlan {
    return this.#state.t === "idle" ? [] : this.#plan.slice(this.#index);
  }

  /**
   * What the node holds now, as far as its answers show: answer subscription changes from this.
   * A fixed view: it does not follow later steps.
   */
  get held(): HeldResources {
    if (this.#heldView === undefined) {
      const held = new Map(this.#held);
      this.#heldView = { resources: (typeUrl) => held.get(typeUrl) ?? EMPTY };
    }
    return this.#heldView;
  }

  /** What the node holds of a type is `map` from now on; undefined: nothing. */
  #hold(typeUrl: string, map: ReadonlyMap<string, XdsResource> | undefined): void {
    if (map !== undefined) {
      // A new plan holds every type it leaves alone again: mostly the maps held already.
      if (this.#held.get(typeUrl) === map) return;
      this.#held.set(typeUrl, map);
    } else if (!this.#held.delete(typeUrl)) return;
    this.#heldView = undefined;
  }

  /** What of the target the node is not sent because of its NACKs, and why. */
  get heldBack(): readonly HeldBack[] {
    return this.#heldBack;
  }

  /**
   * A new snapshot for the node. Replaces the current plan with one from what the node holds, now,
   * or once the step in flight is answered. Rejections of versions it no longer has are dropped.
   */
  onSnapshot(next: ResourceSnapshot): void {
    this.#target = next;
    for (const [typeUrl, byName] of this.#rejected) {
      for (const [name, rejection] of byName) {
        if (next.get(typeUrl, name)?.version !== rejection.version) byName.delete(name);
      }
      if (byName.size === 0) this.#rejected.delete(typeUrl);
    }
    if (this.#state.t === "awaiting") {
      this.#pending = next;
      return;
    }
    this.#start(next);
  }

  /** The due step went out in the response with `nonce`. */
  sent(nonce: string): void {
    const state = this.#state;
    if (state.t !== "due") throw new Error(`PlanCursor.sent: no step is due (${state.t})`);
    this.#state = { t: "awaiting", step: state.step, nonce };
  }

  /**
   * The step in flight goes on in another response, with `nonce` (a response split in parts,
   * each answered before the next goes): the node's answer to that one is awaited instead, and
   * the caller gives the answers to all the parts as one (`answered`).
   */
  continued(nonce: string): void {
    const state = this.#state;
    if (state.t !== "awaiting")
      throw new Error(`PlanCursor.continued: no step is in flight (${state.t})`);
    this.#state = { t: "awaiting", step: state.step, nonce };
  }

  /** The due step held nothing for this node (not subscribed, or nothing SotW can send). */
  skipped(): void {
    const state = this.#state;
    if (state.t !== "due") throw new Error(`PlanCursor.skipped: no step is due (${state.t})`);
    this.#advance(state.step);
  }

  /**
   * The node answered the response with `nonce`. Ignored unless that response carried the step
   * in flight.
   */
  answered(nonce: string, answer: StepAnswer): void {
    const state = this.#state;
    if (state.t !== "awaiting" || state.nonce !== nonce) return;
    const pending = this.#pending;
    this.#pending = undefined;
    if (answer.t === "ack") {
      this.#advance(state.step);
      if (pending) this.#start(pending);
      return;
    }
    this.#reject(state.step, answer.errorDetail, answer.rejected);
    const target = pending ?? this.#target;
    if (target) this.#start(target);
  }

  /**
   * The node NACKed `step`, rejecting `names` (default: everything the step changed): it holds the
   * rest of the step, and its earlier version of each rejected resource.
   */
  #reject(step: PlanStep, errorDetail: string, names: ReadonlySet<string> | undefined): void {
    // An xdstp:// client names what it rejected as it was sent: by its xdstp:// name.
    const rejected =
      names === undefined
        ? new Set(step.changed.map((resource) => resource.name))
        : new Set([...names].map(storedNameOf));
    const before = this.#held.get(step.typeUrl) ?? EMPTY;
    const now = new Map(step.held);
    for (const name of rejected) {
      const earlier = before.get(name);
      if (earlier !== undefined) now.set(name, earlier);
      else now.delete(name);
    }
    this.#hold(step.typeUrl, sortedByName(now));
    let byName = this.#rejected.get(step.typeUrl);
    for (const resource of step.changed) {
      if (!rejected.has(resource.name) || before.get(resource.name) === resource) continue;
      if (byName === undefined) {
        byName = new Map();
        this.#rejected.set(step.typeUrl, byName);
      }
      byName.set(resource.name, { version: resource.version, errorDetail });
    }
  }

  #start(next: ResourceSnapshot): void {
    // Without rejections (a fleet's nodes, but for the odd one), nothing is contained.
    const { target, heldBack } =
      this.#rejected.size === 0
        ? { target: next, heldBack: NOTHING_HELD_BACK }
        : containRejections(next, this.held, this.#rejected);
    this.#heldBack = heldBack;
    if (target === next) {
      this.#plan = sharedPlan(this.#held, next);
      // A type the plan leaves alone is held at `next`'s versions already: the node holds `next`'s
      // own map of it from now on, so that nodes that came to the same resources by different
      // publishes hold the same maps, and share their next plan.
      const stepped = new Set<string>(this.#plan.map((step) => step.typeUrl));
      for (const typeUrl of TYPE_ORDER) {
        if (stepped.has(typeUrl)) continue;
        const map = next.resources(typeUrl);
        this.#hold(typeUrl, map.size > 0 ? map : undefined);
      }
    } else {
      this.#plan = planUpdate(this.held, target);
    }
    this.#index = 0;
    this.#show();
  }

  #advance(step: PlanStep): void {
    this.#hold(step.typeUrl, step.held);
    this.#index += 1;
    this.#show();
  }

  #show(): void {
    const step = this.#plan[this.#index];
    this.#state = step ? { t: "due", step } : IDLE;
  }
}
