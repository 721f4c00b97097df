import { Code } from "@connectrpc/connect";
import { ValidationErrorsSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { PlanError, parsePlanDocument, planDocument } from "@switchyard/rollout";
import { describe, expect, it } from "vitest";
import type { StoredRolloutPlan } from "../store/rollout-plans.js";
import { planMessage, planProblems, planYaml, storedPlan } from "./rollout-messages.js";

const row = (document: unknown): StoredRolloutPlan => ({
  name: "careful",
  document,
  createdAt: new Date("2026-12-01T10:00:00Z"),
  createdBy: "admin",
  updatedAt: new Date("2026-12-01T11:00:00Z"),
  updatedBy: "ada",
});

const PLAN = parsePlanDocument(
  "name: careful\nbake: 1m\nwaves: [{ nodes: { zone: eu-west-1a } }, 5, 50%, 100%]\n",
);

describe("rollout plan messages", () => {
  it("a stored plan is answered with every wave, its YAML document (which reads back as the same plan) and its summary", () => {
    const message = planMessage(row(planDocument(PLAN)), "careful");

    expect(message.waves.map((w) => w.share)).toEqual([
      {
        case: "nodes",
        value: expect.objectContaining({ ids: [], zone: "eu-west-1a", metadata: {} }),
      },
      { case: "count", value: 5 },
      { case: "percent", value: 50 },
      { case: "percent", value: 100 },
    ]);
    expect(message.isDefault).toBe(true);
    expect(message.updatedBy).toBe("ada");
    expect(parsePlanDocument(message.document)).toEqual(PLAN);
    expect(message.document).toBe(planYaml(PLAN));
    expect(message.summary).toMatch(/^waves selected nodes, 5, 50%, 100%; bake 1m, /);
  });

  it("a stored document that no longer reads is FailedPrecondition naming the plan", () => {
    expect(() => storedPlan(row({ waves: ["50%"] }))).toThrow(
      expect.objectContaining({
        code: Code.FailedPrecondition,
        rawMessage: expect.stringMatching(/^rollout plan "careful" as stored no longer reads \(/),
      }),
    );
  });

  it.each([
    ["waves[2].share", "document: waves[2].share"],
    ["line 3, column 1", "document: line 3, column 1"],
    ["", "document"],
  ])("a problem at %j is an issue at %j", (path, expected) => {
    const error = planProblems(new PlanError([{ path, message: "wrong" }]));

    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.findDetails(ValidationErrorsSchema)[0]?.issues).toMatchObject([
      { path: expected, message: "wrong", code: "invalid-rollout-plan" },
    ]);
  });
});
