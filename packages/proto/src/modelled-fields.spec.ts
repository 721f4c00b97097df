import { describe, expect, it } from "vitest";
import { registry } from "./index.js";
import { MODELLED_FIELDS } from "./modelled-fields.js";

describe("the modelled fields a newer Envoy API must keep", () => {
  it("each name a field of the bundled API, so the check of a newer one covers every one of them", () => {
    const missing = Object.entries(MODELLED_FIELDS).flatMap(([type, fields]) => {
      const desc = registry.getMessage(type);
      if (!desc) return [`${type} (no such message)`];
      return fields
        .filter((name) => !desc.fields.some((f) => f.name === name))
        .map((f) => `${type}.${f}`);
    });
    expect(missing).toEqual([]);
  });
});
