import { toJson } from "@bufbuild/protobuf";
import { timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  ListNodesAtResponseSchema,
  type NodeHeldAt,
  NodeHeldAtSchema,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { TypeUrl, XDS_SERVICE_NAME } from "@switchyard/proto/type-url";
import { DURATION_HINT, durationMs } from "@switchyard/server/duration";
import { CliError } from "./client.js";
import { type Output, table } from "./output.js";
import type { StatusClient } from "./status-commands.js";

/** RFC 3339 with a time zone (2026-12-02T15:04:05Z, ...+01:00), as `--at` takes it. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/;

export const TIME_HINT =
  'use an RFC 3339 time (2026-12-02T15:04:05Z), "now", or a time ago: "2h ago" or "-2h"';

/**
 * `--at TIME` → ms since the epoch: an RFC 3339 time with its zone, "now", or a duration ago
 * ("2h ago", "-2h", "90m ago"; durations as everywhere else: 500ms, 30s, 2m, 24h, 90d).
 */
export function parseTime(text: string, now: number = Date.now()): number {
  const trimmed = text.trim();
  if (trimmed === "now") return now;
  const ago = /^(?:-\s*(\S+)|(\S+)\s+ago)$/.exec(trimmed);
  if (ago !== null) {
    const amount = ago[1] ?? ago[2] ?? "";
    const ms = durationMs(amount);
    if (ms === undefined)
      throw new CliError(`invalid time "${text}": "${amount}" is no duration (${DURATION_HINT})`);
    return now - ms;
  }
  if (RFC3339.test(trimmed)) {
    const ms = Date.parse(trimmed.replace(" ", "T"));
    if (!Number.isNaN(ms)) return ms;
  }
  throw new CliError(`invalid time "${text}": ${TIME_HINT}`);
}

function shortType(typeUrl: string): string {
  return XDS_SERVICE_NAME[typeUrl as TypeUrl] ?? typeUrl.split(".").pop() ?? typeUrl;
}

function when(timestamp: Parameters<typeof timestampDate>[0] | undefined): string {
  return timestamp ? timestampDate(timestamp).toISOString().replace("T", " ").slice(0, 19) : "-";
}

function connectedAt(held: NodeHeldAt): string {
  if (held.connected === undefined) return "unknown (no connect or disconnect in its history)";
  return `${held.connected ? "yes" : "no"}, since ${when(held.connectionSince)}`;
}

function outputFormat(value: string | undefined): "table" | "json" {
  const format = value ?? "table";
  if (format !== "table" && format !== "json")
    throw new CliError(`unknown output format "${format}": use table or json`);
  return format;
}

/** `switchyard node ID --at TIME`: what the node held at TIME, per type, from its history. */
export async function nodeAt(
  client: StatusClient,
  output: Output,
  id: string,
  options: { output?: string; at: string },
): Promise<void> {
  const format = outputFormat(options.output);
  const at = parseTime(options.at);
  const history = await client.getNodeHistory({ nodeId: id, at: timestampFromMs(at), limit: 1 });
  const held = history.heldAt;
  if (held === undefined)
    throw new CliError(
      `the server sent no answer for node "${id}" at ${when(timestampFromMs(at))}`,
    );
  if (format === "json") {
    output.out(`${JSON.stringify(toJson(NodeHeldAtSchema, held), null, 2)}\n`);
    return;
  }
  output.out(`node ${id} at ${when(held.at)} UTC\n`);
  output.out(`  ${"connected".padEnd(12)} ${connectedAt(held)}\n\n`);
  if (held.types.length === 0) {
    output.out(
      "no history of this node's types before then (never seen, or older than SWITCHYARD_HISTORY_RETENTION)\n",
    );
    return;
  }
  output.out(
    table(
      ["TYPE", "STATE", "HELD (ACKED)", "ACKED AT", "SENT", "SENT AT"],
      held.types.map((type) => [
        shortType(type.typeUrl),
        type.state,
        type.ackedVersion || "-",
        when(type.ackedAt),
        type.sentVersion || "-",
        when(type.sentAt),
      ]),
    ),
  );
  for (const type of held.types) {
    if (type.nackAt === undefined) continue;
    const still = type.state === "NACKED" ? "" : " (since answered with an ACK)";
    output.out(
      `\n${shortType(type.typeUrl)} NACK of version ${type.nackVersion} at ${when(type.nackAt)}${still}:\n`,
    );
    for (const line of type.nackErrorDetail.split("\n")) output.out(`  ${line}\n`);
  }
}

const TYPE_COLUMNS = [
  TypeUrl.Cluster,
  TypeUrl.ClusterLoadAssignment,
  TypeUrl.Listener,
  TypeUrl.RouteConfiguration,
].map((url) => [XDS_SERVICE_NAME[url], url] as const);

/** `switchyard nodes --at TIME`: every node with history, and the version of each type it held. */
export async function nodesAt(
  client: StatusClient,
  output: Output,
  options: { output?: string; at: string },
): Promise<void> {
  const format = outputFormat(options.output);
  const at = parseTime(options.at);
  const response = await client.listNodesAt({ at: timestampFromMs(at), limit: 10_000 });
  if (format === "json") {
    output.out(`${JSON.stringify(toJson(ListNodesAtResponseSchema, response), null, 2)}\n`);
    return;
  }
  if (response.nodes.length === 0) {
    output.out(`no node history at ${when(timestampFromMs(at))} UTC\n`);
    return;
  }
  output.out(
    table(
      ["ID", "CONNECTED", ...TYPE_COLUMNS.map(([name]) => name)],
      response.nodes.map((held) => [
        held.nodeId,
        held.connected === undefined ? "?" : held.connected ? "yes" : "no",
        ...TYPE_COLUMNS.map(([, url]) => {
          const type = held.types.find((t) => t.typeUrl === url);
          if (type === undefined) return "-";
          const version = type.ackedVersion || "-";
          return type.state === "ACKED" ? version : `${version} (${type.state})`;
        }),
      ]),
    ),
  );
  if (response.truncated) output.out("(more nodes than shown: the first 10,000 by id)\n");
}
