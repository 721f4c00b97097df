/**
 * The one place the xDS streams bound what a client says of itself before Switchyard keeps it:
 * node status stores a node's identity and its NACKs' text, and the console and the API hand them
 * to every watcher (ListNodes, GetNode, WatchNodes). A client, anonymous or not, chooses their
 * size (a request may be 16 MiB: MAX_REQUEST_BYTES in xds-server.ts), so each is cut to a stated
 * size with a marker (README, "What is promised"); client-bounds.spec.ts pins each bound, and
 * packages/server/test/client-text-bounds.e2e.spec.ts plays the attack against the server.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { Node } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import type { Status } from "@switchyard/proto/google/rpc/status_pb";
import { truncateUtf8, truncationMarker } from "@switchyard/snapshot";

export const CLIENT_TEXT_LIMITS = {
  /** A NACK's error_detail message (its `details` are not kept). */
  errorDetailBytes: 16 * 1024,
  /** Node.metadata, as JSON. */
  metadataBytes: 16 * 1024,
  /** Node.cluster, user_agent_name, user_agent_version and each locality part. */
  nodeFieldBytes: 1024,
  /** Node.client_features: how many, each at most nodeFieldBytes. */
  clientFeatures: 100,
} as const;

/** The key that, in metadata cut to size, says what was dropped. */
export const METADATA_TRUNCATED_KEY = "switchyard.truncated";

const encoder = new TextEncoder();
const jsonBytes = (value: JsonValue): number => encoder.encode(JSON.stringify(value)).length;

/** The text of a NACK's `error_detail`, or undefined when the request is no NACK; cut to size. */
export function errorDetailText(errorDetail: Status | undefined): string | undefined {
  if (!errorDetail) return undefined;
  return truncateUtf8(
    errorDetail.message || `gRPC status ${errorDetail.code}`,
    CLIENT_TEXT_LIMITS.errorDetailBytes,
  );
}

/**
 * Node.metadata within metadataBytes of JSON: kept whole when it fits, else its first keys that
 * fit and METADATA_TRUNCATED_KEY saying how many keys and bytes were dropped.
 */
export function boundedMetadata(metadata: JsonObject): JsonObject {
  const total = jsonBytes(metadata);
  if (total <= CLIENT_TEXT_LIMITS.metadataBytes) return metadata;
  // Room for the marker entry itself.
  const budget = CLIENT_TEXT_LIMITS.metadataBytes - 256;
  const kept: JsonObject = {};
  let used = 2;
  let dropped = 0;
  const keys = Object.keys(metadata);
  for (const key of keys) {
    const value = metadata[key] as JsonValue;
    const entry = jsonBytes(key) + 1 + jsonBytes(value) + 1;
    if (used + entry <= budget) {
      kept[key] = value;
      used += entry;
    } else dropped += 1;
  }
  kept[METADATA_TRUNCATED_KEY] =
    `${dropped} of ${keys.length} keys dropped${truncationMarker(total - used)}`;
  return kept;
}

/**
 * `node` with every field node status keeps within CLIENT_TEXT_LIMITS; the same object when it is
 * within them already (the common case costs no copy). `id` is not cut: a longer one is refused
 * (MAX_NODE_ID_BYTES in stream-loop.ts), since it names the node.
 */
export function boundedNode(node: Node): Node {
  const field = (text: string) => truncateUtf8(text, CLIENT_TEXT_LIMITS.nodeFieldBytes);
  const metadata = node.metadata === undefined ? undefined : boundedMetadata(node.metadata);
  const locality = node.locality && {
    ...node.locality,
    region: field(node.locality.region),
    zone: field(node.locality.zone),
    subZone: field(node.locality.subZone),
  };
  const features = node.clientFeatures.slice(0, CLIENT_TEXT_LIMITS.clientFeatures).map(field);
  const version = node.userAgentVersionType;
  const bounded: Node = {
    ...node,
    cluster: field(node.cluster),
    userAgentName: field(node.userAgentName),
    userAgentVersionType:
      version.case === "userAgentVersion" ? { ...version, value: field(version.value) } : version,
    clientFeatures:
      node.clientFeatures.length > CLIENT_TEXT_LIMITS.clientFeatures
        ? [
            ...features,
            `… [${node.clientFeatures.length - CLIENT_TEXT_LIMITS.clientFeatures} more features dropped]`,
          ]
        : features,
    ...(metadata === undefined ? {} : { metadata }),
    ...(locality === undefined ? {} : { locality }),
  };
  const same =
    bounded.cluster === node.cluster &&
    bounded.userAgentName === node.userAgentName &&
    bounded.userAgentVersionType.value === version.value &&
    metadata === node.metadata &&
    locality?.region === node.locality?.region &&
    locality?.zone === node.locality?.zone &&
    locality?.subZone === node.locality?.subZone &&
    bounded.clientFeatures.length === node.clientFeatures.length &&
    bounded.clientFeatures.every((f, i) => f === node.clientFeatures[i]);
  return same ? node : bounded;
}
