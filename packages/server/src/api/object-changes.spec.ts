import type { SourceChange } from "@switchyard/snapshot";
import {
  clusterSpec,
  configSpec,
  filterChainSpec,
  routeConfigurationSpec,
  socketListenerSpec,
} from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import { objectChanges } from "./object-changes.js";

const modified = (kind: SourceChange["kind"], name: string): SourceChange =>
  ({ kind, name, change: "modified" }) as SourceChange;

/** Route configuration "edge" sending everything to `cluster`. */
const edgeRoutes = (cluster: string) => routeConfigurationSpec("edge", cluster);

describe("a change's two sides, as Envoy YAML", () => {
  it("renders an object the same from any version that holds it, and a changed one anew", async () => {
    const blue = clusterSpec("blue");
    const v1 = configSpec({ clusters: [blue] });
    const v2 = configSpec({ clusters: [{ ...blue, connectTimeoutMs: 9_000 }] });
    const [first] = await objectChanges([modified("cluster", "blue")], { before: v1, after: v2 });
    const [again] = await objectChanges([modified("cluster", "blue")], { before: v1, after: v2 });
    expect(first?.before).toContain("name: blue");
    expect(first?.after).toContain("9s");
    expect(first?.before).not.toContain("9s");
    expect(again?.before).toBe(first?.before);
    expect(again?.after).toBe(first?.after);
  });

  it("shows a listener with the route configuration it embeds as it is in each version, though the listener itself did not change", async () => {
    const listener = socketListenerSpec("front", 8080, "unused", {
      filterChains: [filterChainSpec({ inlineRouteConfigName: "edge" })],
    });
    const v1 = configSpec({ listeners: [listener], routeConfigurations: [edgeRoutes("blue")] });
    const v2 = configSpec({ listeners: [listener], routeConfigurations: [edgeRoutes("green")] });
    const [change] = await objectChanges([modified("listener", "front")], {
      before: v1,
      after: v2,
    });
    expect(change?.before).toContain("cluster: blue");
    expect(change?.after).toContain("cluster: green");
  });
});
