/**
 * Reading the top level of an encoded protobuf message without decoding it (protobuf encoding,
 * "Message Structure": each field is a varint tag, field number << 3 | wire type, then its value).
 * Used to leave out fields a request carries that the server has no use for, before decoding it.
 */

/** Where the varint at `pos` ends, and its value (up to 2^53: larger reads as Infinity). */
function varint(bytes: Uint8Array, pos: number): { value: number; end: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let i = pos; i < bytes.length && i < pos + 10; i++) {
    const byte = bytes[i] as number;
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if ((byte & 0x80) === 0)
      return {
        value: value > Number.MAX_SAFE_INTEGER ? Number.POSITIVE_INFINITY : value,
        end: i + 1,
      };
  }
  return undefined;
}

/** Where the field whose value starts at `pos` with wire type `wireType` ends; undefined: cannot tell. */
function valueEnd(bytes: Uint8Array, pos: number, wireType: number): number | undefined {
  switch (wireType) {
    case 0:
      return varint(bytes, pos)?.end;
    case 1:
      return pos + 8;
    case 2: {
      const length = varint(bytes, pos);
      return length === undefined ? undefined : length.end + length.value;
    }
    case 5:
      return pos + 4;
    default:
      return undefined; // groups (3, 4) and invalid wire types: left to the decoder
  }
}

/**
 * `message` without its top-level fields numbered `numbers` (every occurrence), the other bytes
 * as they were; `message` itself when it has none of them. A message this cannot walk (malformed,
 * or holding groups) is returned as it is, for the decoder to accept or refuse as it would have.
 */
export function withoutFields(message: Uint8Array, numbers: ReadonlySet<number>): Uint8Array {
  const kept: [start: number, end: number][] = [];
  let keptFrom = 0;
  let keptBytes = 0;
  let pos = 0;
  while (pos < message.length) {
    const tag = varint(message, pos);
    if (tag === undefined) return message;
    const end = valueEnd(message, tag.end, tag.value % 8);
    if (end === undefined || end > message.length) return message;
    if (numbers.has(Math.floor(tag.value / 8))) {
      if (pos > keptFrom) kept.push([keptFrom, pos]);
      keptBytes += pos - keptFrom;
      keptFrom = end;
    }
    pos = end;
  }
  if (keptFrom === 0) return message;
  if (keptFrom < message.length) kept.push([keptFrom, message.length]);
  keptBytes += message.length - keptFrom;
  const out = new Uint8Array(keptBytes);
  let at = 0;
  for (const [start, end] of kept) {
    out.set(message.subarray(start, end), at);
    at += end - start;
  }
  return out;
}
