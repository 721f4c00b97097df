/**
 * Small helpers over proto3 JSON values for the Envoy import (envoy-import.ts): reading a field as
 * an object, list, string or number without throwing, structural comparison, and how a value reads
 * in an error message.
 */
import type { JsonObject, JsonValue } from "../model.js";

/** One step into a JSON value: an object key or a list index. */
export type Segment = string | number;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isObject(value: JsonValue | undefined): value is JsonObject {
  return isRecord(value);
}

export function asObject(value: JsonValue | undefined): JsonObject {
  return isObject(value) ? value : {};
}

export function asArray(value: JsonValue | undefined): readonly JsonValue[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: JsonValue | undefined): string {
  return typeof value === "string" ? value : "";
}

export function asNumber(value: JsonValue | undefined): number | null {
  return typeof value === "number" ? value : null;
}

export function nonEmpty(value: JsonObject): boolean {
  return Object.keys(value).length > 0;
}

/** The entries whose value is defined. */
export function compact(entries: Record<string, JsonValue | undefined>): JsonObject {
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(entries)) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** Structural equality of JSON values; object key order does not matter. */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return firstDifference(a, b) === undefined;
}

/** The path of the first place where `a` and `b` differ, or undefined when they are equal. */
export function firstDifference(
  a: JsonValue | undefined,
  b: JsonValue | undefined,
  at: readonly Segment[] = [],
): Segment[] | undefined {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const difference = firstDifference(a[i], b[i], [...at, i]);
      if (difference) return difference;
    }
    return undefined;
  }
  if (isObject(a) && isObject(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const difference = firstDifference(a[key], b[key], [...at, key]);
      if (difference) return difference;
    }
    return undefined;
  }
  return a === b ? undefined : [...at];
}

export function valueAt(
  json: JsonValue | undefined,
  at: readonly Segment[],
): JsonValue | undefined {
  let node = json;
  for (const segment of at) {
    if (Array.isArray(node) && typeof segment === "number") node = node[segment];
    else if (isObject(node) && typeof segment === "string") node = node[segment];
    else return undefined;
  }
  return node;
}

/** How a value reads in a message: `string "abc"`, `number 5`, `a list`. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  switch (typeof value) {
    case "string":
      return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case "number":
    case "boolean":
      return `${typeof value} ${String(value)}`;
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}
