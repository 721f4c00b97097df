/**
 * Node status as Client Status Discovery (CSDS, envoy.service.status.v3) reports it: per node,
 * every resource it holds, asked for or rejected, with the version it holds, its client status
 * (ACKED, NACKED, REQUESTED, DOES_NOT_EXIST), the NACK that failed it (error_state), and how that
 * compares with what this server has for the node (config_status). Read from the status the
 * replicas persist (status-reader.ts), so any replica answers for the whole fleet. Pure.
 *
 * The rules, from csds.proto and config_dump_shared.proto (envoy.admin.v3.ClientResourceStatus):
 * a name the node's latest ACK holds is ACKED, unless the NACK after that ACK rejected it (or
 * rejected the whole response): then NACKED, its version still the one held. A name subscribed
 * to and not held is REQUESTED when the node's snapshot has it (sent, or to be sent), and
 * DOES_NOT_EXIST when it does not: a SotW server says so by leaving it out (xDS protocol page,
 * "Knowing When a Requested Resource Does Not Exist"). A name rejected and never held is NACKED.
 */
import { create, type JsonValue } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  ClientResourceStatus,
  UpdateFailureStateSchema,
} from "@switchyard/proto/envoy/admin/v3/config_dump_shared_pb";
import { NodeSchema } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import {
  type ClientConfig,
  type ClientConfig_GenericXdsConfig,
  ClientConfig_GenericXdsConfigSchema,
  ClientConfigSchema,
  ConfigStatus,
} from "@switchyard/proto/envoy/service/status/v3/csds_pb";
import { isXdstp, parseXdstp, TypeUrl } from "@switchyard/snapshot";
import type { NodeRecord, NodeTypeRecord } from "./status-reader.js";

/**
 * What this server has for a node, per type: resource name → version. Undefined when it cannot
 * tell (no version served yet).
 */
export type ServedResources = (typeUrl: string) => ReadonlyMap<string, string> | undefined;

/** One node's ClientConfig: its identity and one GenericXdsConfig per resource, sorted. */
export function clientConfigOf(
  node: NodeRecord,
  served: ServedResources | undefined,
): ClientConfig {
  return create(ClientConfigSchema, {
    node: nodeMessage(node),
    genericXdsConfigs: node.types.flatMap((type) => resourceConfigs(type, served?.(type.typeUrl))),
  });
}

function nodeMessage(node: NodeRecord) {
  const locality = node.locality as { region?: string; zone?: string; subZone?: string } | null;
  return create(NodeSchema, {
    id: node.id,
    cluster: node.cluster,
    ...(isObject(node.metadata) ? { metadata: node.metadata } : {}),
    ...(locality ? { locality } : {}),
    userAgentName: node.userAgent.name,
    ...(node.userAgent.version === undefined
      ? {}
      : { userAgentVersionType: { case: "userAgentVersion", value: node.userAgent.version } }),
    clientFeatures: [...node.clientFeatures],
  });
}

function isObject(value: unknown): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A NACK is the type's current answer when no ACK came after it. */
function currentNack(type: NodeTypeRecord): NodeTypeRecord["lastNack"] {
  const nack = type.lastNack;
  if (nack === undefined) return undefined;
  return type.acked === undefined || nack.at >= type.acked.at ? nack : undefined;
}

function resourceConfigs(
  type: NodeTypeRecord,
  served: ReadonlyMap<string, string> | undefined,
): ClientConfig_GenericXdsConfig[] {
  const nack = currentNack(type);
  const rejectedAll = nack !== undefined && nack.rejected.length === 0;
  const rejected = new Set(nack?.rejected ?? []);
  const names = new Set([
    ...Object.keys(type.held),
    ...type.requested.filter((name) => !name.endsWith("*")),
    ...rejected,
  ]);
  const errorState =
    nack === undefined
      ? undefined
      : create(UpdateFailureStateSchema, {
          lastUpdateAttempt: timestampFromMs(nack.at),
          details: nack.errorDetail,
          versionInfo: nack.version,
        });
  return [...names].sort().map((name) => {
    const held = Object.hasOwn(type.held, name) ? (type.held[name] ?? "") : undefined;
    const isNacked =
      errorState !== undefined && (rejected.has(name) || (rejectedAll && held !== undefined));
    const want = servedVersion(served, name);
    const clientStatus = isNacked
      ? ClientResourceStatus.NACKED
      : held !== undefined
        ? ClientResourceStatus.ACKED
        : want === null || type.typeUrl === TypeUrl.VirtualHost
          ? ClientResourceStatus.REQUESTED
          : want === undefined
            ? ClientResourceStatus.DOES_NOT_EXIST
            : ClientResourceStatus.REQUESTED;
    return create(ClientConfig_GenericXdsConfigSchema, {
      typeUrl: type.typeUrl,
      name,
      versionInfo: held ?? "",
      ...(held !== undefined && type.acked !== undefined
        ? { lastUpdated: timestampFromMs(type.acked.at) }
        : {}),
      clientStatus,
      configStatus: configStatus(type, clientStatus, held, want),
      ...(isNacked ? { errorState } : {}),
    });
  });
}

/**
 * The version this server has for `name` (a stored name, or an xdstp:// name of one): undefined
 * when it has none, null when it cannot tell (nothing served yet, or a name it does not resolve
 * by itself, such as an xdstp:// glob).
 */
function servedVersion(
  served: ReadonlyMap<string, string> | undefined,
  name: string,
): string | null | undefined {
  if (served === undefined) return null;
  const direct = served.get(name);
  if (direct !== undefined || !isXdstp(name)) return direct;
  const parsed = parseXdstp(name);
  if (!parsed.ok || parsed.name.id.endsWith("*")) return null;
  return served.get(parsed.name.id);
}

/**
 * ConfigStatus (csds.proto), the server's side: ERROR for a NACKed resource; for one held,
 * SYNCED when it is the version the server has and STALE when the server has another or none; for one requested, STALE while a response of the type is unanswered (it may be in
 * it) and NOT_SENT otherwise; UNKNOWN when the server cannot tell.
 */
function configStatus(
  type: NodeTypeRecord,
  client: ClientResourceStatus,
  held: string | undefined,
  want: string | null | undefined,
): ConfigStatus {
  switch (client) {
    case ClientResourceStatus.NACKED:
      return ConfigStatus.ERROR;
    case ClientResourceStatus.REQUESTED:
      return type.status === "PENDING" || type.status === "STALE"
        ? ConfigStatus.STALE
        : ConfigStatus.NOT_SENT;
    case ClientResourceStatus.ACKED:
      // Held while the server has another version, or none any more: STALE.
      if (want === null || held === "" || held === undefined) return ConfigStatus.UNKNOWN;
      return want === held ? ConfigStatus.SYNCED : ConfigStatus.STALE;
    default:
      return ConfigStatus.UNKNOWN;
  }
}
