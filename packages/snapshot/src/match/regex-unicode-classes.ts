/**
 * The named classes a pattern may use, as rune ranges: Perl's (`\d`, `\s`, `\w`), POSIX's
 * (`[:alpha:]`) and Unicode's (`\pL`, `\p{Greek}`), the last read from JavaScript's own Unicode
 * tables (RE2's are of its own release: the count is within a few percent for them,
 * regex-program-size.ts).
 */
import { MAX_RUNE, type Node, negated, normalized, type Range } from "./regex-syntax.js";

export const PERL_CLASSES: Record<string, readonly Range[]> = {
  d: [[0x30, 0x39]],
  s: [
    [0x09, 0x0a],
    [0x0c, 0x0d],
    [0x20, 0x20],
  ],
  w: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x5f, 0x5f],
    [0x61, 0x7a],
  ],
};

export const POSIX_CLASSES: Record<string, readonly Range[]> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  ascii: [[0x00, 0x7f]],
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [
    [0x09, 0x0d],
    [0x20, 0x20],
  ],
  upper: [[0x41, 0x5a]],
  word: PERL_CLASSES.w as readonly Range[],
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
};

/** Every code point but the surrogates, once, to read Unicode classes' ranges from. */
let allRunes: string | undefined;
const unicodeClasses = new Map<string, readonly Range[]>();

/**
 * The ranges of Unicode class `name` (`\pL`, `\p{Greek}`), read from JavaScript's own Unicode
 * tables; undefined for a name JavaScript does not know.
 */
export function unicodeClass(name: string): readonly Range[] | undefined {
  const known = unicodeClasses.get(name);
  if (known) return known;
  if (name === "Any") return [[0, MAX_RUNE]];
  // RE2's names are general categories (L, Nd) and scripts (Greek): JavaScript spells a script
  // Script=Greek.
  let matcher: RegExp | undefined;
  for (const property of [name, `Script=${name}`]) {
    try {
      matcher = new RegExp(`\\p{${property}}+`, "gu");
      break;
    } catch {}
  }
  if (matcher === undefined || !/^[A-Za-z_]+$/.test(name)) return undefined;
  if (allRunes === undefined) {
    const parts: string[] = [];
    const chunk: number[] = [];
    for (let r = 0; r <= MAX_RUNE; r++) {
      if (r < 0xd800 || r > 0xdfff) chunk.push(r);
      if (chunk.length === 4096 || r === MAX_RUNE) {
        parts.push(String.fromCodePoint(...chunk));
        chunk.length = 0;
      }
    }
    allRunes = parts.join("");
  }
  const ranges: Range[] = [];
  for (const m of allRunes.matchAll(matcher)) {
    const first = m[0].codePointAt(0) as number;
    const last = m[0].codePointAt(m[0].length - lastUnits(m[0])) as number;
    ranges.push([first, last]);
  }
  const merged = normalized(ranges);
  if (unicodeClasses.size < 512) unicodeClasses.set(name, merged);
  return merged;
}

/** UTF-16 units of the last code point of `text`. */
function lastUnits(text: string): number {
  const unit = text.charCodeAt(text.length - 1);
  return unit >= 0xdc00 && unit <= 0xdfff && text.length > 1 ? 2 : 1;
}

/** A Unicode class JavaScript does not know is counted as this many instructions (refused). */
export const UNKNOWN_UNICODE_CLASS: Node = { t: "class", ranges: negated([[0x41, 0x41]]) };
