/**
 * An import as a merge: which objects of a document clash with stored ones (same kind and name,
 * other content), and what is done with each: renamed (stored under a free name, the document's
 * references following: envoy-import-rename.ts), replaced, or skipped (the stored one kept, the
 * document's references then naming it). Pure: the server reads, calls, and writes.
 */
import type { ConfigSpec, SecretSpec } from "../model.js";
import { canonicalJson, type SourceKind, SPEC_FIELD, sourceObject } from "../sources.js";
import type { ConfigSpecFragment } from "./envoy-import.js";
import type { ImportRename, RenamedKind } from "./envoy-import-rename.js";

export type ClashAction = "rename" | "replace" | "skip";

/** The kinds a document holds, in the order clashes are listed. */
export const DOCUMENT_KINDS = [
  "cluster",
  "listener",
  "routeConfiguration",
  "runtimeLayer",
  "secret",
] as const satisfies readonly RenamedKind[] & readonly SourceKind[];

export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

export interface Clash {
  readonly kind: DocumentKind;
  readonly name: string;
  readonly action: ClashAction;
  /** `rename`: the incoming object's name. */
  readonly renamedTo?: string;
}

export interface MergeOptions {
  /** For a clash no choice names. */
  readonly onClash: ClashAction;
  /** Per object: `kind\0name` → action. */
  readonly choices?: ReadonlyMap<string, ClashAction>;
  /** Opens a sealed secret value: secrets are compared by what they hold, not by their seals. */
  readonly open?: (sealed: string) => string;
}

export const objectKey = (kind: string, name: string): string => `${kind}\u0000${name}`;

type Named = { readonly name: string };

const objectsOf = (spec: ConfigSpecFragment | ConfigSpec, kind: DocumentKind) =>
  spec[SPEC_FIELD[kind] as keyof ConfigSpecFragment] as readonly Named[];

/** A secret as compared: sealed material opened (each seal of one value differs). */
function comparableSecret(secret: SecretSpec, open: ((sealed: string) => string) | undefined) {
  const opened = (value: string) => {
    if (open === undefined) return value;
    try {
      return open(value);
    } catch {
      return value;
    }
  };
  return {
    ...secret,
    privateKey: secret.privateKey === null ? null : opened(secret.privateKey),
    values: secret.values.map(opened),
  };
}

function same(kind: DocumentKind, a: Named, b: Named, open: MergeOptions["open"]): boolean {
  if (kind === "secret")
    return (
      canonicalJson(comparableSecret(a as SecretSpec, open)) ===
      canonicalJson(comparableSecret(b as SecretSpec, open))
    );
  return sourceObject(kind, a.name, a).json === sourceObject(kind, b.name, b).json;
}

/** `name` with the first free suffix (`-2`, `-3`, ...) among `taken`. */
function freeName(name: string, taken: ReadonlySet<string>): string {
  for (let n = 2; ; n++) {
    const candidate = `${name}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * The clashes of `fragment` with `stored` and what to do with each; the renames to read the
 * document again with, and the objects to leave out of it. `planned` carries the clashes already
 * decided (an earlier pass, before its renames were read): they are kept as they were.
 */
export function planMerge(
  stored: ConfigSpec,
  fragment: ConfigSpecFragment,
  options: MergeOptions,
  planned: readonly Clash[] = [],
): { readonly clashes: readonly Clash[]; readonly renames: readonly ImportRename[] } {
  const clashes: Clash[] = [...planned];
  const decided = new Set(planned.map((c) => objectKey(c.kind, c.name)));
  const renamedTo = new Set(
    planned.flatMap((c) => (c.renamedTo === undefined ? [] : [objectKey(c.kind, c.renamedTo)])),
  );
  for (const kind of DOCUMENT_KINDS) {
    const existing = new Map(objectsOf(stored, kind).map((o) => [o.name, o]));
    const incoming = objectsOf(fragment, kind);
    const taken = new Set([...existing.keys(), ...incoming.map((o) => o.name)]);
    for (const c of planned) if (c.kind === kind && c.renamedTo) taken.add(c.renamedTo);
    for (const object of incoming) {
      const key = objectKey(kind, object.name);
      if (decided.has(key) || renamedTo.has(key)) continue;
      const was = existing.get(object.name);
      if (was === undefined || same(kind, was, object, options.open)) continue;
      const action = options.choices?.get(key) ?? options.onClash;
      if (action === "rename") {
        const to = freeName(object.name, taken);
        taken.add(to);
        clashes.push({ kind, name: object.name, action, renamedTo: to });
      } else clashes.push({ kind, name: object.name, action });
    }
  }
  return {
    clashes,
    renames: clashes.flatMap((c) =>
      c.renamedTo === undefined ? [] : [{ kind: c.kind, from: c.name, to: c.renamedTo }],
    ),
  };
}

/** `fragment` without the objects `clashes` skip. */
export function withoutSkipped(
  fragment: ConfigSpecFragment,
  clashes: readonly Clash[],
): ConfigSpecFragment {
  const skipped = new Set(
    clashes.filter((c) => c.action === "skip").map((c) => objectKey(c.kind, c.name)),
  );
  if (skipped.size === 0) return fragment;
  const keep = <T extends Named>(kind: DocumentKind, items: readonly T[]) =>
    items.filter((o) => !skipped.has(objectKey(kind, o.name)));
  return {
    clusters: keep("cluster", fragment.clusters),
    listeners: keep("listener", fragment.listeners),
    routeConfigurations: keep("routeConfiguration", fragment.routeConfigurations),
    runtimeLayers: keep("runtimeLayer", fragment.runtimeLayers),
    secrets: keep("secret", fragment.secrets),
  };
}

/**
 * The renames `fragment` did not take: a `from` still there or a `to` missing (a name the
 * import derives, such as an inline certificate's secret, follows its resource instead).
 */
export function renamesNotTaken(
  fragment: ConfigSpecFragment,
  renames: readonly ImportRename[],
): ImportRename[] {
  return renames.filter((r) => {
    const kind = r.kind as DocumentKind;
    if (!DOCUMENT_KINDS.includes(kind)) return true;
    const names = new Set(objectsOf(fragment, kind).map((o) => o.name));
    return names.has(r.from) || !names.has(r.to);
  });
}
