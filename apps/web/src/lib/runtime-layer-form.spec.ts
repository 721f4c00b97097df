import { describe, expect, it } from "vitest";
import {
  emptyRuntimeLayerForm,
  runtimeLayerFormOf,
  runtimeLayerFormSchema,
  runtimeLayerOfForm,
} from "./runtime-layer-form";

const form = (
  entries: { key: string; type: "number" | "boolean" | "string"; value: string }[],
) => ({
  name: "faults",
  entries,
});

const problems = (value: unknown) => {
  const result = runtimeLayerFormSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => [i.path.join("."), i.message]);
};

describe("the runtime layer form", () => {
  it("turns typed rows into typed entries and back", () => {
    const values = form([
      { key: "fault.http.abort.abort_percent", type: "number", value: "10.5" },
      { key: "envoy.reloadable_features.example", type: "boolean", value: "false" },
      { key: "tracing.label", type: "string", value: "edge" },
    ]);
    expect(problems(values)).toEqual([]);
    const message = runtimeLayerOfForm(values);
    expect(message.entries.map((e) => [e.key, e.value.case, e.value.value])).toEqual([
      ["fault.http.abort.abort_percent", "numberValue", 10.5],
      ["envoy.reloadable_features.example", "boolValue", false],
      ["tracing.label", "stringValue", "edge"],
    ]);
    expect(runtimeLayerFormOf(message)).toEqual(values);
  });

  it("puts a bad key, a repeated key and a value of the wrong type at their row", () => {
    expect(
      problems(
        form([
          { key: "a..b", type: "number", value: "1" },
          { key: "x", type: "number", value: "ten" },
          { key: "x", type: "boolean", value: "" },
        ]),
      ),
    ).toEqual([
      ["entries.0.key", "Dots separate non-empty parts: a.b.c"],
      ["entries.1.value", "Enter a number"],
      ["entries.2.key", "Key x is already set above"],
      ["entries.2.value", "Choose true or false"],
    ]);
  });

  it("starts a new layer with one empty row, which must be filled in", () => {
    expect(problems({ ...emptyRuntimeLayerForm(), name: "l" }).map(([path]) => path)).toEqual([
      "entries.0.key",
      "entries.0.value",
    ]);
  });
});
