import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { z } from "zod";

/*
 * Building blocks shared by the configuration forms. Numbers are kept as the strings the user
 * typed (an empty optional field is "", never NaN) and parsed when the form becomes a message.
 */

export const NAME_RULE = /^[^\s\p{Cc}]+$/u;

/** An object name, as the server accepts it (draft-handlers.ts `checkName`). */
export const objectName = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `Give the ${what} a name`)
    .regex(NAME_RULE, "A name cannot contain spaces or control characters");

/** An unsigned integer typed as text, within bounds; "" allowed when `optional`. */
export function uintText(options: {
  min?: number;
  max?: number;
  optional?: boolean;
  what?: string;
}) {
  const { min = 0, max = 4_294_967_295, optional = false, what = "a value" } = options;
  return z.string().superRefine((value, ctx) => {
    const text = value.trim();
    if (text === "") {
      if (!optional) ctx.addIssue({ code: "custom", message: `Enter ${what}` });
      return;
    }
    if (!/^\d+$/.test(text)) {
      ctx.addIssue({ code: "custom", message: "Enter a whole number" });
      return;
    }
    const n = Number(text);
    if (n < min || n > max) {
      ctx.addIssue({ code: "custom", message: `Enter a number from ${min} to ${max}` });
    }
  });
}

/** The number in an integer field, `undefined` when it was left empty. */
export function parseUint(text: string): number | undefined {
  const t = text.trim();
  return t === "" ? undefined : Number(t);
}

export const uintToText = (value: number | undefined | null): string =>
  value === undefined || value === null ? "" : String(value);

/** Text that must be empty or JSON of the given shape. */
export function jsonText(shape: "object" | "array") {
  return z.string().superRefine((value, ctx) => {
    if (value.trim() === "") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      ctx.addIssue({
        code: "custom",
        message: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      });
      return;
    }
    const ok =
      shape === "array"
        ? Array.isArray(parsed) && parsed.every((v) => isObject(v))
        : isObject(parsed);
    if (!ok) {
      ctx.addIssue({
        code: "custom",
        message:
          shape === "array"
            ? "Enter a JSON list of objects: [ {…} ]"
            : "Enter a JSON object: { … }",
      });
    }
  });
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Pretty JSON for a textarea; "" for nothing. */
export function toJsonText(value: JsonValue | undefined): string {
  if (value === undefined) return "";
  if (Array.isArray(value) && value.length === 0) return "";
  if (isObject(value) && Object.keys(value).length === 0) return "";
  return JSON.stringify(value, null, 2);
}

export function parseJsonObject(text: string): JsonObject | undefined {
  if (text.trim() === "") return undefined;
  const value: unknown = JSON.parse(text);
  return isObject(value) ? value : undefined;
}

export function parseJsonObjects(text: string): JsonObject[] {
  if (text.trim() === "") return [];
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** "a, b ,c" or one per line → ["a", "b", "c"]. */
export function splitList(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

export const joinList = (values: readonly string[]): string => values.join(", ");

/** Opaque JSON carried through a form unchanged (the Envoy fields the form does not edit). */
export const passthrough = z.custom<JsonObject | undefined>(() => true);

/** A proto3 JSON Duration ("1.5s") in milliseconds; `undefined` if it is not one. */
export function durationMs(value: JsonValue | undefined): number | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^(\d+(?:\.\d+)?)s$/.exec(value);
  return m?.[1] === undefined ? undefined : Math.round(Number(m[1]) * 1000);
}

/** Milliseconds as a proto3 JSON Duration: 1500 → "1.500s", 2000 → "2s". */
export function msDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(3)}s`;
}

/** `base` without `keys`, then `values` without the undefined ones. */
export function mergeManaged(
  base: JsonObject | undefined,
  keys: readonly string[],
  values: Record<string, JsonValue | undefined>,
): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(base ?? {})) if (!keys.includes(k)) out[k] = v;
  for (const [k, v] of Object.entries(values)) if (v !== undefined) out[k] = v;
  return out;
}

export const isEmptyObject = (value: JsonObject): boolean => Object.keys(value).length === 0;

/** Protobuf enums as form choices (proto-enum.ts). */
export { type EnumValueName, enumName, enumValueNames } from "./proto-enum";
