import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import {
  assertListed,
  callerSelector,
  type PruneCandidate,
  parseSelector,
  prunedObjects,
} from "./prune.js";

const codeOf = (call: () => unknown) => {
  try {
    call();
  } catch (error) {
    return [ConnectError.from(error).code, ConnectError.from(error).rawMessage] as const;
  }
  return undefined;
};

describe("prune selectors", () => {
  it("reads kind, team and name terms; a name ending in * is a prefix; kinds as the CLI names them", () => {
    expect(parseSelector("")).toEqual({});
    expect(parseSelector("kind=routes, team=payments,name=pay-*")).toEqual({
      kind: "routeConfiguration",
      team: "payments",
      name: { value: "pay-", prefix: true },
    });
    expect(parseSelector("name=edge")).toEqual({ name: { value: "edge", prefix: false } });
  });

  it("refuses an unknown key, a kind no apply prunes, a term without a value and a key twice, naming it", () => {
    expect(codeOf(() => parseSelector("owner=x"))).toEqual([
      Code.InvalidArgument,
      'selector key "owner" is unknown: use kind, team or name',
    ]);
    expect(codeOf(() => parseSelector("kind=nodegroup"))?.[1]).toMatch(
      /selector kind "nodegroup" is not a kind an apply prunes/,
    );
    expect(codeOf(() => parseSelector("team"))?.[1]).toMatch(/"team" is not KEY=VALUE/);
    expect(codeOf(() => parseSelector("team=a,team=b"))?.[1]).toMatch(/names "team" twice/);
  });

  it("narrows a member's prune to their team, refuses another team's or no team, and leaves an admin's as given", () => {
    const member = { role: "MEMBER", team: { name: "payments" } };
    expect(callerSelector({ kind: "cluster" }, member)).toEqual({
      kind: "cluster",
      team: "payments",
    });
    expect(codeOf(() => callerSelector({ team: "search" }, member))?.[0]).toBe(
      Code.PermissionDenied,
    );
    expect(codeOf(() => callerSelector({}, { role: "MEMBER", team: null }))?.[0]).toBe(
      Code.PermissionDenied,
    );
    expect(callerSelector({}, { role: "ADMIN", team: null })).toEqual({});
  });
});

describe("what a prune deletes", () => {
  const candidates: PruneCandidate[] = [
    { kind: "cluster", name: "pay-b", team: "payments" },
    { kind: "cluster", name: "pay-a", team: "payments" },
    { kind: "cluster", name: "search-a", team: "search" },
    { kind: "listener", name: "edge", team: null },
    { kind: "nodeGroup", name: "all", team: null },
  ];
  const kept = new Set(["cluster/pay-a"]);

  it("deletes what the content does not hold, referrers first, and never node groups", () => {
    expect(prunedObjects(candidates, kept, {}).map((c) => `${c.kind}/${c.name}`)).toEqual([
      "listener/edge",
      "cluster/pay-b",
      "cluster/search-a",
    ]);
  });

  it("deletes only what matches every term of the selector", () => {
    expect(prunedObjects(candidates, kept, { team: "payments" }).map((c) => c.name)).toEqual([
      "pay-b",
    ]);
    expect(
      prunedObjects(candidates, kept, { name: { value: "search", prefix: true } }).map(
        (c) => c.name,
      ),
    ).toEqual(["search-a"]);
    expect(prunedObjects(candidates, kept, { kind: "listener", team: "payments" })).toEqual([]);
  });

  it("refuses a deletion the caller did not list, naming it", () => {
    const pruned = prunedObjects(candidates, kept, { kind: "cluster" });
    expect(() => assertListed(pruned, pruned)).not.toThrow();
    expect(codeOf(() => assertListed(pruned, [{ kind: "cluster", name: "pay-b" }]))).toEqual([
      Code.Aborted,
      'the prune would also delete cluster "search-a", which was not listed: the configuration changed since; run the apply again',
    ]);
  });
});
