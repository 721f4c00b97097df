/**
 * What a regular expression reads as, for counting its RE2 program (regex-program-size.ts): the
 * tree the parser builds (regex-parser.ts), rune ranges as classes hold them, and case folding of
 * runes and ranges as RE2's `(?i)` does it.
 */

export type Range = readonly [number, number];

export type Node =
  | { readonly t: "empty" }
  | { readonly t: "literal"; readonly rune: number; readonly fold: boolean }
  | { readonly t: "class"; readonly ranges: readonly Range[] }
  | { readonly t: "byte" }
  | { readonly t: "begin-text" }
  | { readonly t: "end-text" }
  | { readonly t: "assertion" }
  | { readonly t: "concat"; readonly subs: readonly Node[] }
  | { readonly t: "alternate"; readonly subs: readonly Node[] }
  | { readonly t: "repeat"; readonly sub: Node; readonly min: number; readonly max: number }
  | { readonly t: "capture"; readonly sub: Node };

export const MAX_RUNE = 0x10ffff;

/** Sorted, merged ranges. */
export function normalized(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out.at(-1);
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

export function negated(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of normalized(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_RUNE) out.push([next, MAX_RUNE]);
  return out;
}

/** Runes that compare equal to `rune` ignoring case (RE2's CycleFoldRune orbit), itself included. */
export function foldOrbit(rune: number): number[] {
  const found = new Set<number>([rune]);
  const add = (text: string) => {
    const cp = text.codePointAt(0);
    if (cp !== undefined && [...text].length === 1) found.add(cp);
  };
  const char = String.fromCodePoint(rune);
  add(char.toLowerCase());
  add(char.toUpperCase());
  for (const r of [...found]) {
    add(String.fromCodePoint(r).toLowerCase());
    add(String.fromCodePoint(r).toUpperCase());
  }
  for (const [a, b] of SPECIAL_FOLDS) {
    if (found.has(a)) found.add(b);
    if (found.has(b)) found.add(a);
  }
  return [...found].sort((x, y) => x - y);
}

/** Simple case folds that toLowerCase/toUpperCase do not give: K and the Kelvin sign, s and ſ, ... */
const SPECIAL_FOLDS: readonly (readonly [number, number])[] = [
  [0x6b, 0x212a],
  [0x73, 0x17f],
  [0xe5, 0x212b],
  [0x3c9, 0x2126],
  [0x3b9, 0x1fbe],
  [0x3b2, 0x3d0],
  [0x3b5, 0x3f5],
  [0x3b8, 0x3d1],
  [0x3ba, 0x3f0],
  [0x3c0, 0x3d6],
  [0x3c1, 0x3f1],
  [0x3c3, 0x3c2],
  [0x3c6, 0x3d5],
  [0x1e61, 0x1e9b],
];

/**
 * Runes left to case-fold one by one in the pattern being read: folding costs a lookup per rune,
 * so past this (?i) adds no more to classes, and the count may fall a little short of RE2's.
 */
let foldBudget = 0;
const FOLDED_RUNES = 65_536;

/** A new pattern is being read: its (?i) classes may fold FOLDED_RUNES runes again. */
export function resetFoldBudget(): void {
  foldBudget = FOLDED_RUNES;
}

/** `ranges` with every rune's other cases, as (?i) makes a class (small ranges folded rune by rune). */
export function caseFolded(ranges: readonly Range[]): Range[] {
  const out: Range[] = [...ranges];
  const fold = (r: number) => {
    for (const f of foldOrbit(r)) out.push([f, f]);
  };
  for (const [lo, hi] of ranges) {
    for (let r = Math.max(lo, 0x41); r <= Math.min(hi, 0x7a); r++) fold(r);
    if (hi - lo > 4096) continue;
    for (let r = Math.max(lo, 0x80); r <= hi && foldBudget > 0; r++, foldBudget--) fold(r);
  }
  return normalized(out);
}
