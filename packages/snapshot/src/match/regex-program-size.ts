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
 *
 * The parts: regex-parser.ts reads and factors the pattern into regex-syntax.ts's tree (with the
 * named classes of regex-unicode-classes.ts), regex-class-size.ts counts a class's UTF-8
 * automaton, and this file adds the program up.
 */
import { classSize } from "./regex-class-size.js";
import { factored, parseRegex } from "./regex-parser.js";
import { foldOrbit, type Node, normalized } from "./regex-syntax.js";

export { MAX_REGEX_NESTING } from "./regex-parser.js";

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
  const { node: parsed, tooDeep } = parseRegex(pattern);
  if (tooDeep) return Number.POSITIVE_INFINITY;
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
