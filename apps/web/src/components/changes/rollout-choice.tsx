"use client";

import type { MessageInitShape } from "@bufbuild/protobuf";
import { useQuery } from "@connectrpc/connect-query";
import {
  type RolloutRequestSchema,
  RolloutService,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import { type ReactNode, useId, useState } from "react";
import { useCaller } from "@/components/access/use-caller";
import { inputClass } from "@/components/form/field";

export interface RolloutChoice {
  /** The radio buttons, the plan and the reason, for under the message. */
  readonly fields: ReactNode;
  /** PublishRequest.rollout; undefined: none (every node at once, no default plan applying). */
  readonly request: MessageInitShape<typeof RolloutRequestSchema> | undefined;
  /** Why the publish cannot go now (a reason to give), or undefined. */
  readonly problem: string | undefined;
}

/**
 * How a publish goes out: to every node at once, or as a rollout with a stored plan
 * (ListRolloutPlans), the admins' default plan chosen first when they set one. While a default
 * plan applies (or the caller's team requires rollouts), only an admin may publish to every node
 * at once, giving a reason for the audit log (RolloutRequest.skip_reason); the server decides
 * either way (rollout-start.ts).
 */
export function useRolloutChoice(disabled: boolean): RolloutChoice {
  const caller = useCaller();
  const plans = useQuery(RolloutService.method.listRolloutPlans, {});
  const [mode, setMode] = useState<"all" | "plan" | undefined>();
  const [chosenPlan, setChosenPlan] = useState<string | undefined>();
  const [skipReason, setSkipReason] = useState("");
  const name = useId();
  const reasonId = useId();
  const planId = useId();

  const stored = plans.data?.plans ?? [];
  const defaultPlan = plans.data?.defaultPlan ?? "";
  const admin = caller.role === "admin";
  // A publish without a plan would go out as the default plan, or be refused for the team.
  const mustRollOut = defaultPlan !== "" || caller.team?.requireRollout === true;
  const allAllowed = !mustRollOut || admin;
  const planAllowed = stored.length > 0;
  const current =
    mode === "plan" && planAllowed
      ? "plan"
      : mode === "all" && allAllowed
        ? "all"
        : defaultPlan !== "" && planAllowed
          ? "plan"
          : allAllowed
            ? "all"
            : "plan";
  const plan =
    stored.find((p) => p.name === chosenPlan) ??
    stored.find((p) => p.name === defaultPlan) ??
    stored[0];

  if (plans.error && !plans.data)
    return {
      fields: (
        <p role="alert" className="text-xs text-warning">
          The rollout plans could not be read ({plans.error.rawMessage}): the publish goes out as
          the server decides, with the admins' default plan if they set one.
        </p>
      ),
      request: undefined,
      problem: undefined,
    };
  if (!plans.data)
    return {
      fields: <p className="text-xs text-fg-subtle">Reading the rollout plans…</p>,
      request: undefined,
      problem: "Reading the rollout plans…",
    };

  const request =
    current === "plan"
      ? plan
        ? { plan: { case: "planName" as const, value: plan.name } }
        : undefined
      : mustRollOut
        ? { skipReason: skipReason.trim() }
        : undefined;
  const problem =
    current === "plan" && !plan
      ? "Your team requires rollouts and no plan is stored: an admin stores one (switchyard rollout plans put)."
      : current === "all" && mustRollOut && skipReason.trim() === ""
        ? "Give the reason to publish past the rollout plan."
        : undefined;

  const fields = (
    <fieldset className="flex flex-col gap-2" disabled={disabled}>
      <legend className="mb-1 text-sm font-medium text-fg">How it goes out</legend>
      <label className="flex items-start gap-2 text-sm">
        <input
          type="radio"
          name={name}
          className="mt-1"
          checked={current === "all"}
          disabled={!allAllowed}
          onChange={() => setMode("all")}
        />
        <span>
          All nodes at once
          {!allAllowed && (
            <span className="block text-xs text-fg-subtle">
              {defaultPlan !== ""
                ? `The admins' default plan “${defaultPlan}” applies: only an admin may skip it.`
                : "Your team requires its changes to go out as rollouts."}
            </span>
          )}
        </span>
      </label>
      {current === "all" && mustRollOut && (
        <div className="ml-6 flex flex-col gap-1">
          <label htmlFor={reasonId} className="text-xs font-medium text-fg">
            Reason to skip the rollout plan (recorded in the audit log)
          </label>
          <input
            id={reasonId}
            value={skipReason}
            onChange={(event) => setSkipReason(event.target.value)}
            placeholder="e.g. Incident 42: the fix must reach every proxy now"
            className={inputClass}
          />
        </div>
      )}
      <label className="flex items-start gap-2 text-sm">
        <input
          type="radio"
          name={name}
          className="mt-1"
          checked={current === "plan"}
          disabled={!planAllowed}
          onChange={() => setMode("plan")}
        />
        <span>
          As a rollout, in waves
          {!planAllowed && (
            <span className="block text-xs text-fg-subtle">
              No rollout plan is stored: admins store them with switchyard rollout plans put.
            </span>
          )}
        </span>
      </label>
      {current === "plan" && plan && (
        <div className="ml-6 flex flex-col gap-1">
          <label htmlFor={planId} className="text-xs font-medium text-fg">
            Rollout plan
          </label>
          <select
            id={planId}
            value={plan.name}
            onChange={(event) => setChosenPlan(event.target.value)}
            className={inputClass}
          >
            {stored.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
                {p.isDefault ? " (default)" : ""}
              </option>
            ))}
          </select>
          <p className="text-xs text-fg-muted">{plan.summary}</p>
        </div>
      )}
    </fieldset>
  );
  return { fields, request, problem };
}
