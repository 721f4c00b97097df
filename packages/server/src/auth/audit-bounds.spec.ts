import { describe, expect, it } from "vitest";
import { AUDIT_DETAIL_BYTES, AUDIT_TEXT_BYTES, boundedAuditDetail } from "./audit-bounds.js";

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

describe("boundedAuditDetail", () => {
  it("keeps a detail within the bounds as it is", () => {
    const detail = { comment: "ship it", diff: [{ kind: "cluster", name: "blue" }], cases: 3 };
    expect(boundedAuditDetail(detail)).toEqual(detail);
  });

  it("cuts each string over AUDIT_TEXT_BYTES, at any depth, with the marker", () => {
    const long = "é".repeat(AUDIT_TEXT_BYTES);
    const bounded = boundedAuditDetail({ comment: long, diff: { after: { lua: long } } });
    const comment = bounded.comment as string;
    expect(Buffer.byteLength(comment, "utf8")).toBeLessThanOrEqual(AUDIT_TEXT_BYTES);
    expect(comment).toMatch(/^é+… \[truncated \d+ bytes\]$/);
    expect(bounded.diff).toEqual({ after: { lua: comment } });
  });

  it("stores a detail over AUDIT_DETAIL_BYTES in all as its JSON cut to size, with the marker", () => {
    const diff = Array.from({ length: 10_000 }, (_, i) => ({ kind: "cluster", name: `c-${i}` }));
    const bounded = boundedAuditDetail({ diff });
    expect(Object.keys(bounded)).toEqual(["truncatedJson"]);
    expect(bounded.truncatedJson).toMatch(
      /^\{"diff":\[\{"kind":"cluster".*… \[truncated \d+ bytes\]$/,
    );
    expect(Buffer.byteLength(bounded.truncatedJson as string, "utf8")).toBeLessThanOrEqual(
      AUDIT_DETAIL_BYTES,
    );
    // Stored as JSON, its quotes escaped: still within twice the bound.
    expect(bytes(bounded)).toBeLessThanOrEqual(2 * AUDIT_DETAIL_BYTES);
  });
});
