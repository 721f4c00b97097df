/**
 * Rollout plans between @switchyard/rollout and the API: a stored plan as its RolloutPlan
 * message (the structured fields, its YAML document and its one-line summary), and a plan that
 * does not read as InvalidArgument with each problem at its place in the document.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  type RolloutPlan as ApiRolloutPlan,
  RolloutFailureAction,
  RolloutPlanSchema,
  type RolloutWave,
  RolloutWaveSchema,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import {
  describePlan,
  PlanError,
  parsePlanDocument,
  planDocument,
  planOf,
  type RolloutPlan,
  type WavePlan,
  waveShareText,
} from "@switchyard/rollout";
import { stringify } from "yaml";
import type { StoredRolloutPlan } from "../store/rollout-plans.js";
import { invalidArgument } from "./errors.js";

function waveMessage(wave: WavePlan): RolloutWave {
  const share = wave.share;
  return create(RolloutWaveSchema, {
    share:
      share.t === "count"
        ? { case: "count", value: share.count }
        : share.t === "percent"
          ? { case: "percent", value: share.percent }
          : {
              case: "nodes",
              value: {
                ids: [...share.selector.ids],
                zone: share.selector.zone ?? "",
                metadata: { ...share.selector.metadata },
              },
            },
    bakeMs: wave.bakeMs,
    ackTimeoutMs: wave.ackTimeoutMs,
    shareText: waveShareText(wave.share),
    ...(wave.traffic
      ? {
          traffic: {
            maxErrorIncrease: wave.traffic.maxErrorIncrease,
            minRequests: wave.traffic.minRequests,
            failWithoutTraffic: wave.traffic.withoutTraffic === "fail",
          },
        }
      : {}),
  });
}

/** The document of `plan` as YAML, the text `rollout plans get` prints and a put reads back. */
export function planYaml(plan: RolloutPlan): string {
  return stringify(planDocument(plan), { lineWidth: 0 });
}

/**
 * The stored plan read back. Every stored document was read by this version's rules before it
 * was written; one that no longer reads (rules tightened since) is FailedPrecondition naming it,
 * so that it is put again rather than served half-understood.
 */
export function storedPlan(row: StoredRolloutPlan): RolloutPlan {
  try {
    return planOf(row.document);
  } catch (error) {
    if (error instanceof PlanError)
      throw new ConnectError(
        `rollout plan "${row.name}" as stored no longer reads (${error.message}): put it again`,
        Code.FailedPrecondition,
        undefined,
        undefined,
        error,
      );
    throw error;
  }
}

/** A plan's structured fields, document and summary (a stored plan adds who wrote it when). */
export function rolloutPlanMessage(plan: RolloutPlan, name: string): ApiRolloutPlan {
  return create(RolloutPlanSchema, {
    name,
    onFailure:
      plan.onFailure === "rollback" ? RolloutFailureAction.ROLLBACK : RolloutFailureAction.PAUSE,
    waves: plan.waves.map(waveMessage),
    document: planYaml(plan),
    summary: describePlan(plan),
  });
}

export function planMessage(row: StoredRolloutPlan, defaultName: string | null): ApiRolloutPlan {
  return create(RolloutPlanSchema, {
    ...rolloutPlanMessage(storedPlan(row), row.name),
    isDefault: row.name === defaultName,
    createdBy: row.createdBy,
    createTime: timestampFromDate(row.createdAt),
    updatedBy: row.updatedBy,
    updateTime: timestampFromDate(row.updatedAt),
  });
}

/**
 * A plan that does not read, as InvalidArgument: every problem a ValidationErrors issue at
 * `document: <where>` (a field path such as `waves[2].share`, or a YAML syntax error's line and
 * column), as route tests report theirs (route-test-messages.ts, routeTestProblems).
 */
export function planProblems(error: PlanError): ConnectError {
  return invalidArgument(
    `document: ${error.issues.length} problem(s) in the rollout plan`,
    error.issues.map((issue) => ({
      severity: "error",
      code: "invalid-rollout-plan",
      path: issue.path === "" ? "document" : `document: ${issue.path}`,
      message: issue.message,
    })),
  );
}

/**
 * How large a plan may be: the document put, and the document stored (YAML aliases could make
 * the second larger than the first). ListRolloutPlans answers every plan, so their number is
 * bounded too.
 */
export const ROLLOUT_PLAN_LIMITS = { documentBytes: 64 * 1024, plans: 1_000 } as const;

/**
 * The plan the document describes, named `name` (undefined: a plan given with a publish, whose
 * document names none or any); InvalidArgument with each problem otherwise.
 */
export function readPlan(name: string | undefined, document: string): RolloutPlan {
  const bytes = Buffer.byteLength(document, "utf8");
  if (bytes > ROLLOUT_PLAN_LIMITS.documentBytes)
    throw new ConnectError(
      `document: ${bytes} bytes, more than the ${ROLLOUT_PLAN_LIMITS.documentBytes} a rollout plan may hold`,
      Code.InvalidArgument,
    );
  let plan: RolloutPlan;
  try {
    plan = parsePlanDocument(document);
  } catch (error) {
    if (error instanceof PlanError) throw planProblems(error);
    throw error;
  }
  if (name === undefined) return plan;
  if (plan.name !== undefined && plan.name !== name)
    throw planProblems(
      new PlanError([
        {
          path: "name",
          message: `the document names plan "${plan.name}", but it is put as "${name}": make them the same, or leave name out`,
        },
      ]),
    );
  return { ...plan, name };
}
