import { fromBinary } from "@bufbuild/protobuf";
import { RuntimeSchema } from "@switchyard/proto/envoy/service/runtime/v3/rtds_pb";
import { describe, expect, it } from "vitest";
import { compile } from "../compile.js";
import { exportEnvoyConfig } from "../envoy/envoy-export.js";
import { envoyForm } from "../envoy/envoy-form.js";
import {
  clusterSpec,
  configSpec,
  endpointSpec,
  nodeGroupSpec,
  routeConfigurationSpec,
  runtimeLayerSpec,
  socketListenerSpec,
} from "../fixtures.js";
import { importEnvoyConfig, parseEnvoyConfig } from "../import/envoy-import.js";
import type { ConfigSpec, RuntimeLayerSpec } from "../model.js";
import { diffManifests, draftRevision, sourceManifest, sourceObjects } from "../sources.js";
import { validate } from "../validate/validate.js";
import { planUpdate } from "./plan.js";
import { TypeUrl } from "./resource-snapshot.js";

const faults = runtimeLayerSpec("faults", {
  "fault.http.abort.abort_percent": 10,
  "fault.http.abort.http_status": 503,
  "envoy.reloadable_features.example": true,
  "tracing.client_sampling_label": "edge",
});

/** A cluster, route configuration and listener that compile, plus `layers`. */
function withLayers(...layers: RuntimeLayerSpec[]): ConfigSpec {
  return configSpec({
    clusters: [clusterSpec("x", [endpointSpec("10.0.0.1", 8001)])],
    routeConfigurations: [routeConfigurationSpec("routes", "x")],
    listeners: [socketListenerSpec("edge", 8080, "routes")],
    runtimeLayers: layers,
  });
}

function defaultSnapshot(spec: ConfigSpec) {
  const compiled = compile(spec);
  expect(compiled.issues).toEqual([]);
  const group = compiled.groups.find((g) => g.isDefault);
  if (!group) throw new Error("no default group");
  return group.snapshot;
}

describe("compiling runtime layers", () => {
  it("compiles a layer to envoy.service.runtime.v3.Runtime named as the layer, its entries as a flat Struct", () => {
    const resource = defaultSnapshot(withLayers(faults)).get(TypeUrl.Runtime, "faults");
    expect(resource?.references).toEqual([]);
    const runtime = fromBinary(RuntimeSchema, resource?.body ?? new Uint8Array());
    expect(runtime.name).toBe("faults");
    expect(runtime.layer).toEqual({
      "envoy.reloadable_features.example": true,
      "fault.http.abort.abort_percent": 10,
      "fault.http.abort.http_status": 503,
      "tracing.client_sampling_label": "edge",
    });
  });

  it("gives equal layers equal versions and a changed value a new one", () => {
    const version = (layer: RuntimeLayerSpec) =>
      defaultSnapshot(withLayers(layer)).get(TypeUrl.Runtime, layer.name)?.version;
    const same = runtimeLayerSpec("faults", {
      "tracing.client_sampling_label": "edge",
      "fault.http.abort.http_status": 503,
      "fault.http.abort.abort_percent": 10,
      "envoy.reloadable_features.example": true,
    });
    expect(version(same)).toBe(version(faults));
    expect(version(runtimeLayerSpec("faults", { "fault.http.abort.abort_percent": 11 }))).not.toBe(
      version(faults),
    );
  });

  it("gives every node group every runtime layer, whatever listeners and clusters it selects", () => {
    const compiled = compile({
      ...withLayers(faults, runtimeLayerSpec("flags", { "feature.x": false })),
      nodeGroups: [nodeGroupSpec("edge-only", { nodeClusters: ["edge"], listeners: ["edge"] })],
    });
    expect(compiled.issues).toEqual([]);
    for (const group of compiled.groups) {
      expect([...group.snapshot.resources(TypeUrl.Runtime).keys()]).toEqual(["faults", "flags"]);
    }
  });
});

describe("validating runtime layers", () => {
  const issuesOf = (layer: RuntimeLayerSpec) =>
    validate(configSpec({ runtimeLayers: [layer] })).issues.map((i) => [i.code, i.path]);
  const layer = (entries: RuntimeLayerSpec["entries"]): RuntimeLayerSpec => ({
    name: "l",
    entries,
  });

  it("accepts dotted keys with string, number and boolean values", () => {
    expect(validate(configSpec({ runtimeLayers: [faults] })).issues).toEqual([]);
  });

  it("refuses an empty key, a key with whitespace and a key with an empty segment, at the key", () => {
    for (const key of ["", "fault. http", "a..b", ".a", "a."]) {
      expect(issuesOf(layer([{ key, value: 1 }]))).toEqual([
        ["invalid-runtime-key", 'runtimeLayers["l"].entries[0].key'],
      ]);
    }
  });

  it("refuses a key listed twice, at the second one", () => {
    expect(
      issuesOf(
        layer([
          { key: "a.b", value: 1 },
          { key: "a.b", value: 2 },
        ]),
      ),
    ).toEqual([["duplicate-runtime-key", 'runtimeLayers["l"].entries[1].key']]);
  });

  it("refuses a value that is not a string, a finite number or a boolean, at the value", () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, null, [1], { a: 1 }]) {
      const issues = validate(
        configSpec({ runtimeLayers: [layer([{ key: "a", value: value as never }])] }),
      ).issues;
      expect(issues[0]).toMatchObject({
        code: "invalid-runtime-value",
        path: 'runtimeLayers["l"].entries[0].value',
        severity: "error",
      });
    }
  });

  it("refuses a layer name with whitespace and two layers of one name", () => {
    expect(issuesOf({ name: "a b", entries: [] })).toEqual([
      ["invalid-name", 'runtimeLayers["a b"].name'],
    ]);
    const twice = validate(configSpec({ runtimeLayers: [faults, faults] })).issues;
    expect(twice.map((i) => i.code)).toEqual(["duplicate-name"]);
  });
});

describe("runtime layers in the make-before-break plan", () => {
  it("sends runtime layers after every other type, removals included", () => {
    const before = defaultSnapshot(
      configSpec({
        clusters: [clusterSpec("old", [endpointSpec("10.0.0.1", 8001)])],
        routeConfigurations: [routeConfigurationSpec("routes", "old")],
        listeners: [socketListenerSpec("edge", 8080, "routes")],
        runtimeLayers: [runtimeLayerSpec("gone", { a: 1 })],
      }),
    );
    const after = defaultSnapshot(withLayers(faults));
    const plan = planUpdate(before, after);
    expect(plan.map((step) => [step.t, step.typeUrl])).toEqual([
      ["make", TypeUrl.Cluster],
      ["make", TypeUrl.ClusterLoadAssignment],
      ["make", TypeUrl.RouteConfiguration],
      ["break", TypeUrl.Cluster],
      ["break", TypeUrl.ClusterLoadAssignment],
      ["make", TypeUrl.Runtime],
    ]);
    const last = plan.at(-1);
    expect(last?.changed.map((r) => r.name)).toEqual(["faults"]);
    expect(last?.removed).toEqual(["gone"]);
  });

  it("makes a one-step plan when only a runtime value changed", () => {
    const plan = planUpdate(
      defaultSnapshot(withLayers(faults)),
      defaultSnapshot(withLayers(runtimeLayerSpec("faults", { a: 2 }))),
    );
    expect(plan.map((step) => step.typeUrl)).toEqual([TypeUrl.Runtime]);
  });
});

describe("runtime layers as source objects", () => {
  it("diffs a changed layer as a modified runtimeLayer", () => {
    const before = sourceManifest(sourceObjects(withLayers(faults)));
    const after = sourceManifest(
      sourceObjects(
        withLayers(runtimeLayerSpec("faults", { "fault.http.abort.abort_percent": 5 })),
      ),
    );
    expect(diffManifests(before, after).map((c) => [c.kind, c.name, c.change])).toEqual([
      ["runtimeLayer", "faults", "modified"],
    ]);
  });

  it("diffs against a manifest stored before runtime layers existed", () => {
    const { runtimeLayer: _, ...old } = sourceManifest(sourceObjects(withLayers()));
    const changes = diffManifests(old as never, sourceManifest(sourceObjects(withLayers(faults))));
    expect(changes.map((c) => [c.kind, c.name, c.change])).toEqual([
      ["runtimeLayer", "faults", "added"],
    ]);
  });

  it("keeps a draft's revision when it has no runtime layer, as before the kind existed", () => {
    const manifest = sourceManifest(sourceObjects(withLayers()));
    const { runtimeLayer: _, ...old } = manifest;
    expect(draftRevision(manifest)).toBe(draftRevision(old as never));
  });
});

describe("runtime layers in and out as Envoy config", () => {
  const importText = (text: string) => {
    const parsed = parseEnvoyConfig(text, { filename: "runtime.yaml" });
    if ("errors" in parsed) throw new Error(JSON.stringify(parsed.errors));
    return importEnvoyConfig(parsed.resources);
  };

  it("shows a layer's Envoy form as a Runtime with @type", () => {
    expect(envoyForm(withLayers(faults), "runtimeLayer", "faults")).toEqual([
      {
        "@type": TypeUrl.Runtime,
        name: "faults",
        layer: {
          "envoy.reloadable_features.example": true,
          "fault.http.abort.abort_percent": 10,
          "fault.http.abort.http_status": 503,
          "tracing.client_sampling_label": "edge",
        },
      },
    ]);
  });

  it("exports runtime layers last and imports them back unchanged", () => {
    const spec = withLayers(faults);
    const text = exportEnvoyConfig(spec, { format: "yaml" });
    expect(text.lastIndexOf(TypeUrl.Runtime)).toBeGreaterThan(text.lastIndexOf("Listener"));
    const result = importText(text);
    expect(result.issues.filter((i) => i.severity === "error")).toEqual([]);
    expect(result.spec.runtimeLayers).toEqual([faults]);
  });

  it("imports a nested layer with its keys joined by dots, noting it", () => {
    const result = importText(
      [
        `- "@type": ${TypeUrl.Runtime}`,
        "  name: faults",
        "  layer:",
        "    fault:",
        "      http:",
        "        abort:",
        "          abort_percent: 10",
        "    health_check.min_interval: 5",
      ].join("\n"),
    );
    expect(result.spec.runtimeLayers).toEqual([
      runtimeLayerSpec("faults", {
        "fault.http.abort.abort_percent": 10,
        "health_check.min_interval": 5,
      }),
    ]);
    expect(result.issues).toEqual([
      expect.objectContaining({ severity: "info", path: "[0].layer" }),
    ]);
  });

  it("refuses a FractionalPercent or list value, naming the key", () => {
    const result = importText(
      [
        `- "@type": ${TypeUrl.Runtime}`,
        "  name: faults",
        "  layer:",
        "    fault.http.abort.abort_percent: { numerator: 10, denominator: HUNDRED }",
      ].join("\n"),
    );
    expect(result.spec.runtimeLayers).toEqual([]);
    expect(result.issues).toEqual([
      expect.objectContaining({
        severity: "error",
        path: '[0].layer["fault.http.abort.abort_percent"]',
        message: expect.stringContaining("FractionalPercent"),
      }),
    ]);
  });
});
