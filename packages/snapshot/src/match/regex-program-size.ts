/**
 * The size of the program RE2 (C++) compiles a regular expression to, worked out from the pattern
 * alone, before anything is compiled. Pure, and linear in the pattern's length.
 *
 * Why: Envoy refuses a `safe_regex` whose RE2 program is larger than `max_program_size`
 * (`re2.max_program_size.error_level` in the runtime, default 100; `CompiledGoogleReMatcher` in
 * Envoy's source/common/common/regex.cc), and a pattern's program, not its text, is what costs:
 * `x{0,1000}` is 8 characters and 2,000 instructions. re2js, which Switchyard matches with, reports
 * its own program size only once it has compiled the pattern, which is the cost to bound (a 10 KB
 * pattern of such repeats took it 5 s and 1 GB), and it exposes no parser to count from. No
 * maintained JavaScript library computes RE2's count (re2-wasm, Google's build of RE2, never frees
 * a compiled RE2 from its fixed heap: regex-program-size.spec.ts's neighbour validate-syntax.ts
 * says why it was set aside). So the count is done here, as RE2 does it:
 *
 *   - the program holds a fail instruction, the pattern, a match instruction, and, unless the
 *     pattern starts with `^`, a 2-instruction `.*?` loop for unanchored search; a leading `^`
 *     followed by a literal has that literal taken off (RE2::RequiredPrefix) and the rest compiled
 *     unanchored; a trailing `$` costs nothing;
 *   - a byte of a literal is one instruction (case-folded ASCII too); `^`, `$`, `\b` one each;
 *   - a character class costs one instruction per byte range of its UTF-8 automaton, built as
 *     RE2's compiler builds it (compile.cc: AddRuneRangeUTF8, the suffix cache, the prefix trie,
 *     the ASCII case-folding shortcut), so `.` costs 8 and `\pL` about 1,190;
 *   - after Prog::Flatten an alternation costs nothing of its own, `+` and `?` one instruction,
 *     `*` none, a capture two, and `x{n,m}` is `n` copies of x and `m-n` of `x?`;
 *   - alternatives are factored as RE2's parser does: runs of single characters become one class,
 *     a common literal prefix is taken out once.
 *
 * The count is exact for the patterns regex-program-size.spec.ts pins (their values are what RE2
 * 2022-06-01 reports) and close for others: RE2's parser simplifies a few more forms (`a**`,
 * common leading classes of alternatives), and its Unicode tables are of its own release. The
 * pattern is not validated here: a pattern this reads leniently (say, an unknown escape) is
 * validated by re2js once its size is known to be small.
 */

type Range = readonly [number, number];

type Node =
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

const MAX_RUNE = 0x10ffff;
/** Sizes past this are all "far too large": the count stops growing, so it cannot overflow. */
const CEILING = 1e12;
const cap = (n: number) => Math.min(n, CEILING);

/**
 * The RE2 program size of `pattern` (see the top of this file). Past `limit` the count stops:
 * the answer is then only known to be larger than `limit`, which is all a check needs, and the
 * work stays proportional to the pattern's length. A pattern nested deeper than RE2 allows
 * (MAX_REGEX_NESTING) counts as Infinity.
 */
export function regexProgramSize(pattern: string, limit = CEILING): number {
  foldBudget = FOLDED_RUNES;
  const parser = new Parser(pattern);
  const parsed = parser.parse();
  if (parser.tooDeep) return Number.POSITIVE_INFINITY;
  budget = limit;
  let subs = parsed.t === "concat" ? [...parsed.subs] : [parsed];
  let anchored = false;
  if (subs[0]?.t === "begin-text") {
    anchored = true;
    let i = 0;
    while (subs[i]?.t === "begin-text") i++;
    // RE2::RequiredPrefix: ^ and a literal; the literal is matched apart, the rest unanchored.
    if (subs.length > 1 && isPrefixLiteral(subs[i])) {
      while (isPrefixLiteral(subs[i])) i++;
      anchored = false;
    }
    subs = subs.slice(i);
  }
  while (subs.at(-1)?.t === "end-text") subs = subs.slice(0, -1);
  return cap(1 + sum(subs, size) + 1 + (anchored ? 0 : 2));
}

/** A literal RE2 keeps as one (a case-folded one only for ASCII letters, else it is a class). */
function isPrefixLiteral(node: Node | undefined): boolean {
  if (node?.t !== "literal") return false;
  return !node.fold || literalSize(node.rune, true) === 1 || foldOrbit(node.rune).length === 1;
}

/** The limit of the count being made (regexProgramSize): sums stop once past it. */
let budget = CEILING;

function sum(nodes: readonly Node[], each: (node: Node) => number): number {
  let total = 0;
  for (const node of nodes) {
    total = cap(total + each(node));
    if (total > budget) break;
  }
  return total;
}

function size(node: Node): number {
  switch (node.t) {
    case "empty":
      return 0;
    case "literal":
      return literalSize(node.rune, node.fold);
    case "class":
      return classSize(node.ranges);
    case "byte":
    case "begin-text":
    case "end-text":
    case "assertion":
      return 1;
    case "concat":
      return sum(node.subs, size);
    case "alternate":
      // Flattened, an alternation is a list of its branches; an empty branch is a nop.
      return sum(factored(node.subs), (sub) => size(sub) || 1);
    case "repeat": {
      const s = size(node.sub);
      const { min, max } = node;
      if (max === -1) return cap(min === 0 ? s : (min - 1) * s + s + 1);
      return cap(min * s + (max - min) * (s + 1));
    }
    case "capture":
      return cap(size(node.sub) + 2);
  }
}

function utf8Length(rune: number): number {
  return rune < 0x80 ? 1 : rune < 0x800 ? 2 : rune < 0x10000 ? 3 : 4;
}

function literalSize(rune: number, fold: boolean): number {
  if (!fold) return utf8Length(rune);
  const orbit = foldOrbit(rune);
  // An ASCII letter whose only other case is ASCII is one case-folded byte instruction.
  if (orbit.length === 2 && orbit.every((r) => r < 0x80)) return 1;
  if (orbit.length === 1) return utf8Length(rune);
  return classSize(normalized(orbit.map((r) => [r, r] as const)));
}

/** Runes that compare equal to `rune` ignoring case (RE2's CycleFoldRune orbit), itself included. */
function foldOrbit(rune: number): number[] {
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

// ---------------------------------------------------------------------------------------------
// Character classes: RE2's UTF-8 byte-range automaton for a list of rune ranges, counted.
// ---------------------------------------------------------------------------------------------

interface ByteInst {
  readonly lo: number;
  readonly hi: number;
  readonly fold: boolean;
  out: Inst | undefined;
}
interface AltInst {
  readonly alt: true;
  readonly out: Inst;
  readonly out1: Inst;
}
type Inst = ByteInst | AltInst;

const isAlt = (inst: Inst): inst is AltInst => "alt" in inst;

/** Class sizes already counted: by ranges (Unicode classes' are shared) and by their text. */
const classSizes = new WeakMap<readonly Range[], number>();
const classSizesByText = new Map<string, number>();

/** The instructions a class compiles to; ranges sorted, disjoint, not adjacent. */
function classSize(ranges: readonly Range[]): number {
  const known = classSizes.get(ranges);
  if (known !== undefined) return known;
  const text = ranges.length <= 64 ? ranges.join(";") : undefined;
  const byText = text === undefined ? undefined : classSizesByText.get(text);
  if (byText !== undefined) return byText;
  const counted = countClass(ranges);
  classSizes.set(ranges, counted);
  if (text !== undefined) {
    if (classSizesByText.size >= 4096) classSizesByText.clear();
    classSizesByText.set(text, counted);
  }
  return counted;
}

function countClass(ranges: readonly Range[]): number {
  if (ranges.length === 0) return 1; // a class matching nothing compiles to a fail instruction
  const cached = new Map<string, ByteInst>();
  const isCached = new Set<ByteInst>();
  let root: Inst | undefined;

  const cachedSuffix = (lo: number, hi: number, fold: boolean, next: Inst | undefined) => {
    const key = `${lo},${hi},${fold},${next === undefined ? "" : instId(next)}`;
    let inst = cached.get(key);
    if (inst === undefined) {
      inst = { lo, hi, fold, out: next };
      cached.set(key, inst);
      isCached.add(inst);
    }
    return inst;
  };
  const sameRange = (a: Inst, b: ByteInst) =>
    !isAlt(a) && a.lo === b.lo && a.hi === b.hi && a.fold === b.fold;

  // AddSuffixRecursive, forward: merge a new suffix into the trie when its first byte range is
  // the latest alternative's.
  const addSuffixRecursive = (at: Inst, id: ByteInst): Inst => {
    let parent: { set: (inst: Inst) => void } | undefined;
    let found: ByteInst | undefined;
    if (!isAlt(at)) {
      if (sameRange(at, id)) found = at;
    } else if (sameRange(at.out1, id)) {
      found = at.out1 as ByteInst;
      const alt = at as { out1: Inst };
      parent = { set: (inst) => (alt.out1 = inst) };
    }
    if (found === undefined) return { alt: true, out: at, out1: id };
    let br = found;
    if (isCached.has(br)) {
      br = { lo: br.lo, hi: br.hi, fold: br.fold, out: br.out };
      if (parent) parent.set(br);
      else at = br;
    }
    const tail = id.out;
    if (br.out === undefined || tail === undefined) return at;
    br.out = addSuffixRecursive(br.out, tail as ByteInst);
    return at;
  };
  const addSuffix = (id: ByteInst) => {
    root = root === undefined ? id : addSuffixRecursive(root, id);
  };

  const addRange = (lo: number, hi: number, fold: boolean): void => {
    if (lo > hi) return;
    if (lo === 0x80 && hi === MAX_RUNE) {
      // Add_80_10ffff: lead bytes C2-DF, E0-EF, F0-F4 over shared continuation bytes.
      const c1 = cachedSuffix(0x80, 0xbf, false, undefined);
      const c2 = cachedSuffix(0x80, 0xbf, false, c1);
      const c3 = cachedSuffix(0x80, 0xbf, false, c2);
      addSuffix({ lo: 0xc2, hi: 0xdf, fold: false, out: c1 });
      addSuffix({ lo: 0xe0, hi: 0xef, fold: false, out: c2 });
      addSuffix({ lo: 0xf0, hi: 0xf4, fold: false, out: c3 });
      return;
    }
    for (const max of [0x7f, 0x7ff, 0xffff]) {
      if (lo <= max && max < hi) {
        addRange(lo, max, fold);
        addRange(max + 1, hi, fold);
        return;
      }
    }
    if (hi < 0x80) {
      addSuffix({ lo, hi, fold, out: undefined });
      return;
    }
    for (let i = 1; i < 4; i++) {
      const m = (1 << (6 * i)) - 1;
      if ((lo & ~m) !== (hi & ~m)) {
        if ((lo & m) !== 0) {
          addRange(lo, lo | m, fold);
          addRange((lo | m) + 1, hi, fold);
          return;
        }
        if ((hi & m) !== m) {
          addRange(lo, (hi & ~m) - 1, fold);
          addRange(hi & ~m, hi, fold);
          return;
        }
      }
    }
    const ulo = utf8Bytes(lo);
    const uhi = utf8Bytes(hi);
    let id: ByteInst | undefined;
    for (let i = ulo.length - 1; i >= 0; i--) {
      const a = ulo[i] as number;
      const b = uhi[i] as number;
      id =
        i === ulo.length - 1 || (a < b && i !== 0)
          ? cachedSuffix(a, b, false, id)
          : { lo: a, hi: b, fold: false, out: id };
    }
    if (id) addSuffix(id);
  };

  // The ASCII case-folding shortcut (compile.cc, kRegexpCharClass).
  const foldsAscii = foldsAsciiLetters(ranges);
  for (const [lo, hi] of ranges) {
    if (foldsAscii && lo >= 0x41 && hi <= 0x5a) continue;
    const fold =
      foldsAscii &&
      !((lo <= 0x41 && 0x7a <= hi) || hi < 0x41 || 0x7a < lo || (0x5a < lo && hi < 0x61));
    addRange(lo, hi, fold);
  }
  return root === undefined ? 1 : flattened(root);
}

const ids = new WeakMap<Inst, number>();
let nextId = 0;
function instId(inst: Inst): number {
  let id = ids.get(inst);
  if (id === undefined) {
    id = nextId++;
    ids.set(inst, id);
  }
  return id;
}

/**
 * The instructions `root` leaves once Prog::Flatten has turned each tree of alts into a list
 * (prog.cc): a list starts at the class and at each instruction a byte range leads to; it holds
 * the byte ranges its alts reach, one apiece, and a nop for each that starts a list of its own.
 */
function flattened(root: Inst): number {
  const roots = new Set<Inst>([root]);
  const seen = new Set<Inst>();
  const stack: Inst[] = [root];
  while (stack.length > 0) {
    const inst = stack.pop() as Inst;
    if (seen.has(inst)) continue;
    seen.add(inst);
    if (isAlt(inst)) stack.push(inst.out, inst.out1);
    else if (inst.out) {
      roots.add(inst.out);
      stack.push(inst.out);
    }
  }
  let count = 0;
  for (const list of roots) {
    if (!isAlt(list)) {
      count++;
      continue;
    }
    const tree: Inst[] = [list];
    const visited = new Set<Inst>();
    while (tree.length > 0) {
      const inst = tree.pop() as Inst;
      if (visited.has(inst)) continue;
      visited.add(inst);
      if (isAlt(inst)) tree.push(inst.out1, inst.out);
      else count++;
    }
  }
  return count;
}

function utf8Bytes(rune: number): number[] {
  return [...new TextEncoder().encode(String.fromCodePoint(rune))];
}

/** CharClass::FoldsASCII: A-Z and a-z are in the class alike. */
function foldsAsciiLetters(ranges: readonly Range[]): boolean {
  const has = (r: number) => ranges.some(([lo, hi]) => lo <= r && r <= hi);
  for (let r = 0x41; r <= 0x5a; r++) if (has(r) !== has(r + 0x20)) return false;
  return true;
}

/** Sorted, merged ranges. */
function normalized(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out.at(-1);
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function negated(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of normalized(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_RUNE) out.push([next, MAX_RUNE]);
  return out;
}

/**
 * Runes left to case-fold one by one in the pattern being read: folding costs a lookup per rune,
 * so past this (?i) adds no more to classes, and the count may fall a little short of RE2's.
 */
let foldBudget = 0;
const FOLDED_RUNES = 65_536;

/** `ranges` with every rune's other cases, as (?i) makes a class (small ranges folded rune by rune). */
function caseFolded(ranges: readonly Range[]): Range[] {
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

// ---------------------------------------------------------------------------------------------
// The parser: RE2's Perl-like syntax, read leniently (see the top of this file).
// ---------------------------------------------------------------------------------------------

const PERL_CLASSES: Record<string, readonly Range[]> = {
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

const POSIX_CLASSES: Record<string, readonly Range[]> = {
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
function unicodeClass(name: string): readonly Range[] | undefined {
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
const UNKNOWN_UNICODE_CLASS: Node = { t: "class", ranges: negated([[0x41, 0x41]]) };

/** The concatenations that are \Q...\E runs (see Parser.#concatenation). */
const quotedRuns = new WeakSet<Node>();

/** RE2's deepest nesting (parse.cc, kMaxNestingDepth). */
export const MAX_REGEX_NESTING = 1000;

interface Flags {
  readonly fold: boolean;
  readonly multiLine: boolean;
  readonly dotNewline: boolean;
}

class Parser {
  #at = 0;
  #depth = 0;
  /** Set when the pattern nests deeper than MAX_REGEX_NESTING: it is then read no further. */
  tooDeep = false;
  constructor(private readonly text: string) {}

  parse(): Node {
    const node = this.#alternation({ fold: false, multiLine: false, dotNewline: false });
    // A stray ")" is read as a literal and parsing goes on (re2js says what is wrong).
    if (this.#at < this.text.length) {
      this.#at += 1;
      return { t: "concat", subs: [node, this.parse()] };
    }
    return node;
  }

  #peek(offset = 0): string | undefined {
    return this.text[this.#at + offset];
  }

  #alternation(flags: Flags): Node {
    const branches: Node[] = [];
    let scoped = flags;
    for (;;) {
      const { node, flags: after } = this.#concatenation(scoped);
      branches.push(node);
      scoped = after;
      if (this.#peek() !== "|") break;
      this.#at += 1;
    }
    return branches.length === 1 ? (branches[0] as Node) : { t: "alternate", subs: branches };
  }

  /** Pieces up to "|" or ")"; `(?i)` changes the flags for the rest of the group. */
  #concatenation(start: Flags): { node: Node; flags: Flags } {
    const subs: Node[] = [];
    let flags = start;
    while (this.#at < this.text.length) {
      const c = this.#peek();
      if (c === "|" || c === ")") break;
      const atom = this.#atom(flags);
      if ("flags" in atom) {
        flags = atom.flags;
        continue;
      }
      // \Q...\E is a run of literals: a repeat after it applies to its last one.
      if (atom.node.t === "concat" && quotedRuns.has(atom.node)) {
        subs.push(...atom.node.subs.slice(0, -1));
        subs.push(this.#repeats(atom.node.subs.at(-1) as Node));
        continue;
      }
      subs.push(this.#repeats(atom.node));
    }
    const node: Node =
      subs.length === 0
        ? { t: "empty" }
        : subs.length === 1
          ? (subs[0] as Node)
          : { t: "concat", subs };
    return { node, flags };
  }

  #repeats(atom: Node): Node {
    let node = atom;
    for (;;) {
      const c = this.#peek();
      let min: number;
      let max: number;
      if (c === "*" || c === "+" || c === "?") {
        this.#at += 1;
        [min, max] = c === "*" ? [0, -1] : c === "+" ? [1, -1] : [0, 1];
      } else if (c === "{") {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.text.slice(this.#at, this.#at + 24));
        if (!m) return node;
        this.#at += m[0].length;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === "" ? -1 : Number(m[3]);
      } else return node;
      if (this.#peek() === "?") this.#at += 1; // non-greedy: the same program
      node = { t: "repeat", sub: node, min, max };
    }
  }

  #atom(flags: Flags): { node: Node } | { flags: Flags } {
    const c = this.text.codePointAt(this.#at) as number;
    const char = String.fromCodePoint(c);
    this.#at += char.length;
    switch (char) {
      case "(":
        return this.#group(flags);
      case "[":
        return { node: this.#class(flags) };
      case ".":
        return {
          node: { t: "class", ranges: flags.dotNewline ? [[0, MAX_RUNE]] : negated([[10, 10]]) },
        };
      case "^":
        return { node: flags.multiLine ? { t: "assertion" } : { t: "begin-text" } };
      case "$":
        return { node: flags.multiLine ? { t: "assertion" } : { t: "end-text" } };
      case "\\":
        return { node: this.#escape(flags) };
      default:
        return { node: { t: "literal", rune: c, fold: flags.fold } };
    }
  }

  #group(flags: Flags): { node: Node } | { flags: Flags } {
    if (++this.#depth > MAX_REGEX_NESTING) {
      this.tooDeep = true;
      this.#at = this.text.length;
      return { node: { t: "empty" } };
    }
    try {
      return this.#groupBody(flags);
    } finally {
      this.#depth -= 1;
    }
  }

  #groupBody(flags: Flags): { node: Node } | { flags: Flags } {
    let capture = true;
    let inner = flags;
    if (this.#peek() === "?") {
      const named = /^\?P?<[^>]*>/.exec(this.text.slice(this.#at, this.#at + 260));
      if (named) this.#at += named[0].length;
      else {
        const m = /^\?([imsU]*)(?:-([imsU]*))?([:)])/.exec(
          this.text.slice(this.#at, this.#at + 16),
        );
        if (!m) {
          this.#at += 1;
          capture = false;
        } else {
          this.#at += m[0].length;
          const on = m[1] ?? "";
          const off = m[2] ?? "";
          const set = (letter: string, was: boolean) =>
            off.includes(letter) ? false : on.includes(letter) ? true : was;
          inner = {
            fold: set("i", flags.fold),
            multiLine: set("m", flags.multiLine),
            dotNewline: set("s", flags.dotNewline),
          };
          if (m[3] === ")") return { flags: inner };
          capture = false;
        }
      }
    }
    const node = this.#alternation(inner);
    if (this.#peek() === ")") this.#at += 1;
    return { node: capture ? { t: "capture", sub: node } : node };
  }

  #escape(flags: Flags): Node {
    const c = this.#peek();
    if (c === undefined) return { t: "literal", rune: 0x5c, fold: false };
    this.#at += 1;
    const perl = PERL_CLASSES[c.toLowerCase()];
    if (perl && "dswDSW".includes(c)) {
      return { t: "class", ranges: c === c.toUpperCase() ? negated(perl) : perl };
    }
    switch (c) {
      case "b":
      case "B":
        return { t: "assertion" };
      case "A":
        return { t: "begin-text" };
      case "z":
        return { t: "end-text" };
      case "C":
        return { t: "byte" };
      case "p":
      case "P":
        return this.#unicode(c === "P", flags);
      case "Q": {
        const end = this.text.indexOf("\\E", this.#at);
        const quoted = this.text.slice(this.#at, end < 0 ? undefined : end);
        this.#at = end < 0 ? this.text.length : end + 2;
        const subs: Node[] = [...quoted].map((ch) => ({
          t: "literal" as const,
          rune: ch.codePointAt(0) as number,
          fold: flags.fold,
        }));
        if (subs.length === 1) return subs[0] as Node;
        const run: Node = { t: "concat", subs };
        quotedRuns.add(run);
        return run;
      }
    }
    return { t: "literal", rune: this.#escapedRune(c), fold: flags.fold };
  }

  /** The rune of an escape whose letter (read already) is `c`: \n, \x41, \x{263a}, \101, \. */
  #escapedRune(c: string): number {
    const simple: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };
    if (simple[c] !== undefined) return simple[c];
    if (c === "x") {
      const m = /^(?:\{([0-9A-Fa-f]{1,8})\}|([0-9A-Fa-f]{2}))/.exec(
        this.text.slice(this.#at, this.#at + 10),
      );
      if (m) {
        this.#at += m[0].length;
        return Math.min(Number.parseInt(m[1] ?? m[2] ?? "0", 16), MAX_RUNE);
      }
    }
    if (/[0-7]/.test(c)) {
      const m = /^[0-7]{0,2}/.exec(this.text.slice(this.#at, this.#at + 2));
      this.#at += m?.[0].length ?? 0;
      return Number.parseInt(`${c}${m?.[0] ?? ""}`, 8);
    }
    return c.codePointAt(0) as number;
  }

  #unicode(negate: boolean, flags: Flags): Node {
    let name: string;
    if (this.#peek() === "{") {
      const end = this.text.indexOf("}", this.#at);
      name = this.text.slice(this.#at + 1, end < 0 ? undefined : end);
      this.#at = end < 0 ? this.text.length : end + 1;
    } else {
      name = this.#peek() ?? "";
      this.#at += 1;
    }
    if (name.startsWith("^")) {
      negate = !negate;
      name = name.slice(1);
    }
    const ranges = unicodeClass(name);
    if (ranges === undefined) return UNKNOWN_UNICODE_CLASS;
    const folded = flags.fold ? caseFolded(ranges) : ranges;
    return { t: "class", ranges: negate ? negated(folded) : folded };
  }

  #class(flags: Flags): Node {
    const start = this.#at;
    let negate = false;
    if (this.#peek() === "^") {
      negate = true;
      this.#at += 1;
    }
    const ranges: Range[] = [];
    let first = true;
    while (this.#at < this.text.length && (first || this.#peek() !== "]")) {
      first = false;
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.text.slice(this.#at, this.#at + 12));
      if (posix) {
        this.#at += posix[0].length;
        const set = POSIX_CLASSES[posix[2] ?? ""] ?? [];
        ranges.push(...(posix[1] ? negated(set) : set));
        continue;
      }
      const lo = this.#classRune(ranges, flags);
      if (lo === undefined) continue;
      if (this.#peek() === "-" && this.#peek(1) !== "]" && this.#peek(1) !== undefined) {
        this.#at += 1;
        const hi = this.#classRune(ranges, flags);
        if (hi !== undefined) ranges.push([Math.min(lo, hi), Math.max(lo, hi)]);
        else ranges.push([lo, lo], [0x2d, 0x2d]);
      } else ranges.push([lo, lo]);
    }
    if (this.#at >= this.text.length) {
      // No closing "]": read the "[" as a literal (re2js says what is wrong).
      this.#at = start;
      return { t: "literal", rune: 0x5b, fold: false };
    }
    this.#at += 1; // "]"
    const folded = flags.fold ? caseFolded(normalized(ranges)) : normalized(ranges);
    const set = negate ? negated(folded) : folded;
    if (set.length === 1 && set[0]?.[0] === set[0]?.[1])
      return { t: "literal", rune: set[0]?.[0] as number, fold: false };
    return { t: "class", ranges: set };
  }

  /** One rune of a class, or undefined when the item was a whole class (\d, \pL) added already. */
  #classRune(ranges: Range[], flags: Flags): number | undefined {
    const c = this.text.codePointAt(this.#at) as number;
    const char = String.fromCodePoint(c);
    this.#at += char.length;
    if (char !== "\\") return c;
    const e = this.#peek();
    if (e === undefined) return 0x5c;
    const perl = PERL_CLASSES[e.toLowerCase()];
    if (perl && "dswDSW".includes(e)) {
      this.#at += 1;
      ranges.push(...(e === e.toUpperCase() ? negated(perl) : perl));
      return undefined;
    }
    if (e === "p" || e === "P") {
      this.#at += 1;
      const node = this.#unicode(e === "P", flags);
      if (node.t === "class") ranges.push(...node.ranges);
      return undefined;
    }
    this.#at += 1;
    return this.#escapedRune(e);
  }
}

// ---------------------------------------------------------------------------------------------
// Alternations as RE2's parser factors them (parse.cc, FactorAlternation, rounds 1 and 3).
// ---------------------------------------------------------------------------------------------

/** The leading literal runes of `node` (with their fold), and what follows them. */
function leadingLiterals(node: Node): { runes: Node[]; rest: Node[] } {
  const subs = node.t === "concat" ? node.subs : [node];
  let i = 0;
  while (subs[i]?.t === "literal") i++;
  return { runes: subs.slice(0, i), rest: subs.slice(i) };
}

const sameLiteral = (a: Node | undefined, b: Node | undefined) =>
  a?.t === "literal" && b?.t === "literal" && a.rune === b.rune && a.fold === b.fold;

function factored(branches: readonly Node[]): Node[] {
  const out: Node[] = [];
  let i = 0;
  while (i < branches.length) {
    const first = leadingLiterals(branches[i] as Node);
    // Round 1: a run of branches sharing a leading literal has the common prefix taken out.
    let j = i + 1;
    let common = first.runes.length;
    while (j < branches.length && common > 0) {
      const next = leadingLiterals(branches[j] as Node).runes;
      let k = 0;
      while (k < common && k < next.length && sameLiteral(first.runes[k], next[k])) k++;
      if (k === 0) break;
      common = k;
      j++;
    }
    if (j - i > 1 && common > 0) {
      const suffixes = branches.slice(i, j).map((b) => {
        const { runes, rest } = leadingLiterals(b);
        const subs = [...runes.slice(common), ...rest];
        return subs.length === 0
          ? ({ t: "empty" } as Node)
          : subs.length === 1
            ? (subs[0] as Node)
            : ({ t: "concat", subs } as Node);
      });
      out.push({
        t: "concat",
        subs: [...first.runes.slice(0, common), { t: "alternate", subs: suffixes }],
      });
      i = j;
      continue;
    }
    out.push(branches[i] as Node);
    i++;
  }
  // Round 3: runs of single characters and classes become one class.
  const merged: Node[] = [];
  for (const branch of out) {
    const ranges = singleCharacter(branch);
    const last = merged.at(-1);
    const lastRanges = last && singleCharacter(last);
    if (ranges && lastRanges) {
      merged[merged.length - 1] = { t: "class", ranges: normalized([...lastRanges, ...ranges]) };
    } else merged.push(branch);
  }
  return merged;
}

function singleCharacter(node: Node): readonly Range[] | undefined {
  if (node.t === "class") return node.ranges;
  if (node.t === "literal") {
    const orbit = node.fold ? foldOrbit(node.rune) : [node.rune];
    return normalized(orbit.map((r) => [r, r] as const));
  }
  return undefined;
}
