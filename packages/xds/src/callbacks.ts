import type { Node } from "@switchyard/proto/envoy/config/core/v3/base_pb";
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
  }): void;
  onRequest?(event: {
    streamId: number;
    typeUrl: string;
    verdict: RequestVerdict | DeltaVerdict;
    resourceNames: readonly string[];
  }): void;
  onResponse?(event: {
    streamId: number;
    typeUrl: string;
    versionInfo: string;
    nonce: string;
    resourceNames: readonly string[];
  }): void;
  onStreamClosed?(event: { streamId: number }): void;
}
