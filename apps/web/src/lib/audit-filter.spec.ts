import { describe, expect, it } from "vitest";
import {
  auditDiffOf,
  auditExportHref,
  auditFilterFromParams,
  NO_AUDIT_FILTER,
  searchOfAuditFilter,
} from "./audit-filter";

const parse = (search: string) => auditFilterFromParams(new URLSearchParams(search));

describe("the Audit page's filters in the URL", () => {
  it("no parameter means no filter, and no filter on the first page writes no parameter", () => {
    expect(parse("")).toEqual(NO_AUDIT_FILTER);
    expect(searchOfAuditFilter(NO_AUDIT_FILTER)).toBe("");
  });

  it("reads every filter and the page back as they were written", () => {
    const filter = {
      actor: "sam",
      action: "token.*",
      target: "cluster/*",
      from: "2026-01-31T09:00",
      to: "2026-02-01T18:30",
    };
    const search = searchOfAuditFilter(filter, "CURSOR42");
    expect(search).toBe(
      "?actor=sam&action=token.*&target=cluster%2F*&from=2026-01-31T09%3A00&to=2026-02-01T18%3A30&page=CURSOR42",
    );
    const params = new URLSearchParams(search);
    expect(auditFilterFromParams(params)).toEqual(filter);
    expect(params.get("page")).toBe("CURSOR42");
  });

  it("drops a time that is not a datetime-local value instead of sending it to the API", () => {
    expect(parse("from=yesterday&to=2026-13-45T99:99").from).toBe("");
    expect(parse("from=yesterday&to=2026-13-45T99:99").to).toBe("");
  });
});

describe("the export link", () => {
  it("carries the same filters, with the times as instants, and the format", () => {
    const from = "2026-01-31T09:00";
    const href = auditExportHref(
      { actor: "sam", action: "login", target: "", from, to: "" },
      "csv",
    );
    const url = new URL(href, "http://console.test");
    expect(url.pathname).toBe("/api/audit/export");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      format: "csv",
      actor: "sam",
      action: "login",
      start: new Date(from).toISOString(),
    });
  });

  it("with no filter exports everything", () => {
    expect(auditExportHref(NO_AUDIT_FILTER, "ndjson")).toBe("/api/audit/export?format=ndjson");
  });
});

describe("an event's detail", () => {
  it("splits a before/after diff from the rest, each side as JSON with sorted keys", () => {
    const { diff, rest } = auditDiffOf({
      diff: {
        before: { role: "VIEWER", disabled: false },
        after: { role: "MEMBER", disabled: false },
      },
      password: "changed",
    });
    expect(diff).toEqual({
      before: '{\n  "disabled": false,\n  "role": "VIEWER"\n}',
      after: '{\n  "disabled": false,\n  "role": "MEMBER"\n}',
    });
    expect(rest).toEqual({ password: "changed" });
  });

  it("gives an empty side for a creation or a deletion", () => {
    expect(auditDiffOf({ diff: { before: null, after: { a: 1 } } }).diff?.before).toBe("");
    expect(auditDiffOf({ diff: { before: ["x"], after: null } }).diff?.after).toBe("");
  });

  it("keeps a detail without a diff whole", () => {
    expect(auditDiffOf({ name: "ci", scopes: ["publish"] })).toEqual({
      diff: undefined,
      rest: { name: "ci", scopes: ["publish"] },
    });
    expect(auditDiffOf(undefined)).toEqual({ diff: undefined, rest: {} });
  });
});
