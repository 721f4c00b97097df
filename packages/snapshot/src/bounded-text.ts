/**
 * Client-supplied text cut to a stated size before Switchyard stores or fans it out (a NACK's
 * error_detail, a node's metadata and user agent): the bounds are listed in the README's "What is
 * promised", and each boundary applies them in one place. Pure.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The marker that ends a cut text, saying how much was dropped. */
export function truncationMarker(droppedBytes: number): string {
  return `… [truncated ${droppedBytes} bytes]`;
}

/**
 * `text` when its UTF-8 form is at most `maxBytes` long; otherwise its longest prefix that, with
 * the marker saying how many bytes were dropped, fits in `maxBytes`. The cut falls between code
 * points, so the result is valid UTF-8 (a lone surrogate in `text` is encoded as U+FFFD, as every
 * UTF-8 encoder does). `maxBytes` must leave room for the marker (at least 64).
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most texts are decided without encoding.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  // The marker's length depends on the count it shows; the count's digits are those of the
  // whole length at most, so reserve for that.
  const room = maxBytes - encoder.encode(truncationMarker(bytes.length)).length;
  let cut = Math.max(0, room);
  // Back off continuation bytes (10xxxxxx) so the cut falls before a code point's first byte.
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut -= 1;
  return `${decoder.decode(bytes.subarray(0, cut))}${truncationMarker(bytes.length - cut)}`;
}

/** Characters of a caller's value a refusal quotes at most (the rest is counted). */
export const QUOTED_INPUT_CHARS = 80;

/**
 * A caller's value as a message quotes it: JSON-quoted (a string; anything else as its JSON), cut
 * to `max` characters with how long it was, so a 10,000-character name is not echoed back whole.
 * Every message that quotes a name or value it was given goes through this (issue 46).
 */
export function quotedInput(value: unknown, max = QUOTED_INPUT_CHARS): string {
  if (typeof value !== "string") {
    const json = JSON.stringify(value) ?? String(value);
    const chars = [...json];
    return chars.length <= max
      ? json
      : `${chars.slice(0, max).join("")}… (${chars.length} characters)`;
  }
  const chars = [...value];
  if (chars.length <= max) return JSON.stringify(value);
  return `${JSON.stringify(chars.slice(0, max).join(""))}… (${chars.length} characters)`;
}

/** A quoted segment of a field path (`clusters["NAME"]`), its JSON string captured. */
const PATH_NAME_SEGMENT = /\[("(?:[^"\\]|\\.)*")\]/g;

/**
 * A field path as a message shows it: each quoted name in it (`clusters["NAME"]`) cut as
 * quotedInput cuts it. The path an issue carries (ValidationIssue.path) stays whole, for the
 * console to find the field; this is for the words of a message only.
 */
export function shownPath(path: string, max = QUOTED_INPUT_CHARS): string {
  if (path.length <= max) return path;
  return path.replace(PATH_NAME_SEGMENT, (segment, json: string) => {
    if (json.length <= max + 2) return segment;
    try {
      return `[${quotedInput(JSON.parse(json) as string, max)}]`;
    } catch {
      return segment;
    }
  });
}
