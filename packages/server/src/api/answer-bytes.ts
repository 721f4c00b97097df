import { type DescMessage, type MessageShape, toBinary } from "@bufbuild/protobuf";

/**
 * The byte bound of every paged or batched answer (ListNodes, WatchNodes, ListAuditEvents): one
 * message stops adding items before it passes this many encoded bytes, gRPC's default receive
 * limit (4 MiB), so no client is sent a message its defaults refuse, however large each item is.
 * One item larger than this is still sent, alone, so an answer always makes progress.
 */
export const ANSWER_MAX_BYTES = 4 * 1024 * 1024;

/** A protobuf field's overhead around an embedded message: its tag and length (at most 1 + 5). */
export const FIELD_OVERHEAD = 6;

/**
 * How many of `items` (messages of `schema`), from the first, fit in one answer of at most
 * `maxBytes` encoded; at least one when there is any.
 */
export function itemsWithinBytes<Desc extends DescMessage>(
  schema: Desc,
  items: readonly MessageShape<Desc>[],
  maxBytes = ANSWER_MAX_BYTES,
): number {
  let bytes = 0;
  for (const [i, item] of items.entries()) {
    bytes += toBinary(schema, item).length + FIELD_OVERHEAD;
    if (bytes > maxBytes) return Math.max(1, i);
  }
  return items.length;
}
