import { describe, expect, it } from "vitest";
import { filterFromParams, searchOfFilter } from "./node-filter-params";

const parse = (search: string) => filterFromParams(new URLSearchParams(search));

describe("the Nodes filters in the URL", () => {
  it("no parameter means no filter, and no filter writes no parameter", () => {
    const filter = parse("");
    expect(filter).toEqual({ query: "", health: new Set(), connectedOnly: false });
    expect(searchOfFilter(filter)).toBe("");
  });

  it("reads the search text, the statuses and connected-only back as they were written", () => {
    const filter = {
      query: "shop/client 1",
      health: new Set(["stale", "nacked"] as const),
      connectedOnly: true,
    };
    const search = searchOfFilter(filter);
    expect(search).toBe("?q=shop%2Fclient+1&status=stale%2Cnacked&connected=1");
    expect(parse(search)).toEqual(filter);
  });

  it("lists the statuses in the page's order, whatever order they were chosen in", () => {
    const a = searchOfFilter({
      query: "",
      health: new Set(["pending", "synced"]),
      connectedOnly: false,
    });
    const b = searchOfFilter({
      query: "",
      health: new Set(["synced", "pending"]),
      connectedOnly: false,
    });
    expect(a).toBe(b);
  });

  it("ignores statuses it does not know", () => {
    expect(parse("?status=nacked,bogus,").health).toEqual(new Set(["nacked"]));
  });
});
