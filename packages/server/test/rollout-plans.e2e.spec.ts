/**
 * Stored rollout plans (issue 45; src/api/rollout-service.ts): admins put them as YAML or JSON
 * documents, which are stored only when they read (each problem named at its field path), pick
 * the default plan, which cannot be deleted, and every write is audited; everyone signed in reads
 * them. A team's require_rollout is set by UpdateTeam.
 */

import { type Client, Code, type ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ValidationErrorsSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { RolloutFailureAction, RolloutService } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { ALIAS_BOMB_PLAN } from "@switchyard/rollout/fixtures";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ROLLOUT_PLAN_LIMITS } from "../src/api/rollout-service.js";
import {
  accessClient,
  bearer,
  createAccount,
  privilegedAccess,
  Role,
  refusal,
  tokenFor,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

type Rollouts = Client<typeof RolloutService>;

/** The plan of plan.ts's module documentation: a selector wave, a count, two percentages. */
const CAREFUL = `
name: careful
onFailure: rollback
bake: 2m
ackTimeout: 30s
traffic: { maxErrorIncrease: 2, minRequests: 100, withoutTraffic: pass }
waves:
  - nodes: { ids: ["edge-canary-*"], zone: eu-west-1a, metadata: { canary: "true" } }
  - { share: 5, traffic: false }
  - { share: 50%, bake: 10m }
  - 100%
`;

/** A plan of shares alone, `bake` for every wave. */
const plainPlan = (waves: readonly (number | string)[], bake = "1m") =>
  `bake: ${bake}\nwaves: [${waves.map((w) => JSON.stringify(w)).join(", ")}]\n`;

/** Each problem of a refusal as "path: message". */
const problems = (error: ConnectError) =>
  error
    .findDetails(ValidationErrorsSchema)
    .flatMap((d) => d.issues)
    .map((issue) => `${issue.path}: ${issue.message}`);

describe("stored rollout plans", () => {
  let harness: Harness;
  let admin: Rollouts;
  const rollouts = (token: string): Rollouts =>
    createClient(
      RolloutService,
      createConnectTransport({
        baseUrl: harness.baseUrl,
        httpVersion: "1.1",
        interceptors: [bearer(token)],
      }),
    );
  const audit = async (action = "rollout-plan.*") =>
    (
      await accessClient(harness.baseUrl, [bearer(await harness.token())]).listAuditEvents({
        action,
        pageSize: 1000,
      })
    ).events;

  beforeAll(async () => {
    harness = await startHarness();
    admin = rollouts(await harness.token());
  });

  afterAll(async () => {
    await harness?.stop();
  });

  beforeEach(async () => {
    await admin.setDefaultRolloutPlan({ name: "" });
    for (const plan of (await admin.listRolloutPlans({})).plans)
      await admin.deleteRolloutPlan({ name: plan.name });
  });

  it("a put plan is answered as structured fields, as its document and in one line; its document put again is the same plan", async () => {
    const put = await admin.putRolloutPlan({ name: "careful", document: CAREFUL });

    expect(put).toMatchObject({
      name: "careful",
      onFailure: RolloutFailureAction.ROLLBACK,
      isDefault: false,
      createdBy: "admin",
      updatedBy: "admin",
    });
    expect(put.waves.map((w) => [w.share.case, w.bakeMs, w.ackTimeoutMs])).toEqual([
      ["nodes", 120_000, 30_000],
      ["count", 120_000, 30_000],
      ["percent", 600_000, 30_000],
      ["percent", 120_000, 30_000],
    ]);
    expect(put.waves[0]?.share.value).toMatchObject({
      ids: ["edge-canary-*"],
      zone: "eu-west-1a",
      metadata: { canary: "true" },
    });
    expect(put.waves[0]?.traffic).toMatchObject({
      maxErrorIncrease: 2,
      minRequests: 100,
      failWithoutTraffic: false,
    });
    expect(put.waves[1]?.traffic).toBeUndefined();
    expect(put.summary).toBe(
      "waves selected nodes, 5, 50%, 100%; bake 2m, ACKs within 30s, errors at most 2 points above the previous version's over 100 requests (passes without them); on failure roll back; wave 2: ACKs only; wave 3: bake 10m",
    );
    expect(put.document).toContain("name: careful\n");

    const got = await admin.getRolloutPlan({ name: "careful" });
    expect(got).toEqual(put);
    const again = await admin.putRolloutPlan({ name: "careful", document: got.document });
    expect(again.waves).toEqual(put.waves);
    expect(again.document).toBe(put.document);
    expect(again.createTime).toEqual(put.createTime);

    const json = await admin.putRolloutPlan({
      name: "quick",
      document: JSON.stringify({ waves: [1, "100%"], onFailure: "pause", bake: 0 }),
    });
    expect(json.onFailure).toBe(RolloutFailureAction.PAUSE);
    expect(json.document).toContain("name: quick\n");
    expect((await admin.listRolloutPlans({})).plans.map((p) => p.name)).toEqual([
      "careful",
      "quick",
    ]);
  });

  it("a plan that does not read is InvalidArgument naming each problem at its field path, and the refused put changes nothing", async () => {
    const stored = await admin.putRolloutPlan({ name: "steady", document: plainPlan([1, "100%"]) });

    const shrinking = await refusal(
      admin.putRolloutPlan({ name: "steady", document: plainPlan([10, 5, "50%"]) }),
    );
    expect(shrinking.code).toBe(Code.InvalidArgument);
    expect(shrinking.rawMessage).toBe("document: 2 problem(s) in the rollout plan");
    expect(problems(shrinking)).toEqual([
      "document: waves[1].share: waves must grow: 5 is not more than 10",
      "document: waves[2]: the last wave must be 100%: a rollout that completes has reached every node",
    ]);

    const badDuration = await refusal(
      admin.putRolloutPlan({ name: "steady", document: plainPlan(["100%"], "soon") }),
    );
    expect(problems(badDuration)).toEqual([
      'document: bake: "soon" is not a duration: use e.g. 500ms, 30s, 2m or 1h',
    ]);
    const syntax = await refusal(
      admin.putRolloutPlan({ name: "new-one", document: "waves: [1, 100%\nbake: 2m\n" }),
    );
    expect(syntax.code).toBe(Code.InvalidArgument);
    expect(problems(syntax)[0]).toMatch(/^document: line \d+, column \d+: /);
    const otherName = await refusal(
      admin.putRolloutPlan({ name: "new-one", document: `name: other\n${plainPlan(["100%"])}` }),
    );
    expect(problems(otherName)).toEqual([
      'document: name: the document names plan "other", but it is put as "new-one": make them the same, or leave name out',
    ]);
    const badName = await refusal(
      admin.putRolloutPlan({ name: "no spaces", document: plainPlan(["100%"]) }),
    );
    expect(badName.code).toBe(Code.InvalidArgument);
    expect(badName.rawMessage).toMatch(/^name: "no spaces" is not a rollout plan name/);
    const big = `${plainPlan(["100%"])}#${"x".repeat(ROLLOUT_PLAN_LIMITS.documentBytes)}\n`;
    const tooLarge = await refusal(admin.putRolloutPlan({ name: "new-one", document: big }));
    expect(tooLarge.code).toBe(Code.InvalidArgument);
    expect(tooLarge.rawMessage).toMatch(/^document: \d+ bytes, more than the 65536 /);

    // YAML aliases that would repeat a node a billion times ("billion laughs").
    const bomb = await refusal(
      admin.putRolloutPlan({ name: "new-one", document: ALIAS_BOMB_PLAN }),
    );
    expect(bomb.code).toBe(Code.InvalidArgument);
    expect(problems(bomb)).toEqual([
      "document: Excessive alias count indicates a resource exhaustion attack",
    ]);

    expect(await admin.getRolloutPlan({ name: "steady" })).toEqual(stored);
    expect((await admin.listRolloutPlans({})).plans.map((p) => p.name)).toEqual(["steady"]);
    expect((await audit("rollout-plan.put")).map((e) => e.target)).not.toContain(
      "rollout-plan/new-one",
    );
  });

  it("the default plan is shown on the list and on the plan, and cannot be deleted until another default, or none, is set", async () => {
    await admin.putRolloutPlan({ name: "careful", document: CAREFUL });
    await admin.putRolloutPlan({ name: "quick", document: plainPlan([1, "100%"]) });

    expect(await admin.setDefaultRolloutPlan({ name: "careful" })).toMatchObject({
      defaultPlan: "careful",
      previous: "",
    });
    const list = await admin.listRolloutPlans({});
    expect(list.defaultPlan).toBe("careful");
    expect(list.plans.map((p) => [p.name, p.isDefault])).toEqual([
      ["careful", true],
      ["quick", false],
    ]);

    const refused = await refusal(admin.deleteRolloutPlan({ name: "careful" }));
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage).toBe(
      'rollout plan "careful" is the default plan: set another default first (switchyard rollout plans default NAME, or --none)',
    );
    expect((await admin.getRolloutPlan({ name: "careful" })).isDefault).toBe(true);

    const unknown = await refusal(admin.setDefaultRolloutPlan({ name: "nowhere" }));
    expect(unknown.code).toBe(Code.NotFound);
    expect((await admin.listRolloutPlans({})).defaultPlan).toBe("careful");

    expect(await admin.setDefaultRolloutPlan({ name: "quick" })).toMatchObject({
      defaultPlan: "quick",
      previous: "careful",
    });
    await admin.deleteRolloutPlan({ name: "careful" });
    expect(await admin.setDefaultRolloutPlan({ name: "" })).toMatchObject({
      defaultPlan: "",
      previous: "quick",
    });
    await admin.deleteRolloutPlan({ name: "quick" });

    expect((await refusal(admin.getRolloutPlan({ name: "quick" }))).code).toBe(Code.NotFound);
    expect((await refusal(admin.deleteRolloutPlan({ name: "quick" }))).code).toBe(Code.NotFound);
    expect(await admin.listRolloutPlans({})).toMatchObject({ plans: [], defaultPlan: "" });
  });

  it("members and viewers read the plans, and every write of theirs is refused and changes nothing", async () => {
    await admin.putRolloutPlan({ name: "careful", document: CAREFUL });
    await admin.setDefaultRolloutPlan({ name: "careful" });
    const team = await (await privilegedAccess(harness.baseUrl)).createTeam({ name: "shop" });
    await createAccount(harness.baseUrl, "mia", Role.MEMBER, team.id);
    await createAccount(harness.baseUrl, "vic", Role.VIEWER);
    const before = await admin.listRolloutPlans({});
    const events = (await audit()).length;

    for (const [username, refusedWith] of [
      ["mia", "only an admin may change rollout plans"],
      ["vic", "viewer vic has read-only access"],
    ] as const) {
      const client = rollouts(await tokenFor(harness.baseUrl, username, USER_PASSWORD));
      expect(await client.listRolloutPlans({})).toEqual(before);
      expect((await client.getRolloutPlan({ name: "careful" })).document).toBe(
        before.plans[0]?.document,
      );
      for (const write of [
        () => client.putRolloutPlan({ name: "mine", document: plainPlan(["100%"]) }),
        () => client.putRolloutPlan({ name: "careful", document: plainPlan(["100%"]) }),
        () => client.deleteRolloutPlan({ name: "careful" }),
        () => client.setDefaultRolloutPlan({ name: "" }),
      ]) {
        const refused = await refusal(write());
        expect(refused.code).toBe(Code.PermissionDenied);
        expect(refused.rawMessage).toBe(refusedWith);
      }
    }

    expect(await admin.listRolloutPlans({})).toEqual(before);
    expect(await audit()).toHaveLength(events);
  });

  it("every write is an audit event naming who, the plan and its diff", async () => {
    await admin.putRolloutPlan({ name: "quick", document: plainPlan([1, "100%"]) });
    await admin.putRolloutPlan({ name: "quick", document: plainPlan([2, "100%"]) });
    await admin.setDefaultRolloutPlan({ name: "quick" });
    await admin.setDefaultRolloutPlan({ name: "" });
    await admin.deleteRolloutPlan({ name: "quick" });

    const events = (await audit())
      .filter((e) => e.target === "rollout-plan/quick")
      .slice(0, 5)
      .reverse();
    expect(events.map((e) => [e.action, e.actor, e.actorKind])).toEqual([
      ["rollout-plan.put", "admin", "token"],
      ["rollout-plan.put", "admin", "token"],
      ["rollout-plan.default", "admin", "token"],
      ["rollout-plan.default", "admin", "token"],
      ["rollout-plan.delete", "admin", "token"],
    ]);
    const diffs = events.map((e) => e.detail);
    expect(diffs[0]).toMatchObject({
      diff: { before: null, after: { name: "quick", waves: [1, "100%"], bake: "1m" } },
    });
    expect(diffs[1]).toMatchObject({
      diff: { before: { waves: [1, "100%"] }, after: { waves: [2, "100%"] } },
    });
    expect(diffs[2]).toEqual({ diff: { before: null, after: "quick" } });
    expect(diffs[3]).toEqual({ diff: { before: "quick", after: null } });
    expect(diffs[4]).toMatchObject({ diff: { before: { waves: [2, "100%"] }, after: null } });
  });

  it("UpdateTeam sets a team's require_rollout, shown on the team and audited with the diff", async () => {
    const access = await privilegedAccess(harness.baseUrl);
    const team = await access.createTeam({ name: "checkout" });
    expect(team.requireRollout).toBe(false);

    const updated = await access.updateTeam({ id: team.id, requireRollout: true });
    expect(updated).toMatchObject({ requireRollout: true, requireReview: false });
    const listed = (await access.listTeams({})).teams.find((t) => t.name === "checkout");
    expect(listed?.requireRollout).toBe(true);
    const [event] = await audit("team.update");
    expect(event?.detail).toMatchObject({
      diff: { before: { requireRollout: false }, after: { requireRollout: true } },
    });

    expect((await access.updateTeam({ id: team.id, requireReview: true })).requireRollout).toBe(
      true,
    );
    expect((await access.updateTeam({ id: team.id, requireRollout: false })).requireRollout).toBe(
      false,
    );
  });
});
