/**
 * Runtime layers end to end: edited through ConfigService, published, and streamed over RTDS to
 * xDS clients that subscribe to a layer by name, as Envoy's layered_runtime rtds_layer does.
 */
import { create } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { registry } from "@switchyard/proto";
import type { Runtime } from "@switchyard/proto/envoy/service/runtime/v3/rtds_pb";
import {
  ChangeType,
  ResourceKind,
  type RuntimeLayer,
  RuntimeLayerSchema,
  ValidationErrorsSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { createTestClient, deltaNamesOf, namesOf, type TestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

const RTDS = TypeUrl.Runtime;

function layer(name: string, values: Record<string, string | number | boolean>): RuntimeLayer {
  return create(RuntimeLayerSchema, {
    name,
    entries: Object.entries(values).map(([key, value]) => ({
      key,
      value:
        typeof value === "string"
          ? { case: "stringValue" as const, value }
          : typeof value === "number"
            ? { case: "numberValue" as const, value }
            : { case: "boolValue" as const, value },
    })),
  });
}

describe("runtime layers through the API, publish and RTDS", () => {
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

  it("creates a layer, sorting its entries by key, and reads it back typed", async () => {
    const api = harness.api();
    const created = await api.createRuntimeLayer(
      layer("faults", {
        "fault.http.abort.abort_percent": 10,
        "envoy.reloadable_features.example": true,
        "tracing.label": "edge",
      }),
    );
    expect(created.updateTime).toBeDefined();
    const read = await api.getRuntimeLayer({ name: "faults" });
    expect(read.entries.map((e) => [e.key, e.value.case, e.value.value])).toEqual([
      ["envoy.reloadable_features.example", "boolValue", true],
      ["fault.http.abort.abort_percent", "numberValue", 10],
      ["tracing.label", "stringValue", "edge"],
    ]);
    expect((await api.listRuntimeLayers({})).runtimeLayers.map((l) => l.name)).toEqual(["faults"]);
    const { resources } = await api.listResources({ kind: ResourceKind.RUNTIME_LAYER });
    expect(resources.map((r) => [r.name, r.description])).toEqual([["faults", "3 keys"]]);
  });

  it("refuses an invalid key with InvalidArgument and the issue at the entry's key", async () => {
    const error = await refusal(
      harness.api().createRuntimeLayer(layer("bad", { "fault..percent": 1 })),
    );
    expect(error.code).toBe(Code.InvalidArgument);
    const [details] = error.findDetails(ValidationErrorsSchema);
    expect(details?.issues.map((i) => [i.code, i.path])).toEqual([
      ["invalid-runtime-key", 'runtimeLayers["bad"].entries[0].key'],
    ]);
  });

  it("refuses an update made from a stale update_time with ABORTED", async () => {
    const api = harness.api();
    const current = await api.getRuntimeLayer({ name: "faults" });
    await api.updateRuntimeLayer({ ...current, updateTime: current.updateTime });
    const error = await refusal(api.updateRuntimeLayer(current));
    expect(error.code).toBe(Code.Aborted);
  });

  it("shows the new layer in the draft's diff as its Envoy Runtime, and streams it once published", async () => {
    const api = harness.api();
    const diff = await api.diff({});
    expect(diff.changes.map((c) => [c.kind, c.name, c.change])).toEqual([
      [ResourceKind.RUNTIME_LAYER, "faults", ChangeType.ADDED],
    ]);
    expect(diff.changes[0]?.after).toContain(RTDS);
    expect(diff.changes[0]?.after).toContain("fault.http.abort.abort_percent: 10");
    await api.publish({ message: "faults", draftRevision: diff.draftRevision });

    const sotw = xds.open("ads", { node: { id: "rtds-sotw", cluster: "edge" } });
    const delta = xds.openDelta("ads", { node: { id: "rtds-delta", cluster: "edge" } });
    sotw.request(RTDS, ["faults"]);
    delta.request(RTDS, ["faults"]);
    const first = await sotw.next(5000);
    expect(namesOf(first)).toEqual(["faults"]);
    sotw.ack(first, ["faults"]);
    const deltaFirst = await delta.next(5000);
    expect(deltaNamesOf(deltaFirst)).toEqual(["faults"]);
    delta.ack(deltaFirst);

    // Without update_time: overwrite whatever is stored (as `switchyard apply` does).
    await api.updateRuntimeLayer(layer("faults", { "fault.http.abort.abort_percent": 50 }));
    await api.publish({ message: "more faults" });

    const update = await sotw.next(5000);
    const runtime = anyUnpack(update.resources[0] ?? ({} as never), registry) as Runtime;
    expect(runtime.layer).toEqual({ "fault.http.abort.abort_percent": 50 });
    sotw.ack(update, ["faults"]);
    const deltaUpdate = await delta.next(5000);
    const deltaRuntime = anyUnpack(
      deltaUpdate.resources[0]?.resource ?? ({} as never),
      registry,
    ) as Runtime;
    expect(deltaRuntime.layer).toEqual({ "fault.http.abort.abort_percent": 50 });
    delta.ack(deltaUpdate);

    const history = await api.listSnapshots({});
    const latest = await api.getSnapshot({ version: history.snapshots[0]?.version ?? 0n });
    expect(latest.changes.map((c) => [c.kind, c.name, c.change])).toEqual([
      [ResourceKind.RUNTIME_LAYER, "faults", ChangeType.MODIFIED],
    ]);

    // Rolling back to the first version restores the layer's first content, and streams it.
    await api.rollback({ version: history.snapshots[1]?.version ?? 0n, message: "undo" });
    const back = await sotw.next(5000);
    expect((anyUnpack(back.resources[0] ?? ({} as never), registry) as Runtime).layer).toEqual({
      "envoy.reloadable_features.example": true,
      "fault.http.abort.abort_percent": 10,
      "tracing.label": "edge",
    });
    sotw.ack(back, ["faults"]);
    sotw.close();
    delta.close();
  });

  it("exports runtime layers as Runtime resources and imports them back", async () => {
    const api = harness.api();
    const { content } = await api.export({});
    expect(content).toContain(RTDS);
    await api.deleteRuntimeLayer({ name: "faults" });
    const imported = await api.import({ content, filename: "export.yaml" });
    expect(imported.changes.map((c) => [c.kind, c.name, c.change])).toEqual([
      [ResourceKind.RUNTIME_LAYER, "faults", ChangeType.ADDED],
    ]);
    expect((await api.diff({})).changes).toEqual([]);
  });
});
