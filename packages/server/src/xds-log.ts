import type { XdsCallbacks } from "@switchyard/xds";
import type { Logger } from "pino";

/**
 * Logs each stream's life and every NACK with the node and the client's error text (what an
 * operator needs first when a proxy refuses a publish). Node status is tracked by the status
 * service; this is the log of it.
 */
export function xdsLogCallbacks(logger: Logger): XdsCallbacks {
  const nodes = new Map<number, string>();
  return {
    onStreamOpen({ streamId, node, variant, remoteAddress, identity }) {
      nodes.set(streamId, node.id);
      logger.info(
        {
          node: node.id,
          cluster: node.cluster,
          variant,
          remoteAddress,
          ...(identity ? { identity } : {}),
        },
        "xDS stream opened",
      );
    },
    onAuthRefused(refusal) {
      logger.warn(refusal, "xDS client refused");
    },
    onRequest({ streamId, typeUrl, verdict }) {
      if (verdict.t !== "nack") return;
      logger.warn(
        {
          node: nodes.get(streamId),
          typeUrl,
          rejectedVersion: verdict.rejectedVersion,
          errorDetail: verdict.errorDetail,
        },
        "xDS update rejected (NACK)",
      );
    },
    onStreamClosed({ streamId }) {
      logger.info({ node: nodes.get(streamId) }, "xDS stream closed");
      nodes.delete(streamId);
    },
  };
}
