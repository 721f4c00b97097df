import { create } from "@bufbuild/protobuf";
import {
  type RuntimeEntry,
  type RuntimeLayer,
  RuntimeLayerSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { z } from "zod";
import { objectName } from "./form-values";
import type { FieldMap } from "./issue-path";

/**
 * The runtime layer form's values, and how they become a `switchyard.v1.RuntimeLayer` and back.
 * Each entry is a key, a type and the value as typed; the rules are the server's
 * (packages/snapshot validate-runtime.ts), checked here first so that errors show as you type.
 */

export const RUNTIME_TYPES = ["number", "boolean", "string"] as const;
export type RuntimeType = (typeof RUNTIME_TYPES)[number];

const KEY_SEGMENT = /^[^\s\p{Cc}.]+$/u;

function keyProblem(key: string): string | undefined {
  if (key === "") return "Enter a key, e.g. fault.http.abort.abort_percent";
  if (/[\s\p{Cc}]/u.test(key)) return "A key cannot contain spaces or control characters";
  if (!key.split(".").every((segment) => KEY_SEGMENT.test(segment)))
    return "Dots separate non-empty parts: a.b.c";
  return undefined;
}

function valueProblem(type: RuntimeType, value: string): string | undefined {
  if (type === "number") {
    const text = value.trim();
    return text === "" || !Number.isFinite(Number(text)) ? "Enter a number" : undefined;
  }
  if (type === "boolean")
    return value === "true" || value === "false" ? undefined : "Choose true or false";
  return undefined;
}

const entrySchema = z.object({
  key: z.string(),
  type: z.enum(RUNTIME_TYPES),
  value: z.string(),
});

export const runtimeLayerFormSchema = z.object({
  name: objectName("runtime layer"),
  entries: z.array(entrySchema).superRefine((entries, ctx) => {
    const seen = new Set<string>();
    entries.forEach((entry, index) => {
      const key = keyProblem(entry.key);
      if (key) ctx.addIssue({ code: "custom", message: key, path: [index, "key"] });
      else if (seen.has(entry.key))
        ctx.addIssue({
          code: "custom",
          message: `Key ${entry.key} is already set above`,
          path: [index, "key"],
        });
      seen.add(entry.key);
      const value = valueProblem(entry.type, entry.value);
      if (value) ctx.addIssue({ code: "custom", message: value, path: [index, "value"] });
    });
  }),
});

export type RuntimeLayerForm = z.infer<typeof runtimeLayerFormSchema>;
export type RuntimeEntryForm = RuntimeLayerForm["entries"][number];

export const newRuntimeEntry = (): RuntimeEntryForm => ({ key: "", type: "number", value: "" });

export const emptyRuntimeLayerForm = (): RuntimeLayerForm => ({
  name: "",
  entries: [newRuntimeEntry()],
});

function entryFormOf(entry: RuntimeEntry): RuntimeEntryForm {
  switch (entry.value.case) {
    case "numberValue":
      return { key: entry.key, type: "number", value: String(entry.value.value) };
    case "boolValue":
      return { key: entry.key, type: "boolean", value: String(entry.value.value) };
    case "stringValue":
      return { key: entry.key, type: "string", value: entry.value.value };
    default:
      return { key: entry.key, type: "string", value: "" };
  }
}

export function runtimeLayerFormOf(layer: RuntimeLayer): RuntimeLayerForm {
  return { name: layer.name, entries: layer.entries.map(entryFormOf) };
}

function entryValue(entry: RuntimeEntryForm): RuntimeEntry["value"] {
  switch (entry.type) {
    case "number":
      return { case: "numberValue", value: Number(entry.value.trim()) };
    case "boolean":
      return { case: "boolValue", value: entry.value === "true" };
    default:
      return { case: "stringValue", value: entry.value };
  }
}

export function runtimeLayerOfForm(form: RuntimeLayerForm): RuntimeLayer {
  return create(RuntimeLayerSchema, {
    name: form.name.trim(),
    entries: form.entries.map((entry) => ({ key: entry.key.trim(), value: entryValue(entry) })),
  });
}

export const runtimeLayerFieldMap: FieldMap = {
  fields: ["name", "entries", "entries.*.key", "entries.*.value"],
};

/** How a stored value reads in the list: `10`, `true`, `"edge"`. */
export function runtimeValueText(entry: RuntimeEntry): string {
  switch (entry.value.case) {
    case "stringValue":
      return JSON.stringify(entry.value.value);
    case "numberValue":
    case "boolValue":
      return String(entry.value.value);
    default:
      return "";
  }
}
