import { create } from "@bufbuild/protobuf";
import { NodeSummarySchema } from "@switchyard/proto/switchyard/v1/status_pb";
import { describe, expect, it } from "vitest";
import { pageMessages } from "./node-answers.js";

/** A node whose status is about `bytes` long (its cluster name stands in for NACK texts). */
const node = (i: number, bytes: number) =>
  create(NodeSummarySchema, {
    id: `node-${String(i).padStart(3, "0")}`,
    cluster: "c".repeat(bytes),
  });

const page = (count: number, bytes: number) => ({
  nodes: Array.from({ length: count }, (_, i) => node(i, bytes)),
  total: 1_000,
  page: 2,
  counts: undefined,
});

describe("a paged WatchNodes page is sent in messages bounded in bytes", () => {
  it("a page that fits is one message, a reset with the total and page number", () => {
    const messages = pageMessages(page(20, 100), 10_000);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ reset: true, total: 1_000, page: 2 });
    expect(messages[0]?.nodes).toHaveLength(20);
  });

  it("a page past the bound is a reset holding its first nodes, then messages adding the rest, in order", () => {
    const messages = pageMessages(page(20, 1_000), 4_000);
    expect(messages.map((m) => m.reset)).toEqual([true, false, false, false, false, false, false]);
    expect(messages.map((m) => m.nodes.length)).toEqual([3, 3, 3, 3, 3, 3, 2]);
    expect(messages[0]).toMatchObject({ total: 1_000, page: 2 });
    expect(messages.slice(1).every((m) => m.total === 0)).toBe(true);
    expect(messages.flatMap((m) => m.nodes.map((n) => n.id))).toEqual(
      page(20, 0).nodes.map((n) => n.id),
    );
  });

  it("an empty page is one reset message", () => {
    expect(pageMessages(page(0, 0))).toEqual([
      expect.objectContaining({ reset: true, nodes: [], total: 1_000, page: 2 }),
    ]);
  });
});
