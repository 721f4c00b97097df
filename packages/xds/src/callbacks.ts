import type { Node } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import type { HeldBack } from "@switchyard/snapshot";
import type { AuthRefusalReason } from "./client-auth.js";
import type { DeltaVerdict } from "./delta-subscription.js";
import type { RequestVerdict } from "./sotw-subscription.js";

export type XdsVariant = "ads-sotw" | "sotw" | "ads-delta" | "delta";

/**
 * Hooks the xDS server calls as streams progress (in the spirit of go-control-plane's
 * Callbacks): status tracking, metrics and logging attach here instead of living in the stream
 * code. Callbacks must not throw and must return quickly; they run on the stream's path.
 */
export interface XdsCallbacks {
  onStreamOpen?(event: {
    streamId: number;
    node: Node;
    variant: XdsVariant;
    remoteAddress: string;
    /** Who the stream authenticated as ("token:NAME", "certificate:SUBJECT"); "" when open. */
    identity: string;
  }): void;
  onRequest?(event: {
    streamId: number;
    typeUrl: string;
    verdict: RequestVerdict | DeltaVerdict;
    resourceNames: readonly string[];
    /** The nonce of the response this request answers ("" on a first request). */
    responseNonce: string;
    /** Delta: the names the request unsubscribes from. */
    unsubscribed?: readonly string[];
    /** Delta, on a stream's first request: what the client says it holds already. */
    initialResourceVersions?: Readonly<Record<string, string>>;
    /** The request's xdstp:// names that resolve to nothing here, and why (xdstp-naming.ts). */
    unresolved?: readonly { readonly name: string; readonly reason: string }[];
  }): void;
  onResponse?(event: {
    streamId: number;
    typeUrl: string;
    versionInfo: string;
    nonce: string;
    /**
     * Every resource named in the response, heartbeats included. This list and `resources` are
     * shared by the streams that send the same resources, and never altered.
     */
    resourceNames: readonly string[];
    /** The resources the response carries, each with its version (not heartbeats). */
    resources: readonly { readonly name: string; readonly version: string }[];
    /** Delta only: the names the client must drop. */
    removed?: readonly string[];
  }): void;
  /**
   * What of its snapshot the stream's node is not sent because of its NACKs changed (PlanCursor
   * in @switchyard/snapshot): each held-back resource, and whether it was rejected or needs one
   * that was. Reported whenever the list changes, empty once nothing is held back.
   */
  onHeldBack?(event: { streamId: number; heldBack: readonly HeldBack[] }): void;
  onStreamClosed?(event: { streamId: number }): void;
  /**
   * A call's handler failed after its request was taken, most often because the client went
   * away mid-stream (`peerGone`: a reset or closed connection, a cancel), which is no fault of
   * the server's; `method` is "package.Service/Method".
   */
  onHandlerFailed?(event: { method: string; reason: unknown; peerGone: boolean }): void;
  /**
   * A call (stream or REST request) was refused, or a stream ended, for want of a credential
   * (`unauthenticated`) or because its credential does not cover the node group its node selects
   * (`permission_denied`). `nodeId` and `identity` are known only for permission_denied and
   * revocations.
   */
  onAuthRefused?(event: AuthRefusal): void;
  /**
   * An ADS stream of a client that did not authenticate asked for secrets, which it is not
   * served (XdsServerOptions.anonymousSecrets): once per stream, with the first names asked.
   */
  onSecretsWithheld?(event: {
    readonly streamId: number;
    readonly nodeId: string;
    readonly resourceNames: readonly string[];
  }): void;
}

export interface AuthRefusal {
  readonly code: "unauthenticated" | "permission_denied";
  readonly reason: AuthRefusalReason;
  readonly message: string;
  readonly remoteAddress: string;
  readonly transport: "grpc" | "rest";
  readonly nodeId?: string;
  readonly identity?: string;
}

/** Several hook sets as one, called in order (e.g. the log and the status tracker). */
export function combineCallbacks(...sets: readonly XdsCallbacks[]): XdsCallbacks {
  return {
    onStreamOpen: (event) => {
      for (const set of sets) set.onStreamOpen?.(event);
    },
    onRequest: (event) => {
      for (const set of sets) set.onRequest?.(event);
    },
    onResponse: (event) => {
      for (const set of sets) set.onResponse?.(event);
    },
    onHeldBack: (event) => {
      for (const set of sets) set.onHeldBack?.(event);
    },
    onStreamClosed: (event) => {
      for (const set of sets) set.onStreamClosed?.(event);
    },
    onSecretsWithheld: (event) => {
      for (const set of sets) set.onSecretsWithheld?.(event);
    },
    onAuthRefused: (event) => {
      for (const set of sets) set.onAuthRefused?.(event);
    },
  };
}
