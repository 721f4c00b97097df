/**
 * Rollout plans: how a published version reaches a node group in waves (issue 45). A plan is a
 * list of waves, each a share of the group's nodes: a count ("5"), a percentage of the nodes
 * connected when the wave starts ("10%"), or, for wave 1 only, a node selector (ids with globs,
 * a locality zone, metadata key=value pairs). Each wave has a bake time and gates: every node of
 * the wave ACKs within the ACK timeout, and, when the plan asks for it, the traffic gate (the
 * wave's error ratio on the clusters the version touched stays within `maxErrorIncrease`
 * percentage points of the nodes still on the previous version). The third gate of the issue,
 * the stored route tests, runs in the publish transaction as it does without a rollout, so a
 * version that breaks one never becomes a rollout; it has no field here.
 *
 * Plans come from a YAML (or JSON) document, `switchyard rollout plans put NAME -f FILE`:
 *
 * ```yaml
 * name: careful
 * onFailure: rollback        # or pause
 * bake: 2m                   # every wave's, unless the wave says otherwise
 * ackTimeout: 30s
 * traffic: { maxErrorIncrease: 2, minRequests: 100, withoutTraffic: pass }
 * waves:
 *   - nodes: { ids: ["edge-canary-*"], zone: eu-west-1a, metadata: { canary: "true" } }
 *   - { share: 5, traffic: false }   # judged by ACKs alone
 *   - { share: 50%, bake: 10m }
 *   - 100%
 * ```
 *
 * or from `publish`'s flags (`--waves 1,10%,50%,100% --bake 2m --ack-timeout 30s
 * --max-error-increase 2 --min-requests 100 --on-failure rollback`), which read as the same
 * document, so both are checked by one zod schema and a wrong value is named by where it was
 * written: `waves[2].share` in a document, `--waves item 3` on the command line.
 *
 * A plan is plain data (durations in ms), stored as it is in the rollout's state.
 */
import { parse as parseYaml, YAMLError } from "yaml";
import { type RefinementCtx, z } from "zod";

/** How many nodes a wave reaches, counting the waves before it (waves.ts). */
export type WaveShare =
  | { readonly t: "count"; readonly count: number }
  | { readonly t: "percent"; readonly percent: number }
  | { readonly t: "selector"; readonly selector: NodeSelector };

/** Wave 1 as chosen nodes; a node must match every part given (at least one is). */
export interface NodeSelector {
  /** Node ids or globs (minimatch: `*`, `?`, `[a-z]`, `{a,b}`); empty = any id. */
  readonly ids: readonly string[];
  /** The node's locality zone, exactly. */
  readonly zone?: string;
  /** Top-level string values of the node's metadata, each exactly. */
  readonly metadata: { readonly [key: string]: string };
}

/** The live control group comparison (gates.ts, trafficGate). */
export interface TrafficGatePlan {
  /** Percentage points the wave's error ratio may exceed the control group's by (2 = 2%). */
  readonly maxErrorIncrease: number;
  /** Requests each side needs, per cluster, before the ratios are compared. */
  readonly minRequests: number;
  /** What a bake that ends before a touched cluster had `minRequests` on both sides does. */
  readonly withoutTraffic: "pass" | "fail";
}

export interface WavePlan {
  readonly share: WaveShare;
  /** How long the wave runs once its nodes ACKed, before the next starts. */
  readonly bakeMs: number;
  /** How long each node of the wave has to ACK the version once it was sent. */
  readonly ackTimeoutMs: number;
  /** Absent: the wave is judged by ACKs alone. */
  readonly traffic?: TrafficGatePlan;
}

export interface RolloutPlan {
  /** A stored plan's name; absent for one written as `publish` flags. */
  readonly name?: string;
  /** When a gate fails: roll back every node that got the version, or pause for a person. */
  readonly onFailure: "rollback" | "pause";
  readonly waves: readonly WavePlan[];
}

/** One thing wrong with a plan: where (a field path, or a flag) and what. */
export interface PlanIssue {
  readonly path: string;
  readonly message: string;
}

/** A plan that cannot be used; `issues` says every problem found, each where it was written. */
export class PlanError extends Error {
  override readonly name = "PlanError";

  constructor(
    readonly issues: readonly PlanIssue[],
    options?: ErrorOptions,
  ) {
    super(
      issues
        .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
        .join("; "),
      options,
    );
  }
}

export const MAX_WAVES = 20;
export const MAX_BAKE_MS = 24 * 3_600_000;
export const MIN_ACK_TIMEOUT_MS = 1_000;
export const MAX_ACK_TIMEOUT_MS = 10 * 60_000;
export const MAX_WAVE_COUNT = 1_000_000;
export const MAX_MIN_REQUESTS = 1_000_000_000;
export const DEFAULT_BAKE_MS = 2 * 60_000;
export const DEFAULT_ACK_TIMEOUT_MS = 30_000;
export const DEFAULT_MIN_REQUESTS = 100;

const DURATION_HINT = "use e.g. 500ms, 30s, 2m or 1h";

/**
 * "30s", "500ms", "2m", "1h", "1d" (or a bare number of seconds) → ms; undefined when not a
 * duration. The grammar of every duration Switchyard reads (the server's settings and `wait
 * --timeout` read it from here), so that `--bake 2m` reads as `--timeout 2m` does.
 */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) return undefined;
  const unit =
    { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] ?? "s"] ?? 1_000;
  return Math.round(Number(match[1]) * unit);
}

/** `ms` in the largest unit that says it exactly: "2m", "90s", "500ms" (durationMs reads it back). */
export function durationText(ms: number): string {
  if (ms === 0) return "0s";
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1_000 === 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}

/** A duration as text or as seconds, in [min, max] ms. */
const duration = (what: string, min: number, max: number) =>
  z.union([z.string(), z.number()]).transform((value, context) => {
    const ms = typeof value === "number" ? Math.round(value * 1000) : durationMs(value);
    if (ms === undefined || !Number.isFinite(ms)) {
      context.addIssue({
        code: "custom",
        message: `"${value}" is not a duration: ${DURATION_HINT}`,
      });
      return z.NEVER;
    }
    if (ms < min || ms > max) {
      context.addIssue({
        code: "custom",
        message: `${what} ${durationText(ms)} is out of bounds: from ${durationText(min)} to ${durationText(max)}`,
      });
      return z.NEVER;
    }
    return ms;
  });

const SHARE_HINT =
  "a wave is a count of nodes (1, 5) or a percentage of the group's connected nodes (10%, 100%)";

const share = z.union([z.number(), z.string()]).transform((value, context): WaveShare => {
  const text = String(value).trim();
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(text);
  if (percent) {
    const p = Number(percent[1]);
    if (p > 0 && p <= 100) return { t: "percent", percent: p };
    context.addIssue({
      code: "custom",
      message: `${text}: a percentage must be above 0 and at most 100`,
    });
    return z.NEVER;
  }
  if (/^\d+$/.test(text)) {
    const count = Number(text);
    if (count >= 1 && count <= MAX_WAVE_COUNT) return { t: "count", count };
    context.addIssue({
      code: "custom",
      message: `${text}: a count of nodes must be from 1 to ${MAX_WAVE_COUNT}`,
    });
    return z.NEVER;
  }
  context.addIssue({ code: "custom", message: `"${text}" is not a wave share: ${SHARE_HINT}` });
  return z.NEVER;
});

const selector = z
  .strictObject({
    ids: z.array(z.string().min(1, "a node id or glob may not be empty")).default([]),
    zone: z.string().min(1, "a zone may not be empty").optional(),
    metadata: z.record(z.string().min(1), z.string()).default({}),
  })
  .refine((s) => s.ids.length > 0 || s.zone !== undefined || Object.keys(s.metadata).length > 0, {
    message: "a node selector needs ids, a zone or metadata",
  });

const traffic = z.strictObject({
  maxErrorIncrease: z
    .number({ error: "maxErrorIncrease is a number of percentage points (2 = 2%)" })
    .min(0, "maxErrorIncrease may not be negative")
    .max(100, "maxErrorIncrease is in percentage points: at most 100"),
  minRequests: z
    .number({ error: "minRequests is a number of requests" })
    .int("minRequests is a whole number of requests")
    .min(1, "minRequests must be at least 1")
    .max(MAX_MIN_REQUESTS, `minRequests may be at most ${MAX_MIN_REQUESTS}`)
    .default(DEFAULT_MIN_REQUESTS),
  withoutTraffic: z.enum(["pass", "fail"]).default("pass"),
});

const bake = duration("bake", 0, MAX_BAKE_MS);
const ackTimeout = duration("ackTimeout", MIN_ACK_TIMEOUT_MS, MAX_ACK_TIMEOUT_MS);

/** A wave written as its share alone (`- 10%`) is `{ share: 10% }`. */
const wave = z.preprocess(
  (value) => (typeof value === "object" && value !== null ? value : { share: value }),
  z.strictObject({
    share: share.optional(),
    nodes: selector.optional(),
    bake: bake.optional(),
    ackTimeout: ackTimeout.optional(),
    /** `false`: this wave is judged by ACKs alone, whatever the plan's `traffic`. */
    traffic: z.union([z.literal(false), traffic]).optional(),
  }),
);

const FULL: WaveShare = { t: "percent", percent: 100 };

function selectorOf(parsed: z.output<typeof selector>): NodeSelector {
  const { ids, zone, metadata } = parsed;
  return { ids, metadata, ...(zone !== undefined ? { zone } : {}) };
}

const NAME = /^[A-Za-z0-9._-]{1,100}$/;

const document = z
  .strictObject({
    name: z
      .string()
      .regex(NAME, "a plan's name is 1-100 letters, digits, '.', '_' or '-'")
      .optional(),
    onFailure: z.enum(["rollback", "pause"]).default("rollback"),
    bake: bake.default(DEFAULT_BAKE_MS),
    ackTimeout: ackTimeout.default(DEFAULT_ACK_TIMEOUT_MS),
    traffic: traffic.optional(),
    waves: z
      .array(wave)
      .min(1, "a plan needs at least one wave (the last is 100%)")
      .max(MAX_WAVES, `a plan has at most ${MAX_WAVES} waves`),
  })
  .superRefine(checkWaves)
  .transform(
    (doc): RolloutPlan => ({
      ...(doc.name !== undefined ? { name: doc.name } : {}),
      onFailure: doc.onFailure,
      waves: doc.waves.map((w) => {
        const gate = w.traffic === false ? undefined : (w.traffic ?? doc.traffic);
        return {
          // checkWaves refused a wave with neither a share nor a selector.
          share: w.nodes ? { t: "selector", selector: selectorOf(w.nodes) } : (w.share ?? FULL),
          bakeMs: w.bake ?? doc.bake,
          ackTimeoutMs: w.ackTimeout ?? doc.ackTimeout,
          ...(gate ? { traffic: gate } : {}),
        };
      }),
    }),
  );

/**
 * The rules across waves: a wave is a share or (wave 1 only) a selector; counts come before
 * percentages, since a count cannot be compared with a percentage before the group's size is
 * known; each kind strictly increases; the last wave is 100%, so that a rollout that completes
 * has reached every node.
 */
function checkWaves(
  doc: { waves: readonly { share?: WaveShare | undefined; nodes?: unknown }[] },
  context: RefinementCtx,
): void {
  const issue = (path: (string | number)[], message: string) =>
    context.addIssue({ code: "custom", path, message });
  let last: WaveShare | undefined;
  doc.waves.forEach((w, i) => {
    if (w.nodes !== undefined && i > 0)
      issue(
        ["waves", i, "nodes"],
        "only wave 1 may be a node selector; later waves are shares of the group",
      );
    if (w.nodes !== undefined && w.share !== undefined)
      issue(["waves", i], "a wave is a share or a node selector (nodes), not both");
    if (w.nodes === undefined && w.share === undefined)
      issue(["waves", i], `a wave needs a share: ${SHARE_HINT}`);
    const current = w.share;
    if (current === undefined || current.t === "selector") return;
    if (last?.t === "percent" && current.t === "count")
      issue(
        ["waves", i, "share"],
        `a count (${current.count}) may not follow a percentage (${last.percent}%)`,
      );
    else if (last?.t === "count" && current.t === "count" && current.count <= last.count)
      issue(
        ["waves", i, "share"],
        `waves must grow: ${current.count} is not more than ${last.count}`,
      );
    else if (last?.t === "percent" && current.t === "percent" && current.percent <= last.percent)
      issue(
        ["waves", i, "share"],
        `waves must grow: ${current.percent}% is not more than ${last.percent}%`,
      );
    last = current;
  });
  const final = doc.waves.at(-1);
  const n = doc.waves.length - 1;
  if (final && !(final.share?.t === "percent" && final.share.percent === 100))
    issue(
      ["waves", n],
      "the last wave must be 100%: a rollout that completes has reached every node",
    );
}

/** `waves[2].share` from zod's ["waves", 2, "share"]. */
function pathText(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) =>
      typeof part === "number" ? `[${part}]` : `${i > 0 ? "." : ""}${String(part)}`,
    )
    .join("");
}

function issuesOf(error: z.ZodError): PlanIssue[] {
  return error.issues.map((issue) => ({ path: pathText(issue.path), message: issue.message }));
}

/** A plan from its document as parsed (YAML or JSON); throws PlanError. */
export function planOf(value: unknown): RolloutPlan {
  const result = document.safeParse(value);
  if (!result.success) throw new PlanError(issuesOf(result.error), { cause: result.error });
  return result.data;
}

/** A plan from the text of a YAML or JSON document; throws PlanError, with the line of a syntax error. */
export function parsePlanDocument(text: string): RolloutPlan {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error: unknown) {
    if (error instanceof YAMLError) {
      const at = error.linePos?.[0];
      const where = at ? `line ${at.line}, column ${at.col}` : "";
      throw new PlanError(
        [{ path: where, message: error.message.split("\n")[0] ?? error.message }],
        {
          cause: error,
        },
      );
    }
    // An alias bomb (aliases that expand past the yaml package's maxAliasCount) is refused with a
    // ReferenceError of its own, not a YAMLError: the document's fault all the same.
    if (error instanceof ReferenceError && /alias/i.test(error.message))
      throw new PlanError([{ path: "", message: error.message }], { cause: error });
    throw error;
  }
  return planOf(value);
}

/** `publish`'s rollout flags, as given (commander hands over strings). */
export interface InlinePlanFlags {
  /** "1,10%,50%,100%" */
  readonly waves: string;
  readonly bake?: string;
  readonly ackTimeout?: string;
  readonly maxErrorIncrease?: string;
  readonly minRequests?: string;
  readonly onFailure?: string;
}

/** A number where the text is one, else the text, for the schema to name. */
function numeric(text: string): number | string {
  return /^\s*-?\d+(\.\d+)?\s*$/.test(text) ? Number(text) : text;
}

const FLAG_OF: { readonly [field: string]: string } = {
  bake: "--bake",
  ackTimeout: "--ack-timeout",
  onFailure: "--on-failure",
  maxErrorIncrease: "--max-error-increase",
  minRequests: "--min-requests",
};

/** The plan of `publish --waves ... [--bake ...]`; throws PlanError naming the flag. */
export function inlinePlan(flags: InlinePlanFlags): RolloutPlan {
  const items = flags.waves.split(",").map((item) => item.trim());
  if (flags.minRequests !== undefined && flags.maxErrorIncrease === undefined)
    throw new PlanError([
      {
        path: "--min-requests",
        message: "needs --max-error-increase (the traffic gate it sets up)",
      },
    ]);
  const doc = {
    waves: items,
    ...(flags.bake !== undefined ? { bake: flags.bake } : {}),
    ...(flags.ackTimeout !== undefined ? { ackTimeout: flags.ackTimeout } : {}),
    ...(flags.onFailure !== undefined ? { onFailure: flags.onFailure } : {}),
    ...(flags.maxErrorIncrease !== undefined
      ? {
          traffic: {
            maxErrorIncrease: numeric(flags.maxErrorIncrease),
            ...(flags.minRequests !== undefined ? { minRequests: numeric(flags.minRequests) } : {}),
          },
        }
      : {}),
  };
  const result = document.safeParse(doc);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue): PlanIssue => {
    const [first, second] = issue.path;
    if (first === "waves" && typeof second === "number")
      return {
        path: `--waves item ${second + 1} ("${items[second] ?? ""}")`,
        message: issue.message,
      };
    if (first === "waves") return { path: "--waves", message: issue.message };
    const field = first === "traffic" ? second : first;
    return { path: FLAG_OF[String(field)] ?? pathText(issue.path), message: issue.message };
  });
  throw new PlanError(issues, { cause: result.error });
}
