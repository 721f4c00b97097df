import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { type NodePageQuery, nodePage, nodePageQuery } from "./node-page.js";
import { nodeRecord as node, typeRecord as type } from "./record-fixtures.js";

const query = (overrides: Partial<Parameters<typeof nodePageQuery>[0]> = {}): NodePageQuery =>
  nodePageQuery({ pageSize: 2, page: 0, query: "", health: [], sort: "", ...overrides });

const fleet = [
  node("c-synced", [type("SYNCED")], true, {
    connection: { t: "connected", since: 30, openStreams: 1 },
  }),
  node("a-nacked", [type("NACKED")], true, {
    connection: { t: "connected", since: 10, openStreams: 1 },
  }),
  node("d-gone", [type("SYNCED")], false),
  node("b-stale", [type("STALE")], true, {
    replicaId: "replica-b",
    connection: { t: "connected", since: 20, openStreams: 1 },
  }),
  node("e-synced", [type("SYNCED")], true, {
    cluster: "payments",
    connection: { t: "connected", since: 5, openStreams: 1 },
  }),
];
const ids = (q: NodePageQuery) => nodePage(fleet, q).nodes.map((n) => n.id);

describe("a page of the Nodes list, computed by the server", () => {
  it("sends one page of the matching nodes by id, the total, and counts by health", () => {
    const page = nodePage(fleet, query());
    expect(page.nodes.map((n) => n.id)).toEqual(["a-nacked", "b-stale"]);
    expect(page.total).toBe(5);
    expect(page.counts).toEqual({
      total: 5,
      connected: 4,
      disconnected: 1,
      synced: 2,
      stale: 1,
      nacked: 1,
      pending: 0,
    });
    expect(ids(query({ page: 1 }))).toEqual(["c-synced", "d-gone"]);
  });

  it("answers a page past the end with the last page, and says which page it sent", () => {
    const page = nodePage(fleet, query({ page: 9 }));
    expect(page.page).toBe(2);
    expect(page.nodes.map((n) => n.id)).toEqual(["e-synced"]);
    expect(nodePage([], query({ page: 3 })).page).toBe(0);
  });

  it("finds text in id, cluster or replica case-insensitively; the counts are of every node, whatever the filters", () => {
    expect(ids(query({ query: "PAYMENTS" }))).toEqual(["e-synced"]);
    expect(ids(query({ query: "replica-b" }))).toEqual(["b-stale"]);
    expect(nodePage(fleet, query({ query: "replica-b" })).counts.total).toBe(5);
    const synced = nodePage(fleet, query({ health: ["synced"], pageSize: 10 }));
    expect(synced.nodes.map((n) => n.id)).toEqual(["c-synced", "e-synced"]);
    expect(synced.total).toBe(2);
    expect(synced.counts.total).toBe(5);
  });

  it("sorts by status worst first, by connection time, and reversed with a leading '-'", () => {
    const all = { pageSize: 10 };
    expect(ids(query({ ...all, sort: "status" }))).toEqual([
      "a-nacked",
      "b-stale",
      "c-synced",
      "e-synced",
      "d-gone",
    ]);
    expect(ids(query({ ...all, sort: "-node" }))).toEqual([
      "e-synced",
      "d-gone",
      "c-synced",
      "b-stale",
      "a-nacked",
    ]);
    expect(
      ids(query({ ...all, sort: "connection", health: ["synced", "nacked", "stale"] })),
    ).toEqual(["e-synced", "a-nacked", "b-stale", "c-synced"]);
  });

  it("refuses a page size over 500, an unknown health or sort, naming the field", () => {
    const refusal = (overrides: Partial<Parameters<typeof nodePageQuery>[0]>) => {
      try {
        query(overrides);
      } catch (error) {
        return ConnectError.from(error);
      }
      throw new Error("accepted");
    };
    expect(refusal({ pageSize: 501 }).rawMessage).toBe("page_size 501 is over the maximum of 500");
    expect(refusal({ health: ["synced", "sad"] }).rawMessage).toBe(
      'health[1]: "sad" is not one of synced, stale, nacked, pending, disconnected',
    );
    const sort = refusal({ sort: "-mood" });
    expect(sort.code).toBe(Code.InvalidArgument);
    expect(sort.rawMessage).toMatch(/^sort: "-mood" is not one of node, status, connection/);
  });
});
