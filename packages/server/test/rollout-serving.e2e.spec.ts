/**
 * A rollout's serving through the whole server (Switchyard.rollout, rollout-serving.ts): a hold
 * given before the publish makes the published version reach none of the group's nodes until
 * they are promoted; settling it reaches them all. Real Postgres, real ADS streams.
 */
import { DEFAULT_GROUP_NAME } from "@switchyard/snapshot";
import { createTestClient, namesOf, type TestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster } from "../src/testing/api-objects.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { TYPE } from "../src/testing/shop.js";

const { CDS } = TYPE;
const node = (id: string) => ({ id, cluster: "", metadata: {} });

describe("a rollout served by the server: hold, publish, promote, settle", () => {
  let harness: Harness;
  let xds: TestClient;

  beforeAll(async () => {
    harness = await startHarness();
    xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);
  });

  afterAll(async () => {
    xds?.close();
    await harness?.stop();
  });

  it("the published version reaches a held group's nodes only as they are promoted, and all of them once settled", async () => {
    const api = harness.api();
    await api.createCluster(edsCluster("blue", "127.0.0.1:9001"));
    const v1 = Number((await api.publish({ message: "blue" })).snapshot?.version ?? 0);
    const open = async (id: string) => {
      const stream = xds.open("ads", { node: { id } });
      stream.request(CDS, []);
      const first = await stream.next();
      stream.ack(first, []);
      expect(namesOf(first)).toEqual(["blue"]);
      return stream;
    };
    const canary = await open("canary-1");
    const control = await open("control-1");

    // Given before the publish, as the driver gives it: v2 is installed held.
    await harness.app.rollout({
      t: "hold",
      group: DEFAULT_GROUP_NAME,
      fromVersion: v1,
      toVersion: v1 + 1,
      promoted: [],
    });
    await api.createCluster(edsCluster("green", "127.0.0.1:9002"));
    const v2 = Number((await api.publish({ message: "green" })).snapshot?.version ?? 0);
    expect(v2).toBe(v1 + 1);
    await Promise.all([canary.expectNoResponse(400), control.expectNoResponse(400)]);
    expect(harness.app.cache.version).toBe(v2);
    expect(harness.app.cache.servedTo(node("canary-1"))?.version).toBe(v1);

    await harness.app.rollout({ t: "promote", group: DEFAULT_GROUP_NAME, nodeIds: ["canary-1"] });
    const promoted = await canary.next();
    canary.ack(promoted, []);
    expect(namesOf(promoted)).toEqual(["blue", "green"]);
    await control.expectNoResponse(400);
    expect(harness.app.cache.servedTo(node("canary-1"))?.version).toBe(v2);
    expect(harness.app.cache.servedTo(node("control-1"))?.version).toBe(v1);

    await harness.app.rollout({ t: "settle", group: DEFAULT_GROUP_NAME, version: v2 });
    const settled = await control.next();
    expect(namesOf(settled)).toEqual(["blue", "green"]);
    await canary.expectNoResponse(400);
    expect(harness.app.cache.heldGroups).toEqual([]);
  });
});
