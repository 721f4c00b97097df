import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  type NodeSummary,
  NodeSummarySchema,
  type WatchNodesResponse,
  WatchNodesResponseSchema,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { ANSWER_MAX_BYTES, FIELD_OVERHEAD, itemsWithinBytes } from "./answer-bytes.js";

/**
 * The size bounds of ListNodes and WatchNodes answers, in one place: however many nodes are
 * stored, and however large each one's status (its NACK texts and held-back resources), no single
 * answer grows past a page of nodes or a few MiB. Pinned by test/node-answer-bounds.e2e.spec.ts.
 */

/** ListNodes without page_size (AIP-158: the server picks a default). */
export const LIST_NODES_DEFAULT_PAGE_SIZE = 100;
export const LIST_NODES_MAX_PAGE_SIZE = 1_000;
/** A WatchNodes message without paging holds at most this many nodes. */
export const WATCH_MESSAGE_MAX_NODES = 500;
/**
 * An answer stops adding nodes before it passes this many encoded bytes (answer-bytes.ts). One
 * node larger than this is still sent, alone.
 */
export const NODE_ANSWER_MAX_BYTES = ANSWER_MAX_BYTES;

/** ListNodesRequest.page_size, checked: 0 is the default; InvalidArgument over the maximum. */
export function listPageSize(requested: number): number {
  if (requested > LIST_NODES_MAX_PAGE_SIZE)
    throw new ConnectError(
      `page_size ${requested} is over the maximum of ${LIST_NODES_MAX_PAGE_SIZE}; follow next_page_token for more`,
      Code.InvalidArgument,
    );
  return requested === 0 ? LIST_NODES_DEFAULT_PAGE_SIZE : requested;
}

const TOKEN_PREFIX = "after:";

/** The page token for the nodes after `id` (ids sort as stored, ascending). */
export const pageTokenAfter = (id: string): string =>
  Buffer.from(`${TOKEN_PREFIX}${id}`, "utf8").toString("base64url");

/** The id a ListNodesRequest.page_token continues after; undefined for the first page. */
export function pageTokenId(token: string): string | undefined {
  if (token === "") return undefined;
  const text = Buffer.from(token, "base64url").toString("utf8");
  if (!text.startsWith(TOKEN_PREFIX) || pageTokenAfter(text.slice(TOKEN_PREFIX.length)) !== token)
    throw new ConnectError(
      "page_token is not a next_page_token from ListNodes; send it unchanged, or empty for the first page",
      Code.InvalidArgument,
    );
  return text.slice(TOKEN_PREFIX.length);
}

/**
 * How many of `nodes`, from the first, fit in one answer of at most `maxBytes` encoded; at least
 * one when there is any, so an answer always makes progress.
 */
export function nodesWithinBytes(
  nodes: readonly NodeSummary[],
  maxBytes = NODE_ANSWER_MAX_BYTES,
): number {
  return itemsWithinBytes(NodeSummarySchema, nodes, maxBytes);
}

/** One WatchNodes message's nodes and removed ids. */
export interface NodeBatch {
  readonly nodes: NodeSummary[];
  readonly removedIds: string[];
}

/**
 * `nodes` and then `removedIds` split into messages of at most WATCH_MESSAGE_MAX_NODES entries and
 * about `maxBytes` each, in order. At least one batch, possibly empty.
 */
export function nodeBatches(
  nodes: readonly NodeSummary[],
  removedIds: readonly string[],
  maxBytes = NODE_ANSWER_MAX_BYTES,
): NodeBatch[] {
  const batches: NodeBatch[] = [];
  for (let rest = nodes; rest.length > 0; ) {
    const count = nodesWithinBytes(rest.slice(0, WATCH_MESSAGE_MAX_NODES), maxBytes);
    batches.push({ nodes: rest.slice(0, count), removedIds: [] });
    rest = rest.slice(count);
  }
  let current: string[] = [];
  let bytes = 0;
  for (const id of removedIds) {
    const size = Buffer.byteLength(id, "utf8") + FIELD_OVERHEAD;
    if (
      current.length > 0 &&
      (bytes + size > maxBytes || current.length >= WATCH_MESSAGE_MAX_NODES)
    ) {
      batches.push({ nodes: [], removedIds: current });
      current = [];
      bytes = 0;
    }
    current.push(id);
    bytes += size;
  }
  if (current.length > 0) batches.push({ nodes: [], removedIds: current });
  if (batches.length === 0) batches.push({ nodes: [], removedIds: [] });
  return batches;
}

/** What a paged WatchNodes sends for one page: its nodes, how many match, its number, the counts. */
export type NodePageAnswer = Pick<WatchNodesResponse, "nodes" | "total" | "page" | "counts">;

/**
 * A page of a paged WatchNodes as messages of about `maxBytes` each: the first (reset) holds the
 * page's first nodes with its total, number and counts, the ones after it (not reset) the rest of
 * the page's nodes. One message when the page fits, as it does unless its nodes' statuses are
 * large (the fleet's NACK texts).
 */
export function pageMessages(
  page: NodePageAnswer,
  maxBytes = NODE_ANSWER_MAX_BYTES,
): WatchNodesResponse[] {
  const [first = { nodes: [], removedIds: [] }, ...rest] = nodeBatches(page.nodes, [], maxBytes);
  return [
    create(WatchNodesResponseSchema, {
      reset: true,
      nodes: first.nodes,
      total: page.total,
      page: page.page,
      ...(page.counts === undefined ? {} : { counts: page.counts }),
    }),
    ...rest.map((batch) => create(WatchNodesResponseSchema, { reset: false, nodes: batch.nodes })),
  ];
}
