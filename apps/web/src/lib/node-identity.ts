import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { NodeLocality } from "@switchyard/proto/switchyard/v1/status_pb";

/** "region / zone / sub-zone", leaving out the empty parts; "" when the node reported none. */
export function localityText(locality: NodeLocality | undefined): string {
  if (!locality) return "";
  return [locality.region, locality.zone, locality.subZone].filter((p) => p !== "").join(" / ");
}

/**
 * A node's metadata (Envoy's `node.metadata` Struct) as key/value lines for people: nested
 * objects become dotted keys (`labels.team`), strings are shown as they are, and every other
 * value (numbers, booleans, null, lists) as JSON. Sorted by key; an empty object nested in the
 * metadata is kept as `{}` so no key disappears.
 */
export function metadataEntries(metadata: JsonObject | undefined): [key: string, value: string][] {
  const entries: [string, string][] = [];
  const walk = (prefix: string, value: JsonValue) => {
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const keys = Object.keys(value);
      if (keys.length === 0 && prefix !== "") entries.push([prefix, "{}"]);
      for (const key of keys) walk(prefix === "" ? key : `${prefix}.${key}`, value[key] ?? null);
      return;
    }
    entries.push([prefix, typeof value === "string" ? value : JSON.stringify(value)]);
  };
  if (metadata) walk("", metadata);
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
