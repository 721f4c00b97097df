/**
 * The parser: RE2's Perl-like syntax read leniently into the tree regex-program-size.ts counts
 * (regex-syntax.ts), and alternations factored as RE2's parser factors them. A pattern this reads
 * leniently (say, an unknown escape) is validated by re2js once its size is known to be small.
 */
import {
  caseFolded,
  foldOrbit,
  MAX_RUNE,
  type Node,
  negated,
  normalized,
  type Range,
  resetFoldBudget,
} from "./regex-syntax.js";
import {
  PERL_CLASSES,
  POSIX_CLASSES,
  UNKNOWN_UNICODE_CLASS,
  unicodeClass,
} from "./regex-unicode-classes.js";

/** `pattern` read, and whether it nests deeper than MAX_REGEX_NESTING (then read no further). */
export function parseRegex(pattern: string): { readonly node: Node; readonly tooDeep: boolean } {
  resetFoldBudget();
  const parser = new Parser(pattern);
  const node = parser.parse();
  return { node, tooDeep: parser.tooDeep };
}

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

export function factored(branches: readonly Node[]): Node[] {
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
