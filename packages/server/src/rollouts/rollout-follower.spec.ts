import { describe, expect, it } from "vitest";
import { servingCommands } from "./rollout-follower.js";
import type { RolloutServingRow } from "./rollout-rows.js";

const row = (over: Partial<RolloutServingRow>): RolloutServingRow => ({
  id: 1,
  group: "default",
  fromVersion: 4,
  toVersion: 5,
  phase: "applying",
  active: true,
  promoted: [],
  ...over,
});

describe("serving a process from the stored rollouts", () => {
  it("holds a group a rollout runs in, with the nodes that have the new version promoted", () => {
    const known = new Map();
    expect(servingCommands(known, [row({ promoted: ["a"] })])).toEqual([
      { t: "hold", group: "default", fromVersion: 4, toVersion: 5, promoted: ["a"] },
    ]);
    expect(servingCommands(known, [row({ promoted: ["a"] })])).toEqual([]);
  });

  it("promotes the nodes a wave added and demotes those a rollback took back", () => {
    const known = new Map();
    servingCommands(known, [row({ promoted: ["a", "b"] })]);
    expect(servingCommands(known, [row({ promoted: ["a", "c"] })])).toEqual([
      { t: "demote", group: "default", nodeIds: ["b"] },
      { t: "promote", group: "default", nodeIds: ["c"] },
    ]);
    expect(servingCommands(known, [row({ phase: "rolling-back", promoted: [] })])).toEqual([
      { t: "demote", group: "default", nodeIds: ["a", "c"] },
    ]);
  });

  it("settles an ended rollout on the new version when it completed and on the previous one otherwise", () => {
    const completed = new Map();
    servingCommands(completed, [row({})]);
    expect(servingCommands(completed, [row({ phase: "completed", active: false })])).toEqual([
      { t: "settle", group: "default", version: 5 },
    ]);
    const failed = new Map();
    servingCommands(failed, [row({})]);
    expect(servingCommands(failed, [row({ phase: "failed", active: false })])).toEqual([
      { t: "settle", group: "default", version: 4 },
    ]);
    expect(servingCommands(failed, [row({ phase: "failed", active: false })])).toEqual([]);
  });

  it("settles a superseded rollout before holding the one that replaced it in its group", () => {
    const known = new Map();
    servingCommands(known, [row({ promoted: ["a"] })]);
    const next = row({ id: 2, fromVersion: 4, toVersion: 6 });
    expect(servingCommands(known, [row({ phase: "aborted", active: false }), next])).toEqual([
      { t: "settle", group: "default", version: 4 },
      { t: "hold", group: "default", fromVersion: 4, toVersion: 6, promoted: [] },
    ]);
  });

  it("given only the running rollouts (a publish's own read), keeps a known one that is not among them: it may have ended, which its own row will say", () => {
    const known = new Map();
    servingCommands(known, [row({ group: "edge", promoted: ["a"] })]);
    expect(servingCommands(known, [row({ id: 2, promoted: [] })], true)).toEqual([
      { t: "hold", group: "default", fromVersion: 4, toVersion: 5, promoted: [] },
    ]);
    expect(known.has("edge")).toBe(true);
  });
});
