import type { XdsCallbacks } from "@switchyard/xds";
import type { Logger } from "pino";

/**
 * Logs each stream's life, every NACK with the node and the client's error text (what an
 * operator needs first when a proxy refuses a publish), and once per stream each xdstp:// name
 * the server cannot serve, with why (another authority, context parameters for another node). Node status is tracked by the status
 * service; this is the log of it.
 */
export function xdsLogCallbacks(logger: Logger): XdsCallbacks {
  const nodes = new Map<number, string>();
  /** xdstp:// names already reported unresolved, per stream: each is logged once. */
  const unresolvedLogged = new Map<number, Set<string>>();
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
    onHandlerFailed({ method, reason, peerGone }) {
      if (peerGone) logger.debug({ method, err: reason }, "xDS call ended by the client");
      else logger.error({ method, err: reason }, "xDS call failed");
    },
    onAuthRefused(refusal) {
      logger.warn(refusal, "xDS client refused");
    },
    onSecretsWithheld({ streamId, nodeId, resourceNames }) {
      logger.warn(
        { node: nodeId, streamId, secrets: resourceNames },
        "secrets withheld: this client did not authenticate, and private keys are served only to clients that do (--xds-auth token or mtls); its TLS listeners and clusters wait for them",
      );
    },
    onRequest({ streamId, typeUrl, verdict, unresolved }) {
      for (const { name, reason } of unresolved ?? []) {
        const logged = unresolvedLogged.get(streamId) ?? new Set<string>();
        unresolvedLogged.set(streamId, logged);
        if (logged.has(name)) continue;
        logged.add(name);
        logger.warn(
          { node: nodes.get(streamId), typeUrl, resourceName: name, reason },
          "xDS resource name not served here: the client is answered that it does not exist",
        );
      }
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
      unresolvedLogged.delete(streamId);
    },
  };
}
