import type { VersionConvergence } from "@switchyard/proto/switchyard/v1/status_pb";
import { formatMs } from "./convergence";

/**
 * The fleet's convergence timeline (StatusService.ListVersionConvergence) as the Overview's chart
 * and History's column show it: per version, how long until half, 99% and all of the nodes
 * connected at its publish held it, and its NACKs.
 */

/** One point of the timeline chart, oldest version first. */
export interface TimelinePoint {
  readonly version: string;
  /** Seconds; undefined while not reached. */
  readonly to50: number | undefined;
  readonly to99: number | undefined;
  readonly to100: number | undefined;
  readonly nackedEver: number;
}

const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1_000);

/** The versions that targeted any node, oldest first (the chart reads left to right). */
export function timelinePoints(versions: readonly VersionConvergence[]): TimelinePoint[] {
  return versions
    .filter((v) => v.targeted > 0)
    .map((v) => ({
      version: `v${v.version}`,
      to50: seconds(v.msTo50),
      to99: seconds(v.msTo99),
      to100: seconds(v.msTo100),
      nackedEver: v.nackedEver,
    }))
    .reverse();
}

/** The share of the targets that hold the version, in whole percent, rounded down. */
export function convergedPercent(v: VersionConvergence): number {
  return v.targeted === 0 ? 0 : Math.floor((v.converged * 100) / v.targeted);
}

/**
 * One line saying how the version converged: "100% of 12 nodes in 1.2 s (50% 300 ms, 99% 1.2 s)",
 * "66% of 3 nodes, 2 NACKed (1 still) (50% 300 ms)", or "no nodes connected at publish".
 */
export function convergenceLine(v: VersionConvergence): string {
  if (v.targeted === 0) return "no nodes connected at publish";
  const nodes = `${v.targeted} node${v.targeted === 1 ? "" : "s"}`;
  const marks = [
    v.msTo50 === undefined ? undefined : `50% ${formatMs(v.msTo50)}`,
    v.msTo99 === undefined ? undefined : `99% ${formatMs(v.msTo99)}`,
  ].filter((m) => m !== undefined);
  const head =
    v.msTo100 !== undefined
      ? `100% of ${nodes} in ${formatMs(v.msTo100)}`
      : `${convergedPercent(v)}% of ${nodes}`;
  // Counted ever: a node that moved on to the next version no longer NACKs this one, but did.
  const nacks =
    v.nackedEver === 0
      ? []
      : [
          `${v.nackedEver} NACKed${v.nacked > 0 && v.nacked < v.nackedEver ? ` (${v.nacked} still)` : ""}`,
        ];
  const held = v.alreadyHeld > 0 && v.alreadyHeld === v.targeted ? ", unchanged for all" : "";
  return `${[head, ...nacks].join(", ")}${held}${marks.length > 0 ? ` (${marks.join(", ")})` : ""}`;
}
