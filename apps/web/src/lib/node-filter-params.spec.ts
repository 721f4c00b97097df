import { describe, expect, it } from "vitest";
import { filterFromParams, nodePageRequest, searchOfFilter } from "./node-filter-params";

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

describe("the Nodes list's request to the server", () => {
  const none = { query: "", health: new Set<never>(), connectedOnly: false };

  it("asks for one page, the text trimmed, the statuses in the page's order, the sort as a key", () => {
    expect(
      nodePageRequest(
        { query: " edge ", health: new Set(["stale", "nacked"]), connectedOnly: false },
        { id: "status", desc: true },
        2,
      ),
    ).toEqual({
      pageSize: 50,
      page: 2,
      query: "edge",
      health: ["stale", "nacked"],
      sort: "-status",
      connectedOnly: false,
    });
    expect(nodePageRequest(none, undefined, 0)).toMatchObject({ health: [], sort: "" });
  });

  it("connected only is every status but disconnected, or the chosen ones but disconnected", () => {
    expect(nodePageRequest({ ...none, connectedOnly: true }, undefined, 0).health).toEqual([
      "synced",
      "stale",
      "nacked",
      "pending",
    ]);
    expect(
      nodePageRequest(
        { ...none, health: new Set(["synced", "disconnected"]), connectedOnly: true },
        undefined,
        0,
      ).health,
    ).toEqual(["synced"]);
    // Nothing can match: the server is told to keep connected nodes and then only disconnected.
    expect(
      nodePageRequest(
        { ...none, health: new Set(["disconnected"]), connectedOnly: true },
        undefined,
        0,
      ),
    ).toMatchObject({ health: ["disconnected"], connectedOnly: true });
  });
});
