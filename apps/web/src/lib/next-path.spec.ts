import { describe, expect, it } from "vitest";
import { loginUrl, safeNextPath } from "./next-path";

describe("the page to return to after signing in", () => {
  it.each([
    ["/routes/shop?tab=1", "/routes/shop?tab=1"],
    [null, "/"],
    ["//evil.example/x", "/"],
    ["/\\evil.example", "/"],
    ["https://evil.example/", "/"],
    ["/login?next=/x", "/"],
    // What the browser makes of them: tabs and newlines dropped, "\\" read as "/".
    ["/\t/evil.example/x", "/"],
    ["/\n/evil.example/x", "/"],
    ["/\r\n/evil.example", "/"],
    ["/\t\\evil.example", "/"],
    ["/nodes/a%2Fb#events", "/nodes/a%2Fb#events"],
    // Dot segments that leave a path starting with "//": another host once the router has it.
    ["/.//evil.example/owned", "/"],
    ["/x/..//evil.example", "/"],
    ["/x/../..//evil.example", "/"],
    ["/%2e//evil.example", "/"],
    ["/%2E%2E//evil.example", "/"],
    ["/x/%2e%2e//evil.example", "/"],
    ["/./\\evil.example", "/"],
    ["/.\t//evil.example", "/"],
    ["/.\n/\\evil.example", "/"],
    ["/x/.%2e/\\/evil.example", "/"],
    // Resolved on the console, they are followed as the browser would resolve them.
    ["/x/../changes", "/changes"],
    ["/./routes/shop", "/routes/shop"],
    ["/%2F%2Fevil.example", "/%2F%2Fevil.example"],
  ])("next=%j returns to %j (never another site)", (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });

  it("a page's login URL carries the page to come back to", () => {
    expect(loginUrl("/changes")).toBe("/login?next=%2Fchanges");
    expect(loginUrl("/")).toBe("/login");
  });
});
