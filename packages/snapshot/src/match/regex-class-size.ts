/**
 * Character classes: RE2's UTF-8 byte-range automaton for a list of rune ranges (compile.cc:
 * AddRuneRangeUTF8, the suffix cache, the prefix trie, the ASCII case-folding shortcut), built
 * and counted as Prog::Flatten leaves it, so `.` costs 8 and `\pL` about 1,190.
 */
import { MAX_RUNE, type Range } from "./regex-syntax.js";

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
export function classSize(ranges: readonly Range[]): number {
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
