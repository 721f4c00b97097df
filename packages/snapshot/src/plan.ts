/**
 * The make-before-break plan: the ordered steps by which one node moves from the resources it
 * holds to a new snapshot without dropping traffic, and the cursor its stream uses to follow them.
 *
 * Why (shared/spec/xds-protocol.en.txt, "Eventual consistency considerations"; shared/spec/README.md,
 * "Ordering: make before break"): routes are not warmed, so a route must never reach a node before
 * the cluster it points at is in place, and clusters must not go away while a route still uses them.
 * A route moving from cluster X to Y therefore takes "a CDS/EDS update with both X and Y, then the
 * RDS update repointing from X to Y and then a CDS/EDS update dropping X". In general:
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
 *             (README, "Warming")
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
 *             certificate while it is still in use (the make-before-break rule of
 *             shared/spec/xds-protocol.en.txt, "Eventual consistency considerations", applied to
 *             the secrets clusters and listeners depend on as to the clusters routes depend on)
 *
 * Each step waits for the node's ACK before the next goes. The ACK, not the arrival, is what counts:
 * a NACKed CDS step means Y is not there, so the routes to Y must not follow; a NACKed RDS step
 * means the routes still point at X, so X must stay. Waiting for the CDS (LDS) ACK also gives an
 * Envoy time to subscribe to the assignments (route configurations) the new clusters (listeners)
 * need, since Envoy sends those subscriptions before the ACK.
 *
 * Listener warming and RDS: a listener with RDS is warm only once its route configuration
 * arrives, so a new or changed listener is followed by its route configuration even when that did
 * not change, as a new or changed cluster is by its assignment (shared/spec/README.md, "Warming":
 * "A new CDS/LDS update must therefore be followed by the EDS/RDS it depends on, even when those
 * did not change"). The newest edition's "Envoy-specific implementation notes" say Envoy finishes
 * warming with the route configuration it already has and that a server "must send a
 * RouteConfiguration only if it has changed or was never sent": that is a remark about Envoy, for
 * which the resend is redundant but harmless (same version, ignored); other clients need it.
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
 */
import { type ResourceSnapshot, TypeUrl, type XdsResource } from "./resource-snapshot.js";
import { splitVhdsName } from "./vhds.js";

/**
 * The resources a node holds, by type: a ResourceSnapshot, or the view of a PlanCursor (what the
 * node has ACKed). The maps are owned by the view and must not be altered.
 */
export interface HeldResources {
  /** The resources of one type the node holds, by name; empty when it holds none. */
  resources(typeUrl: string): ReadonlyMap<string, XdsResource>;
}

/**
 * What must happen before the step after this one may go: the node's ACK of the response that
 * carried this step (a NACK stops the plan, see PlanCursor).
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

/** `before` with `after` laid over it: what a make step holds while the old ones stay. */
function union(
  before: ReadonlyMap<string, XdsResource>,
  after: ReadonlyMap<string, XdsResource>,
): ReadonlyMap<string, XdsResource> {
  return new Map([...before, ...after].sort(([a], [b]) => byName(a, b)));
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
export function planUpdate(
  previous: HeldResources | undefined,
  next: ResourceSnapshot,
): UpdatePlan {
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
  // unchanged (shared/spec/README.md, "Warming").
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
  // when unchanged (shared/spec/README.md, "Warming").
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

  // VHDS after RDS (shared/spec/xds-protocol-v2.rst, "VHDS updates ... must arrive after RDS
  // updates"), and before clusters go: a virtual host routes to clusters as a route configuration
  // does. A route configuration sent again resets the node's virtual hosts of it ("Updates to the
  // route configuration entry to which a virtual host belongs will clear the virtual host table
  // and require all virtual hosts to be sent again"): they are in this step even when unchanged.
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
  | { readonly t: "nack"; readonly errorDetail: string };

/** Where a node's stream stands in its plan. */
export type CursorState =
  /** Nothing to send: no snapshot yet, or the node holds the latest one. */
  | { readonly t: "idle" }
  /** `step` may be sent now; then call `sent`, or `skipped` if nothing of it is for this node. */
  | { readonly t: "due"; readonly step: PlanStep }
  /** `step` went out with `nonce`; the plan goes on once the node ACKs it. */
  | { readonly t: "awaiting"; readonly step: PlanStep; readonly nonce: string }
  /**
   * The node NACKed `step`: the plan stops there and the node keeps what it held (still
   * consistent: nothing after the rejected step went out). A newer snapshot makes a new plan.
   */
  | { readonly t: "rejected"; readonly step: PlanStep; readonly errorDetail: string };

const IDLE: CursorState = { t: "idle" };

/**
 * Follows plans for one node on one stream, step by step as ACKs arrive, and keeps what the node
 * holds as far as its ACKs show. No I/O: the stream feeds it snapshots and answers and sends what
 * it says is due (see the header of this file). Methods that need a step `due` throw otherwise:
 * that is a bug in the caller.
 */
export class PlanCursor {
  /** Per type, the `held` of the last step of that type the node ACKed (or that was skipped). */
  readonly #held = new Map<string, ReadonlyMap<string, XdsResource>>();
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
   * What the node holds now, as far as its ACKs show: answer subscription changes from this. A
   * fixed view: it does not follow later steps.
   */
  get held(): HeldResources {
    const held = new Map(this.#held);
    return { resources: (typeUrl) => held.get(typeUrl) ?? EMPTY };
  }

  /**
   * A new snapshot for the node. Replaces the current plan with one from what the node holds, now,
   * or once the step in flight is answered.
   */
  onSnapshot(next: ResourceSnapshot): void {
    this.#target = next;
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
    if (answer.t === "ack") {
      this.#advance(state.step);
    } else {
      this.#state = { t: "rejected", step: state.step, errorDetail: answer.errorDetail };
    }
    const pending = this.#pending;
    if (pending) {
      this.#pending = undefined;
      this.#start(pending);
    }
  }

  #start(next: ResourceSnapshot): void {
    this.#plan = planUpdate(this.held, next);
    this.#index = 0;
    this.#show();
  }

  #advance(step: PlanStep): void {
    this.#held.set(step.typeUrl, step.held);
    this.#index += 1;
    this.#show();
  }

  #show(): void {
    const step = this.#plan[this.#index];
    this.#state = step ? { t: "due", step } : IDLE;
  }
}
