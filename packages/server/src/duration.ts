/**
 * "30s", "500ms", "2m", "1h", "90d" (or a bare number of seconds) → ms; undefined when not a
 * duration.
 */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) return undefined;
  const unit =
    { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] ?? "s"] ?? 1_000;
  return Math.round(Number(match[1]) * unit);
}

export const DURATION_HINT = "use e.g. 500ms, 30s, 2m, 24h or 90d";
