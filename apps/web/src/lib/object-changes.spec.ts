import { create } from "@bufbuild/protobuf";
import {
  ChangeType,
  IssueSchema,
  ObjectChangeSchema,
  ResourceKind,
  Severity,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import {
  countChanges,
  describeCounts,
  groupIssues,
  issueObject,
  issuesFor,
  objectHref,
  sortChanges,
} from "./object-changes";

const change = (kind: ResourceKind, name: string, type = ChangeType.MODIFIED) =>
  create(ObjectChangeSchema, { kind, name, change: type });
const issue = (path: string, severity = Severity.ERROR) =>
  create(IssueSchema, { path, severity, code: "x", message: "m" });

describe("objectHref", () => {
  it("links clusters, listeners and route configurations to their pages, escaping the name", () => {
    expect(objectHref(ResourceKind.CLUSTER, "a b")).toBe("/clusters/a%20b");
    expect(objectHref(ResourceKind.LISTENER, "edge")).toBe("/listeners/edge");
    expect(objectHref(ResourceKind.ROUTE_CONFIGURATION, "r")).toBe("/routes/r");
  });

  it("has no page for node groups", () => {
    expect(objectHref(ResourceKind.NODE_GROUP, "g")).toBeUndefined();
  });
});

describe("counting changes", () => {
  it("counts each kind of change and describes only the non-zero ones", () => {
    const counts = countChanges([
      change(ResourceKind.CLUSTER, "a", ChangeType.ADDED),
      change(ResourceKind.CLUSTER, "b", ChangeType.ADDED),
      change(ResourceKind.LISTENER, "c", ChangeType.REMOVED),
    ]);
    expect(counts).toEqual({ added: 2, modified: 0, removed: 1, total: 3 });
    expect(describeCounts(counts)).toBe("2 added, 1 removed");
    expect(describeCounts(countChanges([]))).toBe("no changes");
  });
});

describe("issues by object", () => {
  it("finds the object an issue path names, quotes and escapes included", () => {
    expect(
      issueObject('routeConfigurations["edge"].virtualHosts["api"].routes[2].cluster'),
    ).toEqual({ kind: ResourceKind.ROUTE_CONFIGURATION, name: "edge" });
    expect(issueObject('clusters["we\\"ird"]')).toEqual({
      kind: ResourceKind.CLUSTER,
      name: 'we"ird',
    });
    expect(issueObject("resources[1].lb_policy")).toBeUndefined();
  });

  it("attaches to a change only the issues about that object", () => {
    const issues = [
      issue('clusters["a"].lbPolicy'),
      issue('clusters["b"]'),
      issue('listeners["a"]'),
    ];
    expect(issuesFor(issues, change(ResourceKind.CLUSTER, "a")).map((i) => i.path)).toEqual([
      'clusters["a"].lbPolicy',
    ]);
  });

  it("separates errors, which block a publish, from warnings and notes", () => {
    const g = groupIssues([
      issue("a", Severity.WARNING),
      issue("b", Severity.ERROR),
      issue("c", Severity.INFO),
    ]);
    expect([g.errors.length, g.warnings.length, g.notes.length]).toEqual([1, 1, 1]);
  });
});

describe("sortChanges", () => {
  it("orders changes from the edge inwards (listeners, routes, clusters), then by name", () => {
    const sorted = sortChanges([
      change(ResourceKind.CLUSTER, "b"),
      change(ResourceKind.CLUSTER, "a"),
      change(ResourceKind.ROUTE_CONFIGURATION, "r"),
      change(ResourceKind.LISTENER, "l"),
    ]);
    expect(sorted.map((c) => c.name)).toEqual(["l", "r", "a", "b"]);
  });
});
