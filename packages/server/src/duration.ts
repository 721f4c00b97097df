/**
 * "30s", "500ms", "2m", "1h", "90d" (or a bare number of seconds) → ms; undefined when not a
 * duration. One grammar for every duration Switchyard reads (settings, `wait --timeout`, a
 * rollout's `--bake`): the pure rollout core's.
 */
export { durationMs } from "@switchyard/rollout";

export const DURATION_HINT = "use e.g. 500ms, 30s, 2m, 24h or 90d";
