import { createHash } from "node:crypto";
import { TypeUrl, type XdsResource } from "@switchyard/snapshot";

/** The parts of a SotW DiscoveryRequest the state machine needs. */
export interface SotwRequest {
  readonly resourceNames: readonly string[];
  readonly versionInfo: string;
  readonly responseNonce: string;
  /** Envoy's error text when the request is a NACK. */
  readonly errorDetail?: string | undefined;
}

/** What the state machine made of a request. */
export type RequestVerdict =
  /** The nonce is not the latest sent: ignored entirely (shared/spec: "Resource updates"). */
  | { readonly t: "stale" }
  /** The first request for this type on the stream. */
  | { readonly t: "initial" }
  | { readonly t: "ack"; readonly version: string }
  | { readonly t: "nack"; readonly rejectedVersion: string; readonly errorDetail: string };

export interface SotwResponsePlan {
  readonly versionInfo: string;
  readonly resources: readonly XdsResource[];
}

const WILDCARD = "*";

/** LDS and CDS responses carry the full state of the world; EDS and RDS only what changed. */
export function isFullStateType(typeUrl: string): boolean {
  return typeUrl === TypeUrl.Listener || typeUrl === TypeUrl.Cluster;
}

function typeVersion(held: ReadonlyMap<string, string>): string {
  const hash = createHash("sha256");
  for (const [name, version] of [...held].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    hash.update(name).update("\u0000").update(version).update("\u0000");
  }
  return hash.digest("hex").slice(0, 16);
}

/**
 * The state of one resource type on one SotW stream: what the client subscribed to, what it was
 * sent, and whether it is waiting for an answer. Pure: no I/O, driven by the stream.
 *
 * Flow control follows the request/response pairing of the protocol: after a response goes out,
 * nothing more is sent for this type until the client answers it (ACK or NACK) with its nonce.
 */
export class SotwSubscription {
  readonly typeUrl: string;
  /** Explicitly subscribed names (not including "*"). */
  #names = new Set<string>();
  #wildcard = false;
  /** True once any request named a resource: from then on an empty list means "nothing". */
  #everNamed = false;
  #started = false;
  /** Name to version of what the client was last sent (and so holds, or rejected). */
  #sent = new Map<string, string>();
  /** Names that must go out in the next response even if unchanged. */
  #force = new Set<string>();
  /** The version_info of the response last sent. */
  #sentVersion: string | undefined;
  /** The nonce of the latest response; undefined before the first one. */
  #latestNonce: string | undefined;
  /** A request is pending: the next change may be sent. */
  #open = false;
  /**
   * When the client had nothing to send on its initial request but told us which version it
   * holds: used to skip a resend to a reconnecting pure-wildcard client.
   */
  #claimedVersion: string | undefined;

  constructor(typeUrl: string) {
    this.typeUrl = typeUrl;
  }

  get wildcard(): boolean {
    return this.#wildcard;
  }

  get names(): ReadonlySet<string> {
    return this.#names;
  }

  /** True when a response was sent and its ACK/NACK has not arrived. */
  get awaitingAnswer(): boolean {
    return this.#latestNonce !== undefined && !this.#open;
  }

  get started(): boolean {
    return this.#started;
  }

  /** Resource names and versions the client was last sent (a fresh map after each send). */
  get sent(): ReadonlyMap<string, string> {
    return this.#sent;
  }

  /**
   * Applies a request (shared/spec README: wildcard rules; "NACK is detected by error_detail";
   * "A SotW request with a stale nonce gets no response").
   */
  onRequest(request: SotwRequest): RequestVerdict {
    if (this.#latestNonce !== undefined && request.responseNonce !== this.#latestNonce) {
      return { t: "stale" };
    }
    const initial = !this.#started;
    this.#started = true;
    this.#open = true;
    this.#updateSubscription(request.resourceNames);
    if (initial) {
      if (request.versionInfo !== "") this.#claimedVersion = request.versionInfo;
      return { t: "initial" };
    }
    if (request.errorDetail !== undefined) {
      return {
        t: "nack",
        rejectedVersion: this.#sentVersion ?? "",
        errorDetail: request.errorDetail,
      };
    }
    return { t: "ack", version: request.versionInfo };
  }

  #updateSubscription(requested: readonly string[]): void {
    if (requested.length === 0 && !this.#everNamed) {
      // Legacy wildcard: no request for this type has ever named a resource.
      this.#wildcard = true;
      return;
    }
    this.#everNamed = true;
    const next = new Set(requested.filter((name) => name !== WILDCARD));
    this.#wildcard = requested.includes(WILDCARD);
    for (const name of next) {
      // A newly requested name is sent even if the client was sent it before
      // (shared/spec: "the server must resend any newly requested resources").
      if (!this.#names.has(name)) this.#force.add(name);
    }
    for (const name of this.#names) {
      if (!next.has(name) && !this.#wildcard) this.#sent.delete(name);
    }
    this.#names = next;
  }

  /** Marks resources to be resent although unchanged (warming after a CDS or LDS update). */
  forceResend(names: Iterable<string>): void {
    for (const name of names) {
      if (this.#sent.has(name)) this.#force.add(name);
    }
  }

  /** The resources of `available` this subscription covers. */
  #wanted(available: ReadonlyMap<string, XdsResource>): XdsResource[] {
    if (this.#wildcard) return [...available.values()];
    const wanted: XdsResource[] = [];
    for (const name of this.#names) {
      const resource = available.get(name);
      if (resource) wanted.push(resource);
    }
    return wanted;
  }

  /**
   * What to send now, given the resources of this type in the node's snapshot; undefined when
   * nothing should be sent (no pending request, or nothing changed).
   */
  plan(available: ReadonlyMap<string, XdsResource>): SotwResponsePlan | undefined {
    if (!this.#open) return undefined;
    const wanted = this.#wanted(available);
    const fullState = isFullStateType(this.typeUrl);
    let resources: XdsResource[];
    let held: Map<string, string>;
    if (fullState) {
      held = new Map(wanted.map((r) => [r.name, r.version]));
      const changed =
        this.#force.size > 0 ||
        held.size !== this.#sent.size ||
        wanted.some((r) => this.#sent.get(r.name) !== r.version);
      const claimed =
        this.#claimedVersion !== undefined && this.#claimedVersion === typeVersion(held);
      if (!changed && this.#sentVersion !== undefined) return undefined;
      if (claimed && this.#wildcard && this.#names.size === 0 && this.#force.size === 0) {
        // A reconnecting pure-wildcard client already holds exactly this state
        // (shared/spec README: "SotW reconnect").
        this.#sent = held;
        this.#sentVersion = typeVersion(held);
        this.#claimedVersion = undefined;
        return undefined;
      }
      resources = wanted;
    } else {
      resources = wanted.filter(
        (r) => this.#force.has(r.name) || this.#sent.get(r.name) !== r.version,
      );
      if (resources.length === 0) return undefined;
      held = new Map(this.#sent);
      for (const r of resources) held.set(r.name, r.version);
    }
    this.#claimedVersion = undefined;
    return { versionInfo: typeVersion(held), resources };
  }

  /** Records that the planned response went out with `nonce`. */
  markSent(plan: SotwResponsePlan, nonce: string): void {
    if (isFullStateType(this.typeUrl)) {
      // The response is the whole state: it answers every forced name, present or not.
      this.#sent = new Map();
      this.#force.clear();
    } else {
      this.#sent = new Map(this.#sent);
    }
    for (const resource of plan.resources) {
      this.#sent.set(resource.name, resource.version);
      this.#force.delete(resource.name);
    }
    this.#sentVersion = plan.versionInfo;
    this.#latestNonce = nonce;
    this.#open = false;
  }
}
