/**
 * A rollout (RolloutService's Rollout message) as `switchyard rollout status`, `rollout list`,
 * the steering commands and `wait` print it: its phase in words, a line for lists and logs, and
 * the whole status (waves, the current gates with their figures, which node runs which version,
 * and why it failed). Rendering only: the figures and sentences are the server's.
 */
import { type Timestamp, timestampDate } from "@bufbuild/protobuf/wkt";
import {
  type Rollout,
  RolloutAckState,
  type RolloutClusterFigures,
  RolloutPhase,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import { table } from "./output.js";

export const PHASE_WORD: Record<RolloutPhase, string> = {
  [RolloutPhase.UNSPECIFIED]: "?",
  [RolloutPhase.APPLYING]: "applying",
  [RolloutPhase.BAKING]: "baking",
  [RolloutPhase.PAUSED]: "paused",
  [RolloutPhase.ROLLING_BACK]: "rolling back",
  [RolloutPhase.COMPLETED]: "completed",
  [RolloutPhase.FAILED]: "failed",
  [RolloutPhase.ABORTED]: "aborted",
};

const ACK_WORD: Record<RolloutAckState, string> = {
  [RolloutAckState.UNSPECIFIED]: "-",
  [RolloutAckState.PENDING]: "pending",
  [RolloutAckState.ACKED]: "acked",
  [RolloutAckState.NACKED]: "NACKED",
};

/** Whether the rollout has ended: nothing changes any more. */
export function hasEnded(rollout: Rollout): boolean {
  return (
    rollout.phase === RolloutPhase.COMPLETED ||
    rollout.phase === RolloutPhase.FAILED ||
    rollout.phase === RolloutPhase.ABORTED
  );
}

/** "rollout 3 (node group "default", version 4 → 5): wave 1 of 2 baking, ...": a log line. */
export function rolloutLine(rollout: Rollout): string {
  return `rollout ${rollout.id} (node group "${rollout.group}", version ${rollout.fromVersion} → ${rollout.toVersion}): ${rollout.summary}`;
}

/**
 * Why an ended rollout did not complete, as `wait` ends with: its summary (which holds the
 * failure's sentence when it failed), and the failure it was aborted after, if any.
 */
export function endedText(rollout: Rollout): string {
  const after =
    rollout.phase === RolloutPhase.ABORTED && rollout.failure !== undefined
      ? `; it had failed: ${rollout.failure.message}`
      : "";
  return `rollout ${rollout.id} ${rollout.summary}${after}`;
}

/** UTC, to the second, as `switchyard history` prints times. */
function when(timestamp: Timestamp | undefined): string {
  return timestamp ? timestampDate(timestamp).toISOString().replace("T", " ").slice(0, 19) : "-";
}

/** "07:40:03", UTC. */
function clock(timestamp: Timestamp | undefined): string {
  return timestamp ? timestampDate(timestamp).toISOString().slice(11, 19) : "-";
}

/** "2.5% of 400" (the errors of the requests), "no requests". */
function ratio(requests: bigint, errors: bigint): string {
  if (requests === 0n) return "no requests";
  return `${((Number(errors) / Number(requests)) * 100).toFixed(1)}% of ${requests}`;
}

function figuresTable(clusters: readonly RolloutClusterFigures[], indent: string): string {
  return table(
    ["CLUSTER", "CANARY (NEW VERSION)", "CONTROL (PREVIOUS)"],
    clusters.map((c) => [
      c.cluster,
      ratio(c.canaryRequests, c.canaryErrors),
      ratio(c.controlRequests, c.controlErrors),
    ]),
  )
    .split("\n")
    .map((line) => (line === "" ? line : `${indent}${line}`))
    .join("\n");
}

/** `rollout list`: one row per rollout. */
export function rolloutTable(rollouts: readonly Rollout[]): string {
  return table(
    ["ID", "GROUP", "VERSION", "PHASE", "WAVE", "STARTED (UTC)", "BY", "SUMMARY"],
    rollouts.map((r) => [
      String(r.id),
      r.group,
      `${r.fromVersion} → ${r.toVersion}`,
      PHASE_WORD[r.phase],
      `${r.wave}/${r.plan?.waves.length ?? "?"}`,
      when(r.startTime),
      r.createdBy,
      r.summary,
    ]),
  );
}

/** `rollout status`: the whole rollout, as text. */
export function rolloutStatus(rollout: Rollout): string {
  const waves = rollout.plan?.waves ?? [];
  const lines: string[] = [];
  const plan =
    rollout.planName === "" ? "a plan given with the publish" : `plan ${rollout.planName}`;
  lines.push(
    `rollout ${rollout.id}: version ${rollout.fromVersion} → ${rollout.toVersion} in node group "${rollout.group}" (${plan})`,
  );
  const rows: Array<[string, string]> = [
    ["published", `by ${rollout.createdBy || "-"}: ${rollout.message || "-"}`],
    [
      "phase",
      `${PHASE_WORD[rollout.phase]}, wave ${rollout.wave} of ${waves.length}, since ${when(rollout.phaseTime)}${rollout.by ? ` (by ${rollout.by})` : ""}`,
    ],
    ["summary", rollout.summary],
    ["plan", rollout.plan?.summary ?? "-"],
    ["clusters", rollout.clusters.length > 0 ? rollout.clusters.join(", ") : "none touched"],
    [
      "nodes",
      `${rollout.nodesOnNew} of ${rollout.nodesConnected} connected on version ${rollout.toVersion}, ${rollout.nodesOnPrevious} on version ${rollout.fromVersion}`,
    ],
  ];
  for (const [label, value] of rows) lines.push(`  ${label.padEnd(9)} ${value}`);
  if (rollout.failure !== undefined) {
    const label =
      rollout.phase === RolloutPhase.PAUSED
        ? "paused on"
        : rollout.phase === RolloutPhase.ABORTED
          ? "aborted after"
          : "failure";
    lines.push(`  ${label.padEnd(9)} ${rollout.failure.message}`);
  }
  if (rollout.supersededBy > 0n)
    lines.push(`  ${"superseded".padEnd(9)} by version ${rollout.supersededBy}`);
  if (rollout.unconfirmed.length > 0)
    lines.push(
      `  ${"unconfirmed".padEnd(9)} sent version ${rollout.fromVersion} back, no ACK yet: ${rollout.unconfirmed.join(", ")}`,
    );

  const timeline = waves.map((planned, i) => {
    const wave = rollout.waves.find((w) => w.wave === i + 1);
    if (wave === undefined) return [String(i + 1), planned?.shareText || "-", "-", "-", "-"];
    const ended =
      wave.ended !== ""
        ? `${wave.ended} ${clock(wave.endTime)}`
        : wave.wave === rollout.wave && !hasEnded(rollout)
          ? `(${PHASE_WORD[rollout.phase]})`
          : "-";
    return [String(wave.wave), wave.share, String(wave.sent), when(wave.startTime), ended];
  });
  lines.push("", table(["WAVE", "SHARE", "SENT", "STARTED (UTC)", "ENDED (UTC)"], timeline));

  const gates = rollout.gates;
  if (gates !== undefined) {
    lines.push(`gates of wave ${gates.wave}:`);
    lines.push(
      `  ACK      ${gates.ack}: ${gates.acked} acked, ${gates.pending} pending, ${gates.nacked} nacked${gates.ackDeadline ? `, deadline ${when(gates.ackDeadline)}` : ""}`,
    );
    if (gates.traffic !== "") {
      lines.push(
        `  traffic  ${gates.traffic}: errors at most ${gates.maxErrorIncrease} points above the previous version's, over ${gates.minRequests} requests each side`,
      );
      if (gates.clusters.length > 0) lines.push(figuresTable(gates.clusters, "    ").trimEnd());
    }
    if (gates.bakeEndTime) lines.push(`  bake     ends ${when(gates.bakeEndTime)}`);
    lines.push("");
  }
  if (rollout.failure !== undefined && rollout.failure.clusters.length > 0) {
    lines.push(`figures of the failed gate (wave ${rollout.failure.wave}):`);
    lines.push(figuresTable(rollout.failure.clusters, "  ").trimEnd(), "");
  }

  if (rollout.nodes.length > 0) {
    lines.push(
      table(
        ["NODE", "CONNECTED", "VERSION", "WAVE", "ACK"],
        rollout.nodes.map((n) => [
          n.nodeId,
          n.connected ? "yes" : "no",
          String(n.version),
          n.wave === 0 ? "-" : String(n.wave),
          n.nackDetail === "" ? ACK_WORD[n.ack] : `${ACK_WORD[n.ack]}: ${n.nackDetail}`,
        ]),
      ).trimEnd(),
    );
    if (rollout.nodesTruncated) lines.push("  ... and more nodes (-o json --nodes N lists more)");
  }
  return `${lines.join("\n")}\n`;
}
