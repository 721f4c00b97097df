/**
 * Subscription: the protocol state of one resource type on one stream, shared by SotW and Delta
 * (see the class). Long because that state is one machine whose steps each change several parts:
 * an ACK moves what the client holds, clears rejections of what it accepted and prunes names the
 * subscription no longer covers; a NACK splits a response into held and rejected.
 */
import {
  formatXdstp,
  globKeyOf,
  heldAfter,
  isGlob,
  isXdstp,
  NOTHING_HELD,
  parseXdstp,
  rejectedNames,
  type XdsResource,
} from "@switchyard/snapshot";

/**
 * The wildcard resource name (xDS protocol, "How the client specifies what resources to return").
 */
export const WILDCARD = "*";

/** The resources a response may be built from. Shared, must not be altered. */
export interface Offer {
  /**
   * The resources of the type the node may hold now, by name: a plan step's `held`, or what the
   * plan has brought the node to so far (PlanCursor.held). Responses come from here only.
   */
  readonly basis: ReadonlyMap<string, XdsResource>;
  /**
   * The resources of the type in the snapshot the node converges to: a subscribed name missing
   * from `basis` but found here is on its way (a later plan step), not missing.
   */
  readonly target: ReadonlyMap<string, XdsResource>;
  /**
   * The names in `basis` that glob collections of the subscription cover (xdstp-naming.ts): what
   * a subscription by name holds besides the names it lists.
   */
  readonly globMembers?: readonly string[];
}

/**
 * Resolves a subscription's xdstp:// names (xdstp-naming.ts XdstpNaming): the offer with what
 * they name added under those names.
 */
export interface NameResolver {
  extend(offer: Offer, typeUrl: string, names: Iterable<string>, globs: Iterable<string>): Offer;
}

/** The glob collection an xdstp:// name is a member of (canonical), or undefined. */
function globKeyOfName(name: string): string | undefined {
  if (!isXdstp(name)) return undefined;
  const parsed = parseXdstp(name);
  return parsed.ok ? globKeyOf(parsed.name) : undefined;
}

/** An xdstp:// glob collection name's canonical form, or undefined for any other name. */
function globKeyOfCollection(name: string): string | undefined {
  if (!isXdstp(name)) return undefined;
  const parsed = parseXdstp(name);
  return parsed.ok && isGlob(parsed.name) ? globKeyOf(parsed.name) : undefined;
}

/** An xdstp:// name without its context parameters (canonical), or undefined. */
function withoutParams(name: string): string | undefined {
  if (!isXdstp(name)) return undefined;
  const parsed = parseXdstp(name);
  if (!parsed.ok) return undefined;
  return formatXdstp({ ...parsed.name, params: [] });
}

/** What the client lacks compared with an Offer. Names are sorted; no name appears twice. */
export interface Difference {
  /** Covered resources the client does not hold at this version, or must be sent again. */
  readonly resources: readonly XdsResource[];
  /** Names the client holds that the offer no longer has, or the subscription no longer covers. */
  readonly removed: readonly string[];
  /** Names that must be answered but exist neither in the offer nor in the target. */
  readonly missing: readonly string[];
}

/** What a response changes in what the client holds, once the client ACKs it. */
export interface ResponseEffect {
  /**
   * True when the response is the whole state of the type (SotW LDS/CDS): the client then holds
   * exactly `sent`, and the response answers every name that had to be answered.
   */
  readonly replace: boolean;
  readonly sent: readonly XdsResource[];
  readonly removed: readonly string[];
}

/** Where the type stands in the request/response exchange on the stream. */
export type FlowState =
  /** No request for the type yet: nothing may be sent. */
  | { readonly t: "unstarted" }
  /** The client waits for the next response of the type. */
  | { readonly t: "open" }
  /** A response went out; nothing more goes for the type until the client answers it. */
  | {
      readonly t: "awaiting";
      readonly nonce: string;
      readonly versionInfo: string;
      readonly effect: ResponseEffect;
    };

const UNSTARTED: FlowState = { t: "unstarted" };
const OPEN: FlowState = { t: "open" };

/**
 * The protocol state of one resource type on one stream, shared by the SotW and Delta variants
 * (sotw-subscription.ts, delta-subscription.ts are the views that speak each variant): what the
 * client subscribes to, what it holds, what must be (re)sent, and the nonce of the response in
 * flight. Pure: no I/O, no clock.
 *
 * What the client holds (`holds`, name → version) moves only on an ACK (or on a Delta client's
 * `initial_resource_versions`): a NACKed response leaves it as it was, and what that response
 * tried to change is remembered as rejected, so the same versions are not offered again in a
 * loop (xDS protocol, "ACK/NACK and resource type instance version": a NACK is detected by
 * error_detail). A new snapshot clears the rejections (`forgetRejections`): it may make the
 * rejected resources acceptable. A NACK whose text names the resources it rejected (gRFC A46;
 * nack-attribution.ts in @switchyard/snapshot) rejects only those: the client holds the rest of the
 * response. One that names none rejects the whole response; a client that kept its valid part is at
 * worst sent those again, at the same version.
 */
export class Subscription {
  readonly typeUrl: string;
  /** Explicitly subscribed names (never "*", never a glob collection). */
  #names = new Set<string>();
  /**
   * `#names` sorted (byName), made when first needed after they change: `difference` walks them
   * in order for every response of every stream, and they change seldom.
   */
  #sortedNames: readonly string[] | undefined;
  /** The list `replaceNames` last set the subscription from (undefined once `changeNames` ran). */
  #lastRequested: readonly string[] | undefined;
  /**
   * Subscribed xdstp:// glob collections (`…/dir/*`): canonical form → the client's spelling.
   * A glob covers every resource directly in its directory (xdstp-naming.ts), and is answered by
   * them, never by its own name.
   */
  #globs = new Map<string, string>();
  /** Whether any subscribed name is xdstp:// (then offers go through `#resolver`). */
  #xdstp = false;
  readonly #resolver: NameResolver | undefined;
  /**
   * The latest resolved offer, for the maps it was made from: a stream pumps several times per
   * snapshot and names change rarely, so resolving again would redo the same work. Cleared when
   * the names change.
   */
  #resolved:
    | {
        readonly basis: ReadonlyMap<string, XdsResource>;
        readonly target: ReadonlyMap<string, XdsResource>;
        readonly offer: Offer;
      }
    | undefined;
  #wildcard = false;
  /** Once any request named a resource (or "*"), the legacy wildcard rule no longer applies. */
  #everNamed = false;
  /** Shared with other subscriptions that got there the same way: replaced, never altered. */
  #holds: ReadonlyMap<string, string> = NOTHING_HELD;
  /** Names that must be answered in the next response even if the client holds them. */
  readonly #force = new Set<string>();
  /** Name → version (null: a removal) the client rejected, not offered again until forgotten. */
  readonly #rejected = new Map<string, string | null>();
  #flow: FlowState = UNSTARTED;
  #latestNonce: string | undefined;
  #lastVersion: string | undefined;
  #ackedVersion: string | undefined;
  /** The client's latest answer is a NACK (cleared by its next ACK). */
  #nackOutstanding = false;
  /** A snapshot arrived since that NACK: see forgetRejections. */
  #confirmHeld = false;
  /**
   * The maps the latest plan was made from when it found nothing to send; cleared by every change
   * of the state a plan reads (each public method that alters it). See `planOpen`.
   */
  #idle:
    | {
        readonly basis: ReadonlyMap<string, XdsResource>;
        readonly target: ReadonlyMap<string, XdsResource>;
      }
    | undefined;

  constructor(typeUrl: string, resolver?: NameResolver) {
    this.typeUrl = typeUrl;
    this.#resolver = resolver;
  }

  get flow(): FlowState {
    return this.#flow;
  }

  get started(): boolean {
    return this.#flow.t !== "unstarted";
  }

  /** True when the client waits for a response: one may be sent now. */
  get open(): boolean {
    return this.#flow.t === "open";
  }

  /** True when a response was sent and its ACK/NACK has not arrived. */
  get awaitingAnswer(): boolean {
    return this.#flow.t === "awaiting";
  }

  /** The nonce of the latest response sent for the type; undefined before the first. */
  get latestNonce(): string | undefined {
    return this.#latestNonce;
  }

  /** The version_info of the latest response sent (ACKed or not). */
  get lastVersion(): string | undefined {
    return this.#lastVersion;
  }

  /** The version_info of the latest response the client ACKed. */
  get ackedVersion(): string | undefined {
    return this.#ackedVersion;
  }

  get wildcard(): boolean {
    return this.#wildcard;
  }

  get names(): ReadonlySet<string> {
    return this.#names;
  }

  /** The subscribed glob collections, as the client spelled them. */
  get globs(): readonly string[] {
    return [...this.#globs.values()];
  }

  /** Name → version of what the client holds. Owned by the subscription: must not be altered. */
  get holds(): ReadonlyMap<string, string> {
    return this.#holds;
  }

  get forced(): ReadonlySet<string> {
    return this.#force;
  }

  /** Whether the subscription asks for `name`: a wildcard asks for every resource of the type. */
  covers(name: string): boolean {
    if (this.#wildcard || this.#names.has(name)) return true;
    if (this.#globs.size === 0) return false;
    const glob = globKeyOfName(name);
    return glob !== undefined && this.#globs.has(glob);
  }

  /**
   * What `plan` makes of these maps, when the client waits for a response (`open`). A plan that
   * finds nothing to send is remembered with its maps, and until the state a plan reads changes
   * (each public method that alters it clears it) the same maps are answered "nothing" without
   * planning: a stream plans every type on every event (subscription-scheduler.ts), and most
   * events (an ACK of another type, say) change nothing for most types. Maps are immutable
   * (snapshots, plan steps), so identity stands for content.
   */
  planOpen<P>(
    basis: ReadonlyMap<string, XdsResource>,
    target: ReadonlyMap<string, XdsResource>,
    plan: () => P | undefined,
  ): P | undefined {
    if (!this.open) return undefined;
    const idle = this.#idle;
    if (idle !== undefined && idle.basis === basis && idle.target === target) return undefined;
    const planned = plan();
    if (planned === undefined) this.#idle = { basis, target };
    return planned;
  }

  /**
   * The resources a response may be built from: `basis` and `target` as they are, or, when the
   * subscription names xdstp:// resources, with what those names resolve to added under them.
   */
  offer(basis: ReadonlyMap<string, XdsResource>, target: ReadonlyMap<string, XdsResource>): Offer {
    if (!this.#resolver || (!this.#xdstp && this.#globs.size === 0)) return { basis, target };
    const known = this.#resolved;
    if (known?.basis === basis && known.target === target) return known.offer;
    const offer = this.#resolver.extend(
      { basis, target },
      this.typeUrl,
      this.#names,
      this.#globs.values(),
    );
    this.#resolved = { basis, target, offer };
    return offer;
  }

  /**
   * A glob subscribed (again) is answered in full, as a name is: every member the client holds
   * is sent again, since the client may have forgotten them.
   */
  #forceGlobMembers(subscribe: readonly string[]): void {
    const subscribed = new Set(subscribe.flatMap((name) => globKeyOfCollection(name) ?? []));
    if (subscribed.size === 0) return;
    for (const held of this.#holds.keys()) {
      const glob = globKeyOfName(held);
      if (glob !== undefined && subscribed.has(glob)) this.#force.add(held);
    }
  }

  /** Splits requested names into globs and the rest; the globs are recorded, the rest returned. */
  #takeGlobs(requested: readonly string[], replace: boolean): string[] {
    if (replace) this.#globs = new Map();
    const rest: string[] = [];
    for (const name of requested) {
      const glob = globKeyOfCollection(name);
      if (glob === undefined) rest.push(name);
      else this.#globs.set(glob, name);
    }
    return rest;
  }

  /** The names changed: notes whether any is xdstp://, and forgets the resolved offer. */
  #noteXdstp(): void {
    this.#resolved = undefined;
    this.#xdstp = false;
    for (const name of this.#names) {
      if (isXdstp(name)) {
        this.#xdstp = true;
        return;
      }
    }
  }

  /** The first request of the type arrived. */
  start(): void {
    this.#idle = undefined;
    if (this.#flow.t === "unstarted") this.#flow = OPEN;
  }

  /**
   * SotW: the request's `resource_names` replace the subscription (xDS protocol, "How the client
   * specifies what resources to return"). A name dropped from the list is dropped by the client
   * itself: nothing to answer. When the wildcard is dropped, the resources it alone covered are
   * forgotten too, unless `keepOnWildcardDrop` (SotW LDS/CDS: the next full-state response tells
   * the client what is left).
   */
  replaceNames(requested: readonly string[], keepOnWildcardDrop: boolean): void {
    this.#idle = undefined;
    if (requested.length === 0 && !this.#everNamed) {
      // Legacy wildcard: no request for this type has ever named a resource.
      this.#wildcard = true;
      return;
    }
    // A SotW client repeats its whole list in every request, ACKs included: mostly unchanged.
    if (this.#namesAre(requested)) return;
    this.#everNamed = true;
    const hadGlobs = this.#globs.size > 0;
    const next = new Set(this.#takeGlobs(requested, true).filter((name) => name !== WILDCARD));
    const droppedWildcard = this.#wildcard && !requested.includes(WILDCARD);
    this.#wildcard = requested.includes(WILDCARD);
    for (const name of next) {
      // "the server must resend any newly requested resources" (xDS protocol, "How the client
      // specifies what resources to return").
      if (!this.#names.has(name)) this.#force.add(name);
    }
    if (!this.#wildcard) this.#forget([...this.#names].filter((name) => !next.has(name)));
    this.#names = next;
    this.#sortedNames = undefined;
    this.#noteXdstp();
    if (droppedWildcard && !keepOnWildcardDrop) this.#pruneUncovered();
    // Members of a glob dropped from the list are dropped by the client, as names are.
    if (hadGlobs) {
      this.#forget([...this.#holds.keys()].filter((name) => isXdstp(name) && !this.covers(name)));
    }
    this.#lastRequested = [...requested];
  }

  /**
   * Whether `requested` is, name for name, the list the subscription was last set from, with no
   * glob in it: replacing it again would change nothing (it is idempotent, and only
   * `replaceNames` and `changeNames` change what is subscribed).
   */
  #namesAre(requested: readonly string[]): boolean {
    const last = this.#lastRequested;
    if (last === undefined || last.length !== requested.length || this.#globs.size > 0)
      return false;
    for (let i = 0; i < requested.length; i++) if (requested[i] !== last[i]) return false;
    return true;
  }

  /**
   * Delta: `resource_names_subscribe` / `resource_names_unsubscribe` change the subscription (xDS
   * protocol, "Incremental xDS": "Subscribing to Resources" / "Unsubscribing from Resources").
   * Every subscribed name is answered, even one the client seems to hold: it may have forgotten it.
   * An unsubscribed name needs no answer, except under a wildcard: the client cannot tell whether
   * the wildcard still covers it, so it is answered (in `resources` if it exists, else in
   * `removed_resources`).
   */
  changeNames(subscribe: readonly string[], unsubscribe: readonly string[]): void {
    this.#lastRequested = undefined;
    this.#idle = undefined;
    if (subscribe.length === 0 && !this.#everNamed) this.#wildcard = true;
    if (subscribe.length > 0) this.#everNamed = true;
    for (const glob of unsubscribe) {
      const key = globKeyOfCollection(glob);
      if (key !== undefined) this.#globs.delete(key);
    }
    const named = this.#takeGlobs(subscribe, false);
    if (named.length < subscribe.length) this.#forceGlobMembers(subscribe);
    for (const name of named) {
      this.#everNamed = true;
      if (name === WILDCARD) {
        this.#wildcard = true;
      } else {
        this.#names.add(name);
        this.#sortedNames = undefined;
        this.#force.add(name);
      }
    }
    const forgotten: string[] = [];
    for (const name of unsubscribe) {
      if (name === WILDCARD) {
        this.#everNamed = true;
        this.#wildcard = false;
      } else if (globKeyOfCollection(name) !== undefined) {
        // Dropped above; what it alone covered is forgotten by the pruning below.
      } else if (this.#names.delete(name)) {
        this.#sortedNames = undefined;
        if (this.#wildcard) this.#force.add(name);
        else forgotten.push(name);
      }
    }
    this.#forget(forgotten);
    this.#noteXdstp();
    this.#pruneUncovered();
  }

  /**
   * Delta `initial_resource_versions`: the client already holds these, so they are sent again
   * only at another version (xDS protocol, "Incremental xDS", on reconnect).
   */
  declareHeld(versions: Iterable<readonly [string, string]>): void {
    this.#idle = undefined;
    const declared = [...versions];
    // A fresh stream declares nothing: it keeps the shared empty holding, so that its ACKs share
    // held maps with every other stream's (held-maps.ts). What a client declares stays its own:
    // shared held maps are kept beyond the stream, and a client's names must not be.
    if (declared.length === 0) return;
    const holds = new Map(this.#holds);
    for (const [name, version] of declared) {
      holds.set(name, version);
      this.#force.delete(name);
    }
    this.#holds = holds;
    this.#pruneUncovered();
  }

  /**
   * Sends these names again although unchanged (xDS protocol, "Resource warming"): those the
   * client holds, and those of the response it has not answered yet, which it will hold once it
   * does (left out, a cluster that changed while its assignment was on its way would never get
   * the assignment again, and stay warming).
   */
  forceResend(names: Iterable<string>): void {
    this.#idle = undefined;
    const flow = this.#flow;
    const inFlight =
      flow.t === "awaiting" ? new Set(flow.effect.sent.map((r) => r.name)) : undefined;
    const known = (name: string) => this.#holds.has(name) || inFlight?.has(name) === true;
    let xdstp: Set<string> | undefined;
    for (const name of names) {
      if (known(name) && this.covers(name)) this.#force.add(name);
      else if (isXdstp(name)) {
        xdstp ??= new Set();
        xdstp.add(name);
      }
    }
    // An xdstp:// reference names no context parameters; the client may have added its own
    // (Envoy's node_context_params) when it subscribed: the held name with them is meant.
    if (xdstp === undefined) return;
    for (const held of [...this.#holds.keys(), ...(inFlight ?? [])]) {
      const base = withoutParams(held);
      if (base !== undefined && xdstp.has(base) && this.covers(held)) this.#force.add(held);
    }
  }

  /** The client holds exactly `versions` (a SotW reconnect that named its version). */
  assumeHeld(versions: Iterable<readonly [string, string]>, versionInfo: string): void {
    this.#idle = undefined;
    // The server's own content (its version is what the client named): shared like an ACK's.
    const sent = [...versions].map(([name, version]) => ({ name, version }));
    this.#holds = heldAfter(NOTHING_HELD, { replace: true, sent, removed: [] });
    this.#lastVersion = versionInfo;
    this.#ackedVersion = versionInfo;
  }

  /**
   * What the client lacks compared with `offer`. Linear in the offer and what the client holds:
   * `basis` maps come sorted by name (ResourceSnapshot, plan steps), and keep that order.
   */
  difference(offer: Offer): Difference {
    const resources: XdsResource[] = [];
    const members = offer.globMembers ?? [];
    const order = this.#wildcard
      ? offer.basis.keys()
      : members.length === 0
        ? this.#sorted()
        : [...new Set([...this.#names, ...members])].sort(byName);
    for (const name of order) {
      const resource = offer.basis.get(name);
      if (resource && (this.#force.has(name) || this.#lacks(resource))) resources.push(resource);
    }
    // Both mostly empty; built without copying what the client holds (a stream asks for its
    // difference on every event, and a wildcard client holds every resource of the type).
    const missing: string[] = [];
    for (const name of this.#force) {
      if (!this.covers(name) || offer.basis.has(name)) continue;
      if (!this.#holds.has(name) && !offer.target.has(name)) missing.push(name);
    }
    const removed: string[] = [];
    for (const name of this.#holds.keys()) {
      if (this.covers(name) && offer.basis.has(name)) continue;
      if (this.#rejected.get(name) !== null) removed.push(name);
    }
    if (missing.length > 1) missing.sort(byName);
    if (removed.length > 1) removed.sort(byName);
    if (this.#confirmHeld && resources.length === 0 && removed.length === 0 && missing.length === 0)
      return { resources: this.#heldIn(offer), removed, missing };
    return { resources: sharedList(resources, offer.basis), removed, missing };
  }

  /** The explicitly subscribed names, sorted (`#sortedNames`). */
  #sorted(): readonly string[] {
    this.#sortedNames ??= [...this.#names].sort(byName);
    return this.#sortedNames;
  }

  /** What the client holds that `offer` has at the same version, in the offer's order. */
  #heldIn(offer: Offer): XdsResource[] {
    return [...offer.basis.values()].filter(
      (resource) =>
        this.covers(resource.name) && this.#holds.get(resource.name) === resource.version,
    );
  }

  #lacks(resource: XdsResource): boolean {
    return (
      this.#holds.get(resource.name) !== resource.version &&
      this.#rejected.get(resource.name) !== resource.version
    );
  }

  /** A response went out with `nonce`. */
  markSent(nonce: string, versionInfo: string, effect: ResponseEffect): void {
    this.#idle = undefined;
    if (effect.replace) this.#force.clear();
    for (const resource of effect.sent) this.#force.delete(resource.name);
    for (const name of effect.removed) this.#force.delete(name);
    this.#confirmHeld = false;
    this.#latestNonce = nonce;
    this.#lastVersion = versionInfo;
    this.#flow = { t: "awaiting", nonce, versionInfo, effect };
  }

  /** The client ACKed the response with `nonce`; returns false if that is not the one in flight. */
  acknowledge(nonce: string): boolean {
    this.#idle = undefined;
    const flow = this.#flow;
    if (flow.t !== "awaiting" || flow.nonce !== nonce) return false;
    const { effect } = flow;
    this.#holds = heldAfter(this.#holds, effect);
    if (this.#rejected.size > 0) {
      for (const resource of effect.sent) this.#rejected.delete(resource.name);
      for (const name of effect.removed) this.#rejected.delete(name);
    }
    this.#ackedVersion = flow.versionInfo;
    this.#nackOutstanding = false;
    this.#flow = OPEN;
    this.#pruneUncovered();
    return true;
  }

  /**
   * The client NACKed the response with `nonce`: returns false if that is not the one in flight,
   * else the names `errorDetail` says it rejected (undefined: it names none, and the whole
   * response counts as rejected). The client keeps the rest of the response (gRFC A46; Envoy does
   * likewise): those resources are held as if ACKed; the rejected ones keep their earlier version
   * and are remembered, not to be offered again at that version.
   */
  reject(nonce: string, errorDetail: string): false | { readonly rejected?: ReadonlySet<string> } {
    this.#idle = undefined;
    const flow = this.#flow;
    if (flow.t !== "awaiting" || flow.nonce !== nonce) return false;
    const { effect } = flow;
    const named = rejectedNames(
      errorDetail,
      effect.sent.map((resource) => resource.name),
    );
    if (named !== undefined) {
      const earlier = this.#holds;
      const holds = new Map(effect.replace ? [] : earlier);
      for (const resource of effect.sent) {
        if (!named.has(resource.name)) {
          holds.set(resource.name, resource.version);
          this.#rejected.delete(resource.name);
          continue;
        }
        const kept = earlier.get(resource.name);
        if (kept !== undefined) holds.set(resource.name, kept);
        if (kept !== resource.version) this.#rejected.set(resource.name, resource.version);
      }
      for (const name of effect.removed) holds.delete(name);
      this.#holds = holds;
    } else {
      for (const resource of effect.sent) {
        if (this.#holds.get(resource.name) !== resource.version) {
          this.#rejected.set(resource.name, resource.version);
        }
      }
      const kept = effect.replace ? new Set(effect.sent.map((r) => r.name)) : new Set<string>();
      const removed = effect.replace
        ? [...this.#holds.keys()].filter((name) => !kept.has(name))
        : effect.removed;
      for (const name of removed) this.#rejected.set(name, null);
    }
    this.#nackOutstanding = true;
    this.#flow = OPEN;
    return named === undefined ? {} : { rejected: named };
  }

  /**
   * A new snapshot: what was rejected may be offered again. If the client's latest answer is a
   * NACK and the new snapshot withdraws the rejected change (a fix, a rollback), the client holds
   * everything already and nothing would be sent: it would never answer again and read as NACKED
   * forever. So until the next response, an otherwise empty difference resends what it holds
   * (`difference`); its ACK of the state it runs clears the NACK (node status "recovered").
   */
  forgetRejections(): void {
    if (this.#rejected.size > 0 || this.#nackOutstanding) this.#idle = undefined;
    this.#rejected.clear();
    if (this.#nackOutstanding) this.#confirmHeld = true;
  }

  /** Forgets `names`: no longer held, forced or rejected (held maps are copied, not altered). */
  #forget(names: readonly string[]): void {
    if (names.length === 0) return;
    if (names.some((name) => this.#holds.has(name))) {
      const holds = new Map(this.#holds);
      for (const name of names) holds.delete(name);
      this.#holds = holds;
    }
    for (const name of names) {
      this.#force.delete(name);
      this.#rejected.delete(name);
    }
  }

  #pruneUncovered(): void {
    this.#forget([...this.#holds.keys(), ...this.#force].filter((name) => !this.covers(name)));
  }
}

/** Lists of one basis map's resources, by their resources in order: a trie per basis map. */
interface ListTrie {
  readonly next: Map<XdsResource, ListTrie>;
  list?: readonly XdsResource[];
}

/** The lists given out per basis map, and how many trie nodes each has (bounded). */
const listTries = new WeakMap<
  ReadonlyMap<string, XdsResource>,
  { root: ListTrie; nodes: number }
>();
/**
 * Trie nodes kept per basis map, beyond four per resource: a fleet forms a few lists of one
 * version (all of a type, the resources a change touched); past this, lists are given out
 * unshared, so that clients naming ever other subsets cannot grow it while the version is served.
 */
const MAX_LIST_NODES = 10_000;
const LIST_NODES_PER_RESOURCE = 4;

const sharedLists = new WeakSet<readonly XdsResource[]>();

/**
 * `resources` (resources of `basis`, in its order) as the one array every stream with the same
 * list is given: identical lists let the wire encoding (packed-resources.ts), the held maps
 * (held-maps.ts) and the status callbacks (stream-loop.ts) do their work once for the fleet
 * instead of once a node. The array passed may become the shared one: not altered afterwards.
 */
export function sharedList(
  resources: readonly XdsResource[],
  basis: ReadonlyMap<string, XdsResource>,
): readonly XdsResource[] {
  if (resources.length === 0) return resources;
  let trie = listTries.get(basis);
  if (trie === undefined) {
    trie = { root: { next: new Map() }, nodes: 0 };
    listTries.set(basis, trie);
  }
  let node = trie.root;
  for (const resource of resources) {
    let next = node.next.get(resource);
    if (next === undefined) {
      if (trie.nodes >= MAX_LIST_NODES + LIST_NODES_PER_RESOURCE * basis.size) return resources;
      next = { next: new Map() };
      node.next.set(resource, next);
      trie.nodes += 1;
    }
    node = next;
  }
  if (node.list === undefined) {
    node.list = resources;
    sharedLists.add(resources);
  }
  return node.list;
}

const wholeLists = new WeakMap<ReadonlyMap<string, XdsResource>, readonly XdsResource[]>();

/** All the resources of `basis` in its order, as the shared list (sharedList). */
export function wholeOf(basis: ReadonlyMap<string, XdsResource>): readonly XdsResource[] {
  let whole = wholeLists.get(basis);
  if (whole === undefined) {
    whole = sharedList([...basis.values()], basis);
    wholeLists.set(basis, whole);
  }
  return whole;
}

/** Whether `resources` is a list sharedList gives out (worth encoding once for every stream). */
export function isSharedList(resources: readonly XdsResource[]): boolean {
  return sharedLists.has(resources);
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
