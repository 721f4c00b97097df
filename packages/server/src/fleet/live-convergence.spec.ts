import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { compile, type ResourceSnapshot, TypeUrl, versionOf } from "@switchyard/snapshot";
import {
  clusterSpec,
  configSpec,
  endpointSpec,
  nodeGroupSpec,
} from "@switchyard/snapshot/fixtures";
import type { AckedState } from "@switchyard/status";
import { nodeLike, streamOf, trackerWithClock } from "@switchyard/status/fixtures";
import { describe, expect, it } from "vitest";
import { publicationOf } from "./live-convergence.js";

// A full collection on demand, to see what a publication keeps alive.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const CDS = TypeUrl.Cluster;

/** Clusters `a` and `b`: node "canary-1" (group "canary") gets `b` only, the others both. */
const config = (timeoutMs = 1000) =>
  compile(
    configSpec({
      clusters: ["a", "b"].map((name) =>
        clusterSpec(name, [endpointSpec("10.0.0.1", 8080)], { connectTimeoutMs: timeoutMs }),
      ),
      nodeGroups: [
        nodeGroupSpec("canary", { priority: 1, nodeIds: ["canary-1"], clusters: ["b"] }),
      ],
    }),
  );

/** An ACK holding `resources` (name → version), with the version_info the server gives them. */
const acked = (resources: ReadonlyMap<string, string>): AckedState => ({
  versionInfo: versionOf(resources),
  nonce: "1",
  at: 0,
  held: resources,
  resourceVersionsKnown: true,
});

/** What the group `name` of `compiled` gives of CDS, name → version. */
const clustersOf = (compiled: ReturnType<typeof config>, name: string) => {
  const snapshot = compiled.groups.find((g) => g.name === name)?.snapshot as ResourceSnapshot;
  return new Map([...snapshot.resources(CDS)].map(([n, r]) => [n, r.version]));
};

describe("publicationOf", () => {
  it("a node holds a type when its ACK holds exactly what its own node group gives it", () => {
    const { tracker } = trackerWithClock();
    streamOf(tracker, 1, nodeLike("canary-1"));
    streamOf(tracker, 2, nodeLike("other-1"));
    const compiled = config();
    const publication = publicationOf(compiled, 7, tracker, 0);
    expect(publication.version).toBe("7");
    expect([...publication.targets].sort()).toEqual(["canary-1", "other-1"]);

    const canary = clustersOf(compiled, "canary");
    const rest = clustersOf(compiled, "default");
    expect([...canary.keys()]).toEqual(["b"]);
    expect([...rest.keys()]).toEqual(["a", "b"]);
    expect(publication.holds("canary-1", CDS, acked(canary))).toBe(true);
    expect(publication.holds("canary-1", CDS, acked(rest))).toBe(false);
    expect(publication.holds("other-1", CDS, acked(rest))).toBe(true);
    expect(publication.holds("other-1", CDS, undefined)).toBe(false);
    // Another version of the same clusters is not what was published.
    expect(publication.holds("other-1", CDS, acked(clustersOf(config(2000), "default")))).toBe(
      false,
    );
  });

  it("the same ACK is judged again when the node comes back as another node group's member", () => {
    const { tracker } = trackerWithClock();
    streamOf(tracker, 1, nodeLike("edge-1"));
    const compiled = compile(
      configSpec({
        clusters: ["a", "b"].map((name) => clusterSpec(name, [endpointSpec("10.0.0.1", 8080)])),
        nodeGroups: [
          nodeGroupSpec("canary", {
            priority: 1,
            nodeMetadata: { track: "canary" },
            clusters: ["b"],
          }),
        ],
      }),
    );
    const publication = publicationOf(compiled, 7, tracker, 0);
    const rest = acked(clustersOf(compiled, "default"));
    expect(publication.holds("edge-1", CDS, rest)).toBe(true);
    // The node reconnects with the canary group's metadata: that group gives `b` only.
    streamOf(tracker, 2, nodeLike("edge-1", { metadata: { track: "canary" } }));
    expect(publication.holds("edge-1", CDS, rest)).toBe(false);
    expect(publication.holds("edge-1", CDS, acked(clustersOf(compiled, "canary")))).toBe(true);
  });

  it("keeps names and versions, not the config's encoded resources: a tracker keeps the last versions' publications", async () => {
    const { tracker } = trackerWithClock();
    streamOf(tracker, 1, nodeLike("other-1"));
    // Nothing but the publication (and a weak reference) outlives this function.
    const { publication, rest, body } = (() => {
      const compiled = config();
      const resource = compiled.groups
        .find((g) => g.isDefault)
        ?.snapshot.resources(CDS)
        .get("a");
      if (resource === undefined) throw new Error("no cluster a");
      return {
        publication: publicationOf(compiled, 1, tracker, 0),
        rest: clustersOf(compiled, "default"),
        body: new WeakRef(resource.body),
      };
    })();
    // WeakRef targets stay alive until the current job ends, and one full collection may leave
    // what a job of the test runner still held (it failed once in CI so): collect in a few new
    // jobs. Something that really kept the bytes would keep them through every one.
    for (let attempt = 0; attempt < 5 && body.deref() !== undefined; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
    }
    expect(body.deref()).toBeUndefined();
    expect(publication.holds("other-1", CDS, acked(rest))).toBe(true);
  });
});
