/**
 * What an Import (ImportRequest.on_clash, choices) does with objects whose names stored objects
 * have with other content, and what an Import or Apply says about the stored objects outside its
 * document that use what it replaces or removes (ImportClash). The rules are the config core's
 * (import-merge.ts, object-dependents.ts); here they meet the API.
 */
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  ChangeType,
  type ImportClash,
  ImportClashAction,
  ImportClashSchema,
  type ImportRequest,
} from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type Clash,
  type ClashAction,
  type ConfigSpec,
  type ConfigSpecFragment,
  DOCUMENT_KINDS,
  type DocumentKind,
  dependentsIn,
  dependentsOf,
  type ObjectKey,
  objectKey,
  type SourceKind,
  SPEC_FIELD,
} from "@switchyard/snapshot";
import { invalidArgument } from "./errors.js";
import { resourceKindOf, sourceKindOf, yamlOf } from "./object-changes.js";

const ACTIONS: ReadonlyMap<ImportClashAction, ClashAction> = new Map([
  [ImportClashAction.RENAME, "rename"],
  [ImportClashAction.REPLACE, "replace"],
  [ImportClashAction.SKIP, "skip"],
]);
const ACTION_VALUES: Record<ClashAction, ImportClashAction> = {
  rename: ImportClashAction.RENAME,
  replace: ImportClashAction.REPLACE,
  skip: ImportClashAction.SKIP,
};

function actionOf(value: ImportClashAction, path: string, fallback: ClashAction): ClashAction {
  if (value === ImportClashAction.UNSPECIFIED) return fallback;
  const action = ACTIONS.get(value);
  if (action !== undefined) return action;
  const reason = `${value} is not an ImportClashAction: use IMPORT_CLASH_ACTION_RENAME (1), IMPORT_CLASH_ACTION_REPLACE (2) or IMPORT_CLASH_ACTION_SKIP (3)`;
  throw invalidArgument(`ImportRequest.${path} ${reason}`, [
    { severity: "error", code: "invalid-request", path: `ImportRequest.${path}`, message: reason },
  ]);
}

export interface ClashRequest {
  readonly onClash: ClashAction;
  /** `kind\0name` → action. */
  readonly choices: ReadonlyMap<string, ClashAction>;
}

/**
 * The request's clash rules, checked. Saving one object through its Envoy form (`object`) is an
 * edit of that object: it replaces it.
 */
export function clashRequestOf(request: ImportRequest): ClashRequest {
  if (request.object !== undefined) return { onClash: "replace", choices: new Map() };
  const onClash = actionOf(request.onClash, "on_clash", "rename");
  const choices = new Map<string, ClashAction>();
  request.choices.forEach((choice, i) => {
    const path = `choices[${i}]`;
    if (choice.object === undefined)
      throw new ConnectError(`ImportRequest.${path}.object is required`, Code.InvalidArgument);
    const kind = sourceKindOf(choice.object.kind);
    choices.set(
      objectKey(kind, choice.object.name),
      actionOf(choice.action, `${path}.action`, onClash),
    );
  });
  return { onClash, choices };
}

/** Refuses a choice for an object that is no clash: a typo would otherwise change nothing. */
export function checkChoicesUsed(request: ClashRequest, clashes: readonly Clash[]): void {
  const clashing = new Set(clashes.map((c) => objectKey(c.kind, c.name)));
  const unused = [...request.choices.keys()].filter((key) => !clashing.has(key));
  if (unused.length === 0) return;
  const named = unused.map((key) => {
    const [kind, name] = key.split("\u0000");
    return `${kind} ${JSON.stringify(name)}`;
  });
  throw new ConnectError(
    `ImportRequest.choices names ${named.join(", ")}, which ${unused.length === 1 ? "is" : "are"} not a clash: the draft holds no object of that kind and name with other content`,
    Code.InvalidArgument,
  );
}

type Named = { readonly name: string };

/** `stored` with the objects of `fragment` in it (by kind and name). */
export function overlaid(stored: ConfigSpec, fragment: ConfigSpecFragment): ConfigSpec {
  const out: Record<string, unknown> = { ...stored };
  for (const kind of DOCUMENT_KINDS) {
    const field = SPEC_FIELD[kind];
    const incoming = fragment[field as keyof ConfigSpecFragment] as readonly Named[];
    if (incoming.length === 0) continue;
    const names = new Set(incoming.map((o) => o.name));
    out[field] = [
      ...(stored[field] as readonly Named[]).filter((o) => !names.has(o.name)),
      ...incoming,
    ];
  }
  return out as unknown as ConfigSpec;
}

const kindsOf = (fragment: ConfigSpecFragment) =>
  new Set(
    DOCUMENT_KINDS.flatMap((kind) =>
      (fragment[SPEC_FIELD[kind] as keyof ConfigSpecFragment] as readonly Named[]).map((o) =>
        objectKey(kind, o.name),
      ),
    ),
  );

/** The stored objects, not among the document's, that name `object` in `stored`. */
function outsideUsers(
  dependents: ReturnType<typeof dependentsIn>,
  object: ObjectKey,
  inDocument: ReadonlySet<string>,
) {
  return dependentsOf(dependents, object)
    .filter((user) => !inDocument.has(objectKey(user.kind, user.name)))
    .map((user) => ({ kind: resourceKindOf[user.kind], name: user.name }));
}

/** The API's ImportClash of each clash: its users outside the document, both sides' YAML. */
export function clashMessages(
  stored: ConfigSpec,
  /** The document's objects as read (renames taken, none skipped). */
  fragment: ConfigSpecFragment,
  clashes: readonly Clash[],
): ImportClash[] {
  if (clashes.length === 0) return [];
  const dependents = dependentsIn(stored);
  const inDocument = kindsOf(fragment);
  const incoming = overlaid(stored, fragment);
  return clashes.map((clash) =>
    create(ImportClashSchema, {
      object: { kind: resourceKindOf[clash.kind], name: clash.name },
      action: ACTION_VALUES[clash.action],
      renamedTo: clash.renamedTo ?? "",
      dependents: outsideUsers(dependents, clash, inDocument),
      change: ChangeType.MODIFIED,
      existing: yamlOf(stored, clash.kind, clash.name),
      incoming: yamlOf(incoming, clash.kind, clash.renamedTo ?? clash.name),
    }),
  );
}

/**
 * Apply's (and a declarative import's) word on what it replaces or prunes: each such stored
 * object that stored objects outside the document use, with them. Names only: the changes carry
 * the YAML.
 */
export function outsideEffects(
  before: ConfigSpec,
  fragment: ConfigSpecFragment,
  changes: readonly { readonly kind: SourceKind; readonly name: string; readonly change: string }[],
): ImportClash[] {
  const touched = changes.filter(
    (c) =>
      (c.change === "modified" || c.change === "removed") &&
      (DOCUMENT_KINDS as readonly string[]).includes(c.kind),
  );
  if (touched.length === 0) return [];
  const dependents = dependentsIn(before);
  const inDocument = kindsOf(fragment);
  return touched.flatMap((change) => {
    const users = outsideUsers(dependents, change, inDocument);
    if (users.length === 0) return [];
    return [
      create(ImportClashSchema, {
        object: { kind: resourceKindOf[change.kind], name: change.name },
        action: ImportClashAction.REPLACE,
        dependents: users,
        change: change.change === "removed" ? ChangeType.REMOVED : ChangeType.MODIFIED,
      }),
    ];
  });
}

export type { DocumentKind };
