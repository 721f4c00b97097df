import { randomBytes } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import {
  ChangeType,
  ImportClashAction,
  ResourceKind,
  RouteActionKind,
  RouteConfigurationSchema,
  RouteConfigurationView,
  SecretSchema,
  SecretType,
  TopologyScope,
  ValidationErrorsSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import {
  type ClusterInit,
  catchAllRoutes,
  edsCluster,
  portListener,
} from "../src/testing/api-objects.js";
import { refusal } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { clusterYaml } from "../src/testing/shop.js";

/** This file's clusters: EDS, 1 s connect timeout, one endpoint on 10.0.0.1:`port`. */
const cluster = (name: string, port: number, overrides: ClusterInit = {}) =>
  edsCluster(name, `10.0.0.1:${port}`, { connectTimeoutMs: 1000, ...overrides });

describe("draft, publish, diff, history and rollback through the API", () => {
  let harness: Harness;
  beforeEach(async () => {
    harness = await startHarness();
  });
  afterEach(async () => {
    await harness?.stop();
  });

  it("publishes the draft as version 1, and what proxies get is that version", async () => {
    const api = harness.api("alice");
    await api.createCluster(cluster("backend", 8080));
    await api.createRouteConfiguration(catchAllRoutes("edge", "backend"));
    const published = await api.publish({ message: "first" });
    expect(published.snapshot?.version).toBe(1n);
    expect(published.snapshot?.author).toBe("alice");
    expect(published.changes.map((c) => [c.name, c.change])).toEqual([
      ["backend", ChangeType.ADDED],
      ["edge", ChangeType.ADDED],
    ]);
    expect(harness.app.cache.version).toBe(1);
    expect([
      ...(harness.app.cache.config?.groups[0]?.snapshot.resources(TypeUrl.Cluster).keys() ?? []),
    ]).toEqual(["backend"]);
  });

  it("shows the draft's changes against the latest version, each side as Envoy YAML", async () => {
    const api = harness.api();
    await api.createCluster(cluster("backend", 8080));
    await api.publish({ message: "first" });
    await api.updateCluster(cluster("backend", 9090));
    const diff = await api.diff({});
    expect(diff.fromVersion).toBe(1n);
    expect(diff.changes).toHaveLength(1);
    expect(diff.changes[0]?.change).toBe(ChangeType.MODIFIED);
    expect(diff.changes[0]?.before).toContain("port_value: 8080");
    expect(diff.changes[0]?.after).toContain("port_value: 9090");
    expect(diff.draftRevision).not.toBe("");
  });

  it("refuses a publish based on a stale version, and changes nothing", async () => {
    const alice = harness.api("alice");
    const bob = harness.api("bob");
    await alice.createCluster(cluster("a", 1));
    await alice.publish({ message: "v1" });
    await alice.updateCluster(cluster("a", 2));
    const reviewedByAlice = await alice.diff({});
    await bob.publish({ message: "bob publishes first" });
    await bob.updateCluster(cluster("a", 3));
    const error = await refusal(
      alice.publish({ message: "late", baseVersion: reviewedByAlice.fromVersion }),
    );
    expect(error.code).toBe(Code.FailedPrecondition);
    expect(error.rawMessage).toMatch(
      /version 2 was published after the version you reviewed \(1\)/,
    );
    expect((await alice.listSnapshots({})).snapshots.map((s) => s.version)).toEqual([2n, 1n]);
  });

  it("refuses to publish a draft that changed after it was reviewed, and changes nothing", async () => {
    const api = harness.api();
    await api.createCluster(cluster("a", 1));
    const reviewed = await api.diff({});
    await api.createCluster(cluster("unreviewed", 2));
    const error = await refusal(
      api.publish({
        message: "x",
        baseVersion: reviewed.fromVersion,
        draftRevision: reviewed.draftRevision,
      }),
    );
    expect(error.code).toBe(Code.FailedPrecondition);
    expect(error.rawMessage).toMatch(/draft changed after you reviewed it/);
    expect((await api.listSnapshots({})).snapshots).toEqual([]);
  });

  it("refuses a publish with errors, naming each error's path, and changes nothing", async () => {
    const api = harness.api();
    await api.createRouteConfiguration(catchAllRoutes("edge", "missing-cluster"));
    const error = await refusal(api.publish({ message: "broken" }));
    expect(error.code).toBe(Code.InvalidArgument);
    const issues = error.findDetails(ValidationErrorsSchema).flatMap((d) => d.issues);
    expect(issues.map((i) => i.path)).toContain(
      'routeConfigurations["edge"].virtualHosts["all"].routes[0].cluster',
    );
    expect((await api.listSnapshots({})).snapshots).toEqual([]);
    expect(harness.app.cache.version).toBe(0);
  });

  it("validates the draft as it is now: an error at its path, gone as soon as the draft is fixed, back when it is broken again", async () => {
    const api = harness.api();
    const path = 'routeConfigurations["edge"].virtualHosts["all"].routes[0].cluster';
    await api.createRouteConfiguration(catchAllRoutes("edge", "missing-cluster"));
    const broken = await api.validate({});
    expect(broken.ok).toBe(false);
    expect(broken.issues.map((i) => i.path)).toContain(path);
    // Asked again unchanged, the same answer (the report of an unchanged draft is reused).
    expect(await api.validate({})).toEqual(broken);
    await api.createCluster(cluster("missing-cluster", 8080));
    const fixed = await api.validate({});
    expect(fixed.ok).toBe(true);
    expect(fixed.issues.map((i) => i.path)).not.toContain(path);
    await api.deleteCluster({ name: "missing-cluster" });
    expect((await api.validate({})).issues.map((i) => i.path)).toContain(path);
  });

  it("refuses to publish a draft identical to the latest version", async () => {
    const api = harness.api();
    await api.createCluster(cluster("a", 1));
    await api.publish({ message: "v1" });
    const error = await refusal(api.publish({ message: "again" }));
    expect(error.code).toBe(Code.FailedPrecondition);
    expect(error.rawMessage).toMatch(/nothing to publish/);
  });

  it("rolls back by publishing an older version's content as a new version, and resets the draft to it", async () => {
    const api = harness.api();
    await api.createCluster(cluster("a", 1));
    await api.publish({ message: "v1" });
    await api.updateCluster(cluster("a", 2));
    await api.createCluster(cluster("b", 3));
    await api.publish({ message: "v2" });
    const rolledBack = await api.rollback({ version: 1n, baseVersion: 2n });
    expect(rolledBack.snapshot?.version).toBe(3n);
    expect(rolledBack.snapshot?.rolledBackFrom).toBe(1n);
    expect(rolledBack.changes.map((c) => [c.name, c.change])).toEqual([
      ["a", ChangeType.MODIFIED],
      ["b", ChangeType.REMOVED],
    ]);
    expect((await api.getCluster({ name: "a" })).localities[0]?.endpoints[0]?.port).toBe(1);
    expect((await api.diff({})).changes).toEqual([]);
    const between = await api.diff({ fromVersion: 1n, toVersion: 3n });
    expect(between.changes).toEqual([]);
    // Same content, same resource versions: proxies holding version 1 receive nothing new.
    const groups = async (version: number) =>
      (await harness.database.prisma.snapshot.findUniqueOrThrow({ where: { version } })).groups;
    expect(await groups(3)).toEqual(await groups(1));
  });

  it("a rollback changes only what it changes: an object it does not alter keeps its update time", async () => {
    const api = harness.api();
    await api.createCluster(cluster("kept", 1));
    await api.createCluster(cluster("moved", 2));
    await api.publish({ message: "v1" });
    await api.updateCluster(cluster("moved", 3));
    await api.publish({ message: "v2" });
    const before = await api.getCluster({ name: "kept" });
    const moved = await api.getCluster({ name: "moved" });

    await api.rollback({ version: 1n, baseVersion: 2n });

    const kept = await api.getCluster({ name: "kept" });
    expect(kept.updateTime).toEqual(before.updateTime);
    const back = await api.getCluster({ name: "moved" });
    expect(back.localities[0]?.endpoints[0]?.port).toBe(2);
    expect(back.updateTime).not.toEqual(moved.updateTime);
  });

  it("a rollback leaves every object it does not alter as it was: a secret, a listener, routes keep their update time", async () => {
    // Its own server: secrets need a secrets key.
    const keyed = await startHarness({
      app: { secretsKey: { t: "key", key: new Uint8Array(randomBytes(32)), source: "env" } },
    });
    onTestFinished(() => keyed.stop());
    const api = keyed.api();
    await api.createSecret(
      create(SecretSchema, {
        name: "hmac",
        type: SecretType.GENERIC_SECRET,
        values: [new TextEncoder().encode("0123456789abcdef0123456789abcdef")],
      }),
    );
    await api.createCluster(cluster("kept", 1));
    await api.createCluster(cluster("moved", 2));
    await api.createRouteConfiguration(catchAllRoutes("edge", "kept"));
    await api.createListener(portListener("edge", 8080, "edge"));
    await api.publish({ message: "v1" });
    await api.updateCluster(cluster("moved", 3));
    await api.publish({ message: "v2" });
    const times = async () => ({
      secret: (await api.getSecret({ name: "hmac" })).updateTime,
      kept: (await api.getCluster({ name: "kept" })).updateTime,
      routes: (await api.getRouteConfiguration({ name: "edge" })).updateTime,
      listener: (await api.getListener({ name: "edge" })).updateTime,
      moved: (await api.getCluster({ name: "moved" })).updateTime,
    });
    const before = await times();

    await api.rollback({ version: 1n, baseVersion: 2n });

    const after = await times();
    expect({ ...after, moved: undefined }).toEqual({ ...before, moved: undefined });
    expect(after.moved).not.toEqual(before.moved);
  });

  it("an import writes only what it changes: an object the document holds as stored keeps its update time", async () => {
    const api = harness.api();
    await api.import({
      filename: "a.yaml",
      content: `${clusterYaml("kept", 1)}${clusterYaml("moved", 2)}`,
    });
    const kept = await api.getCluster({ name: "kept" });
    const moved = await api.getCluster({ name: "moved" });

    // The same names again, one with other content: replaced, as apply --draft does.
    await api.import({
      filename: "a.yaml",
      content: `${clusterYaml("kept", 1)}${clusterYaml("moved", 3)}`,
      onClash: ImportClashAction.REPLACE,
    });

    expect((await api.getCluster({ name: "kept" })).updateTime).toEqual(kept.updateTime);
    expect((await api.getCluster({ name: "moved" })).updateTime).not.toEqual(moved.updateTime);
  });

  it("lists every version newest first with its author, message and change counts", async () => {
    await harness.api("alice").createCluster(cluster("a", 1));
    await harness.api("alice").publish({ message: "add a" });
    await harness.api("bob").createCluster(cluster("b", 1));
    await harness.api("bob").publish({ message: "add b" });
    const { snapshots } = await harness.api().listSnapshots({});
    expect(snapshots.map((s) => [s.version, s.author, s.message, s.added])).toEqual([
      [2n, "bob", "add b", 1],
      [1n, "alice", "add a", 1],
    ]);
  });

  it("lists a version's or a diff's changes by name only on request, and gives one object's YAML when asked for it", async () => {
    const api = harness.api();
    await api.createCluster(cluster("a", 1));
    await api.createCluster(cluster("b", 2));
    await api.publish({ message: "two clusters" });
    await api.updateCluster(cluster("b", 3));
    await api.publish({ message: "move b" });

    const names = await api.getSnapshot({ version: 1n, bodies: { omit: true } });
    expect(names.changes.map((c) => [c.name, c.change, c.before, c.after])).toEqual([
      ["a", ChangeType.ADDED, "", ""],
      ["b", ChangeType.ADDED, "", ""],
    ]);
    const one = await api.getSnapshot({
      version: 1n,
      bodies: { only: [{ kind: ResourceKind.CLUSTER, name: "b" }] },
    });
    expect(one.changes.map((c) => c.name)).toEqual(["b"]);
    expect(one.changes[0]?.after).toContain("port_value: 2");

    const diffNames = await api.diff({ fromVersion: 1n, toVersion: 2n, bodies: { omit: true } });
    expect(diffNames.changes.map((c) => [c.name, c.change, c.before, c.after])).toEqual([
      ["b", ChangeType.MODIFIED, "", ""],
    ]);
    const diffOne = await api.diff({
      fromVersion: 1n,
      toVersion: 2n,
      bodies: { only: [{ kind: ResourceKind.CLUSTER, name: "b" }] },
    });
    expect(diffOne.changes[0]?.before).toContain("port_value: 2");
    expect(diffOne.changes[0]?.after).toContain("port_value: 3");

    const bad = await refusal(
      api.getSnapshot({ version: 1n, bodies: { only: [{ kind: ResourceKind.CLUSTER }] } }),
    );
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(bad.rawMessage).toBe("bodies.only[0]: both kind and name are required");
  });

  it("answers a publish, a rollback or an apply by name only on request, with YAML by default, and refuses a malformed selection before publishing", async () => {
    const api = harness.api();
    await api.createCluster(cluster("a", 1));
    const first = await api.publish({ message: "a", bodies: { omit: true } });
    expect(first.snapshot?.version).toBe(1n);
    expect(first.changes.map((c) => [c.name, c.change, c.before, c.after])).toEqual([
      ["a", ChangeType.ADDED, "", ""],
    ]);

    await api.updateCluster(cluster("a", 2));
    const bad = await refusal(
      api.publish({ message: "a to 2", bodies: { only: [{ kind: ResourceKind.CLUSTER }] } }),
    );
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(bad.rawMessage).toBe("bodies.only[0]: both kind and name are required");
    expect((await api.listSnapshots({})).snapshots.map((s) => s.version)).toEqual([1n]);

    const second = await api.publish({ message: "a to 2" });
    expect(second.changes[0]?.before).toContain("port_value: 1");
    expect(second.changes[0]?.after).toContain("port_value: 2");

    const back = await api.rollback({ version: 1n, baseVersion: 2n, bodies: { omit: true } });
    expect(back.snapshot?.version).toBe(3n);
    expect(back.changes.map((c) => [c.name, c.change, c.before, c.after])).toEqual([
      ["a", ChangeType.MODIFIED, "", ""],
    ]);

    const document = { content: clusterYaml("b", 9300), filename: "b.yaml" };
    const dry = await api.apply({ ...document, dryRun: true, bodies: { omit: true } });
    expect(dry.changes.map((c) => [c.name, c.change, c.after])).toEqual([
      ["b", ChangeType.ADDED, ""],
    ]);
    const applied = await api.apply({ ...document, bodies: { omit: true } });
    expect(applied.snapshot?.version).toBe(4n);
    expect(applied.changes.map((c) => [c.name, c.change, c.after])).toEqual([
      ["b", ChangeType.ADDED, ""],
    ]);
  });

  it("rejects an invalid object with the field's path and keeps the draft unchanged", async () => {
    const api = harness.api();
    const error = await refusal(api.createCluster(cluster("bad", 70000)));
    expect(error.code).toBe(Code.InvalidArgument);
    const issues = error.findDetails(ValidationErrorsSchema).flatMap((d) => d.issues);
    expect(issues.map((i) => i.path)).toContain('clusters["bad"].localities[0].endpoints[0].port');
    expect((await api.listResources({})).resources).toEqual([]);
  });

  it("lists one line per object that follows each edit: a cluster's endpoints, a route configuration's routes and the clusters it references", async () => {
    const api = harness.api();
    const line = async (name: string) => {
      const found = (await api.listResources({})).resources.find((r) => r.name === name);
      return { description: found?.description, references: found?.references };
    };
    await api.createCluster(cluster("backend", 8080));
    await api.createCluster(cluster("canary", 8081));
    await api.createRouteConfiguration(catchAllRoutes("edge", "backend"));
    expect(await line("backend")).toEqual({
      description: "EDS, ROUND_ROBIN, 1 endpoint",
      references: [],
    });
    expect(await line("edge")).toEqual({
      description: "1 virtual host, 1 route",
      references: ["backend"],
    });
    await api.updateCluster(
      cluster("backend", 8080, {
        localities: [
          {
            weight: 1,
            endpoints: [
              { address: "10.0.0.1", port: 1 },
              { address: "10.0.0.2", port: 2 },
            ],
          },
        ],
      }),
    );
    const edge = create(RouteConfigurationSchema, {
      name: "edge",
      virtualHosts: [
        {
          name: "all",
          domains: ["*"],
          routes: [
            { matchValue: "/canary", actionKind: RouteActionKind.CLUSTER, cluster: "canary" },
            { matchValue: "/", actionKind: RouteActionKind.CLUSTER, cluster: "backend" },
          ],
        },
      ],
    });
    await api.updateRouteConfiguration(edge);
    expect((await line("backend")).description).toBe("EDS, ROUND_ROBIN, 2 endpoints");
    expect(await line("edge")).toEqual({
      description: "1 virtual host, 2 routes",
      references: ["backend", "canary"],
    });
    await api.deleteRouteConfiguration({ name: "edge" });
    expect(await line("edge")).toEqual({ description: undefined, references: undefined });
  });

  it("lists route configurations in the TARGETS view as each virtual host's distinct targets in first-use order, with its route count", async () => {
    const api = harness.api();
    await api.createRouteConfiguration(
      create(RouteConfigurationSchema, {
        name: "edge",
        virtualHosts: [
          {
            name: "all",
            domains: ["*"],
            routes: [
              { matchValue: "/a", actionKind: RouteActionKind.CLUSTER, cluster: "backend" },
              { matchValue: "/b", actionKind: RouteActionKind.CLUSTER, cluster: "backend" },
              {
                matchValue: "/c",
                actionKind: RouteActionKind.WEIGHTED_CLUSTERS,
                weightedClusters: [
                  { name: "backend", weight: 90 },
                  { name: "canary", weight: 10 },
                ],
              },
              { matchValue: "/", actionKind: RouteActionKind.CLUSTER, cluster: "canary" },
            ],
          },
        ],
      }),
    );
    const [targets] = (await api.listRouteConfigurations({ view: RouteConfigurationView.TARGETS }))
      .routeConfigurations;
    const host = targets?.virtualHosts[0];
    expect(host?.routeCount).toBe(4);
    expect(host?.domains).toEqual(["*"]);
    expect(
      host?.routes.map((r) => [
        r.cluster ?? "",
        r.weightedClusters.map((w) => `${w.name}=${w.weight}`),
      ]),
    ).toEqual([
      ["backend", []],
      ["", ["backend=90", "canary=10"]],
      ["canary", []],
    ]);
    expect(host?.routes.every((r) => r.matchValue === "")).toBe(true);
    // The default view is every route, as stored.
    const [full] = (await api.listRouteConfigurations({})).routeConfigurations;
    expect(full?.virtualHosts[0]?.routes.map((r) => r.matchValue)).toEqual(["/a", "/b", "/c", "/"]);
  });

  it("answers GetTopology from the draft, following its edits, and says when a focus is not in it", async () => {
    const api = harness.api();
    await api.createCluster(cluster("backend", 8080));
    await api.createRouteConfiguration(catchAllRoutes("edge", "backend"));
    const whole = await api.getTopology({});
    expect(whole.scope).toBe(TopologyScope.WHOLE);
    expect(whole.nodes.map((n) => n.id)).toEqual([
      "route-configuration:edge",
      "virtual-host:edge/all",
      "cluster:backend",
      "endpoint:backend/0",
    ]);
    expect(whole.edges.map((e) => `${e.source} ${e.target}`)).toContain(
      "virtual-host:edge/all cluster:backend",
    );
    expect(whole.choices.map((n) => n.id)).toEqual(["route-configuration:edge", "cluster:backend"]);
    // An edit is drawn at the next call: the server's graph follows the stored objects.
    await api.updateRouteConfiguration(catchAllRoutes("edge", "canary"));
    const edited = await api.getTopology({ focus: "route-configuration:edge" });
    expect(edited.scope).toBe(TopologyScope.FOCUSED);
    expect(edited.nodes.find((n) => n.id === "cluster:canary")).toMatchObject({
      missing: true,
      objectKind: ResourceKind.UNSPECIFIED,
    });
    expect(edited.nodes.map((n) => n.id)).not.toContain("cluster:backend");
    expect(edited.counts).toMatchObject({ routeConfigurations: 1, clusters: 1, endpoints: 1 });
    const gone = await api.getTopology({ focus: "cluster:renamed" });
    expect(gone.scope).toBe(TopologyScope.FOCUS_NOT_FOUND);
    expect(gone.nodes).toEqual([]);
  });

  it("refuses to create an object that exists and to update or delete one that does not", async () => {
    const api = harness.api();
    await api.createCluster(cluster("a", 1));
    expect((await refusal(api.createCluster(cluster("a", 2)))).code).toBe(Code.AlreadyExists);
    expect((await refusal(api.updateCluster(cluster("nope", 2)))).code).toBe(Code.NotFound);
    expect((await refusal(api.deleteCluster({ name: "nope" }))).code).toBe(Code.NotFound);
  });

  it("refuses an update of a version someone else changed since (update_time), keeps their change, and overwrites without update_time", async () => {
    const api = harness.api();
    const read = await api.createCluster(cluster("shared", 1));
    expect(read.updateTime).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const theirs = await api.updateCluster({
      ...cluster("shared", 2),
      updateTime: read.updateTime,
    });

    const mine = await refusal(
      api.updateCluster({ ...cluster("shared", 3), updateTime: read.updateTime }),
    );
    expect(mine.code).toBe(Code.Aborted);
    expect(mine.rawMessage).toMatch(/cluster "shared" was changed by someone else/);
    expect((await api.getCluster({ name: "shared" })).localities[0]?.endpoints[0]?.port).toBe(2);

    // Editing their version, or not naming one, is accepted.
    await api.updateCluster({ ...cluster("shared", 4), updateTime: theirs.updateTime });
    await api.updateCluster(cluster("shared", 5));
    expect((await api.getCluster({ name: "shared" })).localities[0]?.endpoints[0]?.port).toBe(5);
  });
});
