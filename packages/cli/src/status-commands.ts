import { create, toJson } from "@bufbuild/protobuf";
import { type Timestamp, timestampDate, timestampMs } from "@bufbuild/protobuf/wkt";
import { type Client, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import {
  type Convergence,
  ListNodesResponseSchema,
  NodeConvergenceState,
  NodeDetailSchema,
  type NodeSummary,
  NodeTypeStatus,
  StatusService,
  TypeConvergenceState,
  type TypeStatus,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { TypeUrl, XDS_SERVICE_NAME } from "@switchyard/proto/type-url";
import { DURATION_HINT, durationMs } from "@switchyard/server/duration";
import { CliError, credentials } from "./client.js";
import { type Output, table } from "./output.js";
import {
  errorRatioBreach,
  parseErrorRatio,
  trafficHeading,
  trafficTable,
} from "./rollout-traffic.js";

export type StatusClient = Client<typeof StatusService>;

/** A StatusService client (read-only: no author header needed, no auth yet). */
export function connectStatus(
  server: string,
  interceptors: Interceptor[] = [credentials(server)],
): StatusClient {
  return createClient(
    StatusService,
    createConnectTransport({
      baseUrl: server,
      httpVersion: "1.1",
      interceptors,
    }),
  );
}

/** The xDS types shown as columns, by their usual short names. */
const TYPE_COLUMNS = [
  TypeUrl.Cluster,
  TypeUrl.ClusterLoadAssignment,
  TypeUrl.Listener,
  TypeUrl.RouteConfiguration,
].map((url) => [XDS_SERVICE_NAME[url], url] as const);

/** "CDS" for a known type URL, else its message name ("Secret"). */
function shortType(typeUrl: string): string {
  return XDS_SERVICE_NAME[typeUrl as TypeUrl] ?? typeUrl.split(".").pop() ?? typeUrl;
}

const statusWord: Record<NodeTypeStatus, string> = {
  [NodeTypeStatus.UNSPECIFIED]: "?",
  [NodeTypeStatus.SYNCED]: "SYNCED",
  [NodeTypeStatus.NOT_SENT]: "NOT_SENT",
  [NodeTypeStatus.PENDING]: "PENDING",
  [NodeTypeStatus.STALE]: "STALE",
  [NodeTypeStatus.NACKED]: "NACKED",
};

/** UTC, to the second, as `switchyard history` prints times. */
function when(timestamp: Timestamp | undefined): string {
  return timestamp ? timestampDate(timestamp).toISOString().replace("T", " ").slice(0, 19) : "-";
}

function outputFormat(value: string | undefined): "table" | "json" {
  const format = value ?? "table";
  if (format !== "table" && format !== "json")
    throw new CliError(`unknown output format "${format}": use table or json`);
  return format;
}

function connectedText(node: NodeSummary): string {
  return node.connected
    ? `yes, since ${when(node.connectedSince)}`
    : `no, since ${when(node.disconnectedAt)}`;
}

/** `switchyard nodes`: one line per node, its connection and each type's status. */
export async function nodes(
  client: StatusClient,
  output: Output,
  options: { output?: string },
): Promise<void> {
  const format = outputFormat(options.output);
  // Every page (the server answers a bounded page at a time), as one answer.
  const response = create(ListNodesResponseSchema, {});
  let pageToken = "";
  do {
    const page = await client.listNodes({ pageToken });
    response.nodes.push(...page.nodes);
    pageToken = page.nextPageToken;
  } while (pageToken !== "");
  if (format === "json") {
    output.out(`${JSON.stringify(toJson(ListNodesResponseSchema, response), null, 2)}\n`);
    return;
  }
  if (response.nodes.length === 0) {
    output.out("no nodes have connected yet\n");
    return;
  }
  output.out(
    table(
      ["ID", "CONNECTED", ...TYPE_COLUMNS.map(([name]) => name)],
      response.nodes.map((node) => [
        node.id,
        connectedText(node),
        ...TYPE_COLUMNS.map(([, url]) => {
          const type = node.types.find((t) => t.typeUrl === url);
          return type ? statusWord[type.status] : "-";
        }),
      ]),
    ),
  );
}

function typeRow(type: TypeStatus): string[] {
  return [
    shortType(type.typeUrl),
    statusWord[type.status],
    type.sentVersion || "-",
    when(type.sentTime),
    type.ackedVersion || "-",
    when(type.ackedTime),
  ];
}

/** `switchyard node ID`: identity, per-type status, NACK text in full, held resources, events. */
export async function node(
  client: StatusClient,
  output: Output,
  id: string,
  options: { output?: string } = {},
): Promise<void> {
  const format = outputFormat(options.output);
  const detail = await client.getNode({ id });
  if (format === "json") {
    output.out(`${JSON.stringify(toJson(NodeDetailSchema, detail), null, 2)}\n`);
    return;
  }
  const summary = detail.summary;
  if (summary === undefined) throw new CliError(`the server sent no summary for node "${id}"`);
  const userAgent = [summary.userAgentName, summary.userAgentVersion].filter(Boolean).join(" ");
  const identity: Array<[string, string]> = [
    ["cluster", summary.cluster || "-"],
    [
      "connected",
      `${connectedText(summary)}${summary.connected ? ` (${summary.openStreams} stream${summary.openStreams === 1 ? "" : "s"})` : ""}`,
    ],
    ["replica", summary.replica || "-"],
    ["variant", summary.variant || "-"],
    ["user agent", userAgent || "-"],
    ["address", summary.remoteAddress || "-"],
    ["credential", summary.authenticatedAs || "none (the xDS port requires none)"],
  ];
  output.out(`node ${summary.id}\n`);
  for (const [label, value] of identity) output.out(`  ${label.padEnd(12)} ${value}\n`);

  output.out("\n");
  if (summary.types.length === 0) output.out("no xDS types requested yet\n");
  else
    output.out(
      table(["TYPE", "STATUS", "SENT", "SENT AT", "ACKED", "ACKED AT"], summary.types.map(typeRow)),
    );

  for (const type of summary.types) {
    if (type.nackMessage === "") continue;
    const still = type.status === NodeTypeStatus.NACKED ? "" : " (since recovered)";
    output.out(
      `\n${shortType(type.typeUrl)} NACK of version ${type.nackVersion} at ${when(type.nackTime)}${still}:\n`,
    );
    for (const line of type.nackMessage.split("\n")) output.out(`  ${line}\n`);
    output.out(
      `  rejected: ${type.nackRejected.length > 0 ? type.nackRejected.join(", ") : "the whole response (the client named no resource)"}\n`,
    );
  }

  const heldBack = summary.types.flatMap((type) =>
    type.heldBack.map((resource) => [
      shortType(type.typeUrl),
      resource.name,
      resource.version,
      resource.reason.case === "needs"
        ? `needs ${shortType(resource.reason.value.typeUrl)} ${resource.reason.value.name}`
        : "rejected by the node",
    ]),
  );
  if (heldBack.length > 0) {
    output.out("\nheld back (not sent because of NACKs; everything else goes out):\n");
    output.out(table(["TYPE", "NAME", "VERSION", "WHY"], heldBack));
  }

  output.out("\nheld resources:\n");
  if (detail.held.every((held) => Object.keys(held.resources).length === 0)) output.out("  none\n");
  for (const held of detail.held) {
    const names = Object.keys(held.resources).sort();
    if (names.length === 0) continue;
    output.out(`  ${shortType(held.typeUrl)} (${names.length})\n`);
    for (const name of names) {
      const version = held.resources[name];
      output.out(`    ${name}${version ? `  ${version}` : ""}\n`);
    }
  }

  output.out("\nrecent events:\n");
  if (detail.events.length === 0) output.out("  none\n");
  else
    output.out(
      table(
        ["TIME (UTC)", "KIND", "TYPE", "DETAIL"],
        detail.events.map((e) => [
          when(e.time),
          e.kind,
          e.typeUrl ? shortType(e.typeUrl) : "-",
          e.detail,
        ]),
      ),
    );
}

/** "30s", "500ms", "2m", "1h" (or a bare number of seconds) → ms. */
export function parseDuration(text: string): number {
  const ms = durationMs(text);
  if (ms === undefined) throw new CliError(`invalid duration "${text}": ${DURATION_HINT}`);
  return ms;
}

const typeStateWord: Record<TypeConvergenceState, string> = {
  [TypeConvergenceState.UNSPECIFIED]: "?",
  [TypeConvergenceState.IN_SYNC]: "in sync",
  [TypeConvergenceState.BEHIND]: "behind",
  [TypeConvergenceState.NACKED]: "NACKED",
  [TypeConvergenceState.UNKNOWN]: "unknown",
};

/** How often `wait` asks; the status reaches the database every 250 ms anyway. */
export const WAIT_POLL_MS = 250;
/** Two status flush intervals: by then every node connected at the publish is in the database. */
const STATUS_SETTLE_MS = 600;

export interface WaitDeps {
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** How often `wait` reads the touched clusters' traffic (proxies report every 10 s by default). */
export const TRAFFIC_POLL_MS = 2_000;

export interface WaitOptions {
  readonly version: string;
  readonly timeout?: string;
  /** Print the rollout as it goes, then the touched clusters' traffic until the timeout. */
  readonly watch?: boolean;
  /** Fail when a touched cluster's error ratio after the publish goes above this. */
  readonly maxErrorRatio?: string;
}

/**
 * `switchyard wait --version V [--timeout 30s]`: polls the version's convergence until every
 * targeted (connected) node ACKed it (returns), a node NACKed it, or the timeout; the latter two
 * throw a CliError (exit 1) with the NACK text or the laggards' per-type state. For CI pipelines.
 *
 * With `--watch` or `--max-error-ratio` it observes the rollout until the timeout instead of
 * returning at convergence: `--watch` prints each change of the counts and of the touched
 * clusters' traffic (rollout-traffic.ts); `--max-error-ratio` fails as soon as a touched
 * cluster's error ratio after the publish is above it. A NACK still ends it at once.
 */
export async function waitForVersion(
  client: StatusClient,
  output: Output,
  options: WaitOptions,
  deps: WaitDeps = {},
): Promise<void> {
  if (!/^\d+$/.test(options.version) || BigInt(options.version) === 0n)
    throw new CliError(`invalid version "${options.version}": use a published version number`);
  const version = BigInt(options.version);
  const timeoutMs = parseDuration(options.timeout ?? "30s");
  const maxErrorRatio =
    options.maxErrorRatio === undefined ? undefined : parseErrorRatio(options.maxErrorRatio);
  const observing = options.watch === true || maxErrorRatio !== undefined;
  const now = deps.now ?? Date.now;
  const sleep =
    deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = now() + timeoutMs;
  let lastProgress = "";
  let lastTraffic = "";
  let lastHeading = "";
  let trafficDueAt = 0;
  let converged = false;
  for (;;) {
    const convergence = await client.getConvergence({ version });
    const summary = convergence.summary;
    const targeted = summary?.targeted ?? 0;
    // Node status reaches the database in batches (every 250 ms): a node that connected just
    // before the publish may not be listed yet. Success waits until the publish is old enough
    // for every replica to have written its nodes.
    const publishedMs = convergence.publishTime ? timestampMs(convergence.publishTime) : 0;
    const settled = now() >= publishedMs + STATUS_SETTLE_MS;
    const allAcked = (summary?.acked ?? 0) === targeted;
    const progress =
      targeted === 0
        ? `version ${version}: no connected nodes are targeted; nothing to wait for`
        : allAcked
          ? `version ${version}: ${targeted}/${targeted} nodes in sync, p99 ${summary?.p99Ms === undefined ? "-" : `${summary.p99Ms} ms`}${connectedLaterText(summary?.connectedLater ?? 0)}`
          : `version ${version}: ${summary?.acked ?? 0}/${targeted} nodes in sync, ${summary?.nacked ?? 0} rejected, ${summary?.pending ?? 0} pending`;
    if (options.watch && progress !== lastProgress && (settled || !allAcked)) {
      output.out(`${clock(now())}  ${progress}\n`);
      lastProgress = progress;
    }
    if (targeted === 0 || allAcked) {
      if (targeted > 0 && !settled && now() < deadline) {
        await sleep(
          Math.max(0, Math.min(publishedMs + STATUS_SETTLE_MS - now(), deadline - now())),
        );
        continue;
      }
      if (!observing) {
        output.out(`${progress}\n`);
        return;
      }
      converged = true;
    } else converged = false;
    const nacked = convergence.nodes.filter((n) => n.state === NodeConvergenceState.NACKED);
    if (nacked.length > 0) throw new CliError(nackText(convergence, nacked));
    if (observing && now() >= trafficDueAt) {
      const traffic = await client.getRolloutTraffic({ version });
      trafficDueAt = now() + TRAFFIC_POLL_MS;
      // Printed when the figures change, not the seconds since the publish.
      const text = trafficTable(traffic);
      if (options.watch && text !== lastTraffic)
        output.out(`${clock(now())}  ${trafficHeading(traffic)}${text}`);
      lastTraffic = text;
      lastHeading = trafficHeading(traffic);
      const breach =
        maxErrorRatio === undefined ? undefined : errorRatioBreach(traffic, maxErrorRatio);
      if (breach !== undefined) throw breach;
    }
    if (now() >= deadline) {
      if (!converged) throw new CliError(laggardText(convergence, options.timeout ?? "30s"));
      if (!options.watch) output.out(`${progress}\n${lastHeading}${lastTraffic}`);
      return;
    }
    await sleep(Math.max(0, Math.min(WAIT_POLL_MS, deadline - now())));
  }
}

/**
 * The nodes left out of the percentiles because they connected after the publish (their time to
 * ACK measures when they came): " (and 2 nodes that connected later)", or nothing.
 */
export function connectedLaterText(count: number): string {
  return count === 0
    ? ""
    : ` (and ${count} node${count === 1 ? "" : "s"} that connected later, not in the p99)`;
}

/** "12:00:05", UTC, the time a watch line was printed. */
function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

function nackText(convergence: Convergence, nacked: Convergence["nodes"]): string {
  const lines = [`version ${convergence.version} was rejected by ${nacked.length} node(s):`];
  for (const node of nacked) {
    lines.push(`  ${node.nodeId}: ${shortType(node.nackTypeUrl)} NACK:`);
    for (const line of node.nackMessage.split("\n")) lines.push(`    ${line}`);
  }
  return lines.join("\n");
}

function laggardText(convergence: Convergence, timeout: string): string {
  const summary = convergence.summary;
  const laggards = convergence.nodes.filter((n) => n.state !== NodeConvergenceState.ACKED);
  const lines = [
    `version ${convergence.version}: ${summary?.acked ?? 0}/${summary?.targeted ?? 0} nodes in sync after ${timeout}; waiting on:`,
  ];
  for (const node of laggards) {
    const types = node.types.map((t) => `${shortType(t.typeUrl)} ${typeStateWord[t.state]}`);
    lines.push(
      `  ${node.nodeId} (group ${node.group || "-"}): ${types.length === 0 ? "no xDS types requested yet" : types.join(", ")}`,
    );
  }
  return lines.join("\n");
}
