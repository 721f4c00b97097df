import {
  type ResourceSnapshot,
  referencedType,
  TYPE_ORDER,
  type XdsResource,
} from "@switchyard/snapshot";
import { type RequestVerdict, type SotwRequest, SotwSubscription } from "./sotw-subscription.js";

export interface SotwTypedRequest extends SotwRequest {
  readonly typeUrl: string;
}

/** A response the transport must send, in order. */
export interface SotwResponse {
  readonly typeUrl: string;
  readonly versionInfo: string;
  readonly nonce: string;
  readonly resources: readonly XdsResource[];
}

const EMPTY: ReadonlyMap<string, XdsResource> = new Map();

/** Types we know, first in make-before-break order, then any other type in arrival order. */
function orderOf(typeUrl: string): number {
  const index = TYPE_ORDER.indexOf(typeUrl as (typeof TYPE_ORDER)[number]);
  return index === -1 ? TYPE_ORDER.length : index;
}

/**
 * One SotW stream's protocol state: a subscription per type and the node's current snapshot.
 * Pure and synchronous: the transport feeds it requests and snapshots and writes out what it
 * returns. Used for ADS (all types on one stream) and for the per-type services (one type).
 *
 * Ordering on ADS (shared/spec README, "Ordering: make before break"): responses are produced in
 * CDS, EDS, LDS, RDS order, and a type waits while an earlier type's response is unanswered, so a
 * node processes clusters before the listeners and routes that use them. After a Cluster or a
 * Listener is sent, the assignment or route configuration it needs is sent again even if unchanged
 * (shared/spec README, "Warming").
 */
export class SotwSession {
  readonly #subscriptions = new Map<string, SotwSubscription>();
  #snapshot: ResourceSnapshot | undefined;
  #nonce = 0;

  /** Applies a request; returns the verdict and the responses now due. */
  onRequest(request: SotwTypedRequest): { verdict: RequestVerdict; responses: SotwResponse[] } {
    let subscription = this.#subscriptions.get(request.typeUrl);
    if (!subscription) {
      subscription = new SotwSubscription(request.typeUrl);
      this.#subscriptions.set(request.typeUrl, subscription);
    }
    const verdict = subscription.onRequest(request);
    return { verdict, responses: verdict.t === "stale" ? [] : this.#pump() };
  }

  /** Installs the node's new snapshot; returns the responses now due. */
  onSnapshot(snapshot: ResourceSnapshot): SotwResponse[] {
    this.#snapshot = snapshot;
    return this.#pump();
  }

  subscription(typeUrl: string): SotwSubscription | undefined {
    return this.#subscriptions.get(typeUrl);
  }

  #pump(): SotwResponse[] {
    const snapshot = this.#snapshot;
    if (!snapshot) return [];
    const responses: SotwResponse[] = [];
    const ordered = [...this.#subscriptions.values()].sort(
      (a, b) => orderOf(a.typeUrl) - orderOf(b.typeUrl),
    );
    for (const [index, subscription] of ordered.entries()) {
      if (
        ordered
          .slice(0, index)
          .some(
            (earlier) =>
              earlier.awaitingAnswer && orderOf(earlier.typeUrl) < orderOf(subscription.typeUrl),
          )
      ) {
        break;
      }
      const available = TYPE_ORDER.includes(subscription.typeUrl as (typeof TYPE_ORDER)[number])
        ? snapshot.resources(subscription.typeUrl)
        : EMPTY;
      const plan = subscription.plan(available);
      if (!plan) continue;
      const before = subscription.sent;
      const changed = plan.resources.filter((r) => before.get(r.name) !== r.version);
      this.#nonce += 1;
      const nonce = String(this.#nonce);
      subscription.markSent(plan, nonce);
      responses.push({ typeUrl: subscription.typeUrl, nonce, ...plan });
      // A new or changed Cluster (Listener) warms until its assignment (route configuration)
      // arrives, so those are sent again even when unchanged.
      const dependent = referencedType(subscription.typeUrl);
      if (dependent && orderOf(dependent) > orderOf(subscription.typeUrl)) {
        this.#subscriptions.get(dependent)?.forceResend(changed.flatMap((r) => r.references));
      }
    }
    return responses;
  }
}
