/**
 * A node's recent changes (StatusService.GetNodeActivity) as the Nodes table's sparkline draws
 * and words them. Pure.
 */

/** One bucket's counts, as the API answers them (ActivityBucket). */
export interface ActivityCounts {
  readonly acks: number;
  readonly nacks: number;
  readonly connects: number;
  readonly disconnects: number;
}

/** A bar of the sparkline: ACKs, connection changes and NACKs stacked, NACKs drawn apart. */
export interface SparkBar {
  readonly index: number;
  readonly acks: number;
  readonly connections: number;
  readonly nacks: number;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "last hour", "last 30 minutes", "last 24 hours", "last 90 seconds". */
export function windowPhrase(seconds: number): string {
  const unit = (n: number, word: string) => (n === 1 ? `last ${word}` : `last ${n} ${word}s`);
  if (seconds % 3_600 === 0) return unit(seconds / 3_600, "hour");
  if (seconds % 60 === 0) return unit(seconds / 60, "minute");
  return unit(seconds, "second");
}

export function activityTotals(buckets: readonly ActivityCounts[]): ActivityCounts {
  const total = { acks: 0, nacks: 0, connects: 0, disconnects: 0 };
  for (const b of buckets) {
    total.acks += b.acks;
    total.nacks += b.nacks;
    total.connects += b.connects;
    total.disconnects += b.disconnects;
  }
  return total;
}

/**
 * The sparkline's words, for its accessible name and tooltip: "Last hour: 3 versions ACKed,
 * 1 NACK, 1 connect", kinds that did not happen left out; "Last hour: no changes". An ACK is
 * one type's version taken, so a publish a node takes in full counts one per type it changed.
 */
export function activityLabel(buckets: readonly ActivityCounts[], windowSeconds: number): string {
  const t = activityTotals(buckets);
  const parts = [
    t.acks > 0 ? `${plural(t.acks, "version", "versions")} ACKed` : "",
    t.nacks > 0 ? plural(t.nacks, "NACK", "NACKs") : "",
    t.connects > 0 ? plural(t.connects, "connect", "connects") : "",
    t.disconnects > 0 ? plural(t.disconnects, "disconnect", "disconnects") : "",
  ].filter((p) => p !== "");
  const phrase = windowPhrase(windowSeconds);
  const head = `${phrase[0]?.toUpperCase()}${phrase.slice(1)}`;
  return `${head}: ${parts.length === 0 ? "no changes" : parts.join(", ")}`;
}

/** The bars, oldest first. */
export function sparkBars(buckets: readonly ActivityCounts[]): SparkBar[] {
  return buckets.map((b, index) => ({
    index,
    acks: b.acks,
    connections: b.connects + b.disconnects,
    nacks: b.nacks,
  }));
}

/**
 * The bars' scale: the busiest bucket, but at least `floor`, so one ACK in an hour is a short
 * bar, not a full-height one.
 */
export function sparkMax(bars: readonly SparkBar[], floor = 4): number {
  return Math.max(floor, ...bars.map((b) => b.acks + b.connections + b.nacks));
}
