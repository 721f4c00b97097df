// Hostile text: deep nesting and sheer size are refused with a clear error before anything
// recursive reads them (the yaml composer and every walker after it would overflow the stack).
import { describe, expect, it } from "vitest";
import { importEnvoyConfig, parseEnvoyConfig } from "../index.js";
import { MAX_IMPORT_BYTES, MAX_NESTING } from "./envoy-import-parse.js";

/** A cluster whose metadata holds a Struct nested `depth` maps deep under filter_metadata. */
function clusterWithMetadataDepth(depth: number): string {
  const value = `${"{a: ".repeat(depth)}1${"}".repeat(depth)}`;
  return `clusters:
- name: deep
  connect_timeout: 1s
  metadata:
    filter_metadata:
      envoy.lb: ${value}
`;
}

function onlyError(text: string, filename?: string) {
  const parsed = parseEnvoyConfig(text, filename === undefined ? {} : { filename });
  expect("errors" in parsed).toBe(true);
  const { errors } = parsed as { errors: readonly { message: string; line?: number }[] };
  expect(errors).toHaveLength(1);
  return errors[0] as { message: string; line?: number; column?: number };
}

describe("import bounds", () => {
  it.each([
    ["a YAML flow list", `a: ${"[".repeat(20_000)}${"]".repeat(20_000)}`, undefined],
    ["compact YAML block lists", `${"- ".repeat(20_000)}x`, undefined],
    ["JSON lists read as YAML", `${"[".repeat(20_000)}${"]".repeat(20_000)}`, "x.yaml"],
    ["JSON objects", `${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}`, "x.json"],
  ])(
    "refuses %s nested 20,000 deep with the depth and where, instead of overflowing the stack",
    (_, text, filename) => {
      const error = onlyError(text, filename);

      expect(error.message).toContain(`more than ${MAX_NESTING} deep`);
      expect(error.line).toBe(1);
      expect(error.column).toBeGreaterThan(MAX_NESTING);
    },
  );

  it("refuses the same text again: a refused document leaves nothing behind", () => {
    const text = `a: ${"[".repeat(20_000)}${"]".repeat(20_000)}`;
    for (let i = 0; i < 5; i++) expect(onlyError(text).message).toContain("deep");
  });

  it("imports a Struct nested 40 maps deep: real configs below the bound are untouched", () => {
    const parsed = parseEnvoyConfig(clusterWithMetadataDepth(40));
    if ("errors" in parsed) throw new Error(parsed.errors[0]?.message);
    const imported = importEnvoyConfig(parsed.resources);

    expect(imported.issues.filter((issue) => issue.severity === "error")).toEqual([]);
    expect(imported.spec.clusters?.map((cluster) => cluster.name)).toEqual(["deep"]);
  });

  it("refuses the same Struct nested past the bound, at its line", () => {
    const error = onlyError(clusterWithMetadataDepth(MAX_NESTING));

    expect(error.message).toContain(`more than ${MAX_NESTING} deep`);
    expect(error.line).toBe(6);
  });

  it("refuses text larger than the bound, saying how large it is and what is accepted", () => {
    const text = `# ${"x".repeat(MAX_IMPORT_BYTES)}\nclusters: []\n`;

    const error = onlyError(text);

    expect(error.message).toContain(`${Buffer.byteLength(text)} bytes`);
    expect(error.message).toContain("8 MiB");
  });

  it("counts the size in UTF-8 bytes, not characters", () => {
    const text = `# ${"é".repeat(MAX_IMPORT_BYTES / 2)}\nclusters: []\n`;
    expect(text.length).toBeLessThan(MAX_IMPORT_BYTES);

    expect(onlyError(text).message).toContain("more than the");
  });
});
