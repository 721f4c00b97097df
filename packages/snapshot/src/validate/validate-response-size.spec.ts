import { describe, expect, it } from "vitest";
import { compile } from "../compile.js";
import { clusterSpec, configSpec, endpointSpec, nodeGroupSpec } from "../fixtures.js";
import type { ConfigSpec } from "../model.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import { totalBytes } from "../serving/response-size.js";
import { validate } from "./validate.js";

/** A cluster carrying ~`kb` KiB of metadata, as large configs do (certificates, long lists). */
const heavyCluster = (name: string, kb: number) =>
  clusterSpec(name, [endpointSpec("10.0.0.1", 8080)], {
    extra: { metadata: { filterMetadata: { notes: { text: "x".repeat(kb * 1024) } } } },
  });

/** An EDS cluster with `count` endpoints: its assignment grows ~12 bytes an endpoint. */
const wideCluster = (name: string, count: number) =>
  clusterSpec(
    name,
    Array.from({ length: count }, (_, i) => endpointSpec(`10.1.${i >> 8}.${i & 255}`, 8080)),
  );

const LIMIT = 64 * 1024;

const sizeIssues = (spec: ConfigSpec, maxResponseBytes?: number) =>
  validate(spec, maxResponseBytes === undefined ? {} : { maxResponseBytes }).issues.filter(
    (i) => i.code === "response-too-large" || i.code === "invalid-max-response-bytes",
  );

describe("validate: responses past the clients' message limit", () => {
  it("refuses clusters a node group receives in one SotW response above gRPC's default 4 MiB, at the largest, naming the size and the limit", () => {
    const spec = configSpec({
      clusters: [heavyCluster("a", 1000), heavyCluster("b", 1500), heavyCluster("c", 1700)],
    });
    const [issue, ...more] = sizeIssues(spec);
    expect(more).toEqual([]);
    expect(issue?.severity).toBe("error");
    expect(issue?.path).toBe('clusters["c"]');
    expect(issue?.message).toMatch(
      /the clusters node group "default" receives add up to 4\.\d MiB \(\d+ bytes\) in one xDS response/,
    );
    expect(issue?.message).toContain("a SotW client");
    expect(issue?.message).toContain("the server's limit of 4.0 MiB (4194304 bytes)");
    expect(issue?.hint).toContain("maxResponseBytes");
  });

  it("accepts a large config that stays under the limit", () => {
    const spec = configSpec({
      clusters: [heavyCluster("a", 1000), heavyCluster("b", 1000), heavyCluster("c", 1500)],
    });
    expect(sizeIssues(spec)).toEqual([]);
  });

  it("judges by the server's configured limit", () => {
    const spec = configSpec({ clusters: [heavyCluster("a", 30), heavyCluster("b", 40)] });
    expect(sizeIssues(spec)).toEqual([]);
    expect(sizeIssues(spec, LIMIT).map((i) => i.path)).toEqual(['clusters["b"]']);
  });

  it("accepts endpoints over the limit: EDS is not full-state, its responses are split", () => {
    // 40 clusters of 200 endpoints: ~100 KiB of assignments, each ~2.5 KiB; the clusters ~4 KiB.
    const spec = configSpec({
      clusters: Array.from({ length: 40 }, (_, i) => wideCluster(`svc-${i}`, 200)),
    });
    const snapshot = compile(spec).groups[0]?.snapshot;
    if (!snapshot) throw new Error("no group");
    expect(totalBytes(snapshot.resources(TypeUrl.ClusterLoadAssignment), "any")).toBeGreaterThan(
      LIMIT,
    );
    expect(sizeIssues(spec, LIMIT)).toEqual([]);
    expect(validate(spec, { maxResponseBytes: LIMIT }).ok).toBe(true);
  });

  it("refuses one resource over the limit, for any client: a resource is never split", () => {
    const spec = configSpec({ clusters: [wideCluster("huge", 6000), wideCluster("small", 2)] });
    const issues = sizeIssues(spec, LIMIT);
    expect(issues.map((i) => i.path)).toEqual(['clusters["huge"]']);
    expect(issues[0]?.message).toMatch(
      /^clusters\["huge"\] is 0\.\d+ MiB \(\d+ bytes\) in an xDS response to node group "default"/,
    );
    expect(issues[0]?.message).toContain("any client (SotW or Delta)");
    expect(issues[0]?.message).toContain(`${LIMIT} bytes`);
  });

  it("lets a node group whose clients accept larger messages raise its limit", () => {
    const clusters = [heavyCluster("a", 1000), heavyCluster("b", 1500), heavyCluster("c", 1700)];
    const raised = configSpec({
      clusters,
      nodeGroups: [nodeGroupSpec("default", { isDefault: true, maxResponseBytes: 8 << 20 })],
    });
    expect(sizeIssues(raised)).toEqual([]);
    // Only that group: another receiving the same clusters is still judged by the server's.
    const two = configSpec({
      clusters,
      nodeGroups: [
        nodeGroupSpec("default", { isDefault: true, maxResponseBytes: 8 << 20 }),
        nodeGroupSpec("edge", { clusters: ["a", "b", "c"], nodeClusters: ["edge"] }),
      ],
    });
    expect(sizeIssues(two).map((i) => i.message.match(/node group "([^"]+)"/)?.[1])).toEqual([
      "edge",
    ]);
  });

  it("judges a group with its own limit by it, lower than the server's too", () => {
    const spec = configSpec({
      clusters: [heavyCluster("a", 40), heavyCluster("b", 40)],
      nodeGroups: [nodeGroupSpec("default", { isDefault: true, maxResponseBytes: LIMIT })],
    });
    const [issue] = sizeIssues(spec);
    expect(issue?.message).toContain(`node group "default"'s maxResponseBytes of 0.063 MiB`);
  });

  it("refuses a maxResponseBytes that no gRPC client could be configured with", () => {
    for (const bad of [0, 1000, 1.5, 2 ** 31]) {
      const spec = configSpec({
        nodeGroups: [nodeGroupSpec("default", { isDefault: true, maxResponseBytes: bad })],
      });
      const issues = sizeIssues(spec);
      expect(issues.map((i) => [i.code, i.path])).toEqual([
        ["invalid-max-response-bytes", 'nodeGroups["default"].maxResponseBytes'],
      ]);
    }
  });
});
