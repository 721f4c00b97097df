"use client";

import {
  type ImportClash,
  ImportClashAction,
  type ObjectRef,
  ResourceKind,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { useId, useRef } from "react";
import { TextDiff } from "@/components/diff/text-diff";
import { AlertTriangleIcon } from "@/components/ui/icons";
import { kindLabel } from "@/lib/object-changes";

/**
 * What to do with each clashing object (ImportChoice), by `kind:name` of the object in the
 * content; an object not named here gets the server's default (RENAME).
 */
export type ClashChoices = ReadonlyMap<string, ImportClashAction>;

export function clashKey(clash: Pick<ImportClash, "object">): string {
  return `${clash.object?.kind ?? 0}:${clash.object?.name ?? ""}`;
}

/** "listener a", "listeners a and b", "listener a, route configuration b and c". */
export function objectsText(refs: readonly ObjectRef[]): string {
  const byKind = new Map<ResourceKind, string[]>();
  for (const ref of refs) byKind.set(ref.kind, [...(byKind.get(ref.kind) ?? []), ref.name]);
  const parts = [...byKind].map(([kind, names]) => {
    const label = kindLabel(kind);
    return `${names.length === 1 ? label : `${label}s`} ${listText(names)}`;
  });
  return listText(parts);
}

function listText(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** What, in an import, names an object of this kind (what a rename points at the new name). */
function usersInImport(kind: ResourceKind | undefined): string {
  switch (kind) {
    case ResourceKind.ROUTE_CONFIGURATION:
      return "Its listeners in this import";
    case ResourceKind.CLUSTER:
      return "Its routes and listeners in this import";
    default:
      return "What names it in this import";
  }
}

/** What a replace does to the stored objects that use the replaced one. */
function replaceText(clash: ImportClash): string {
  if (clash.dependents.length === 0) return "nothing else in the draft uses it.";
  const who = objectsText(clash.dependents);
  const routing =
    clash.object?.kind === ResourceKind.ROUTE_CONFIGURATION ||
    clash.object?.kind === ResourceKind.CLUSTER;
  const many = clash.dependents.length > 1;
  return routing
    ? `${who} will route differently.`
    : `${who} will use the incoming one${many ? "s" : ""}.`;
}

/**
 * The objects of an import whose names the draft has with other content (ImportResponse.clashes):
 * per object, what in the draft outside the import uses it, the diff from the draft's to the
 * incoming one, and the choice to rename the incoming one (the default), replace the draft's, or
 * skip the incoming one.
 */
export function ImportClashes({
  clashes,
  choices,
  choose,
  disabled,
}: {
  clashes: readonly ImportClash[];
  choices: ClashChoices;
  choose: (clash: ImportClash, action: ImportClashAction) => void;
  disabled: boolean;
}) {
  // The free name each renamed object was given, kept while another choice is shown.
  const renamed = useRef(new Map<string, string>());
  for (const clash of clashes)
    if (clash.renamedTo !== "") renamed.current.set(clashKey(clash), clash.renamedTo);
  return (
    <section aria-labelledby="clashes-title" className="flex flex-col gap-3">
      <div>
        <h3 id="clashes-title" className="flex items-center gap-2 font-semibold text-fg">
          <AlertTriangleIcon className="size-4 text-warning" />
          {clashes.length === 1
            ? "1 object has a name the draft already uses"
            : `${clashes.length} objects have names the draft already uses`}
        </h3>
        <p className="mt-1 text-fg-muted">
          Choose for each what the import does; the changes below follow the choice.
        </p>
      </div>
      {clashes.map((clash) => (
        <Clash
          key={clashKey(clash)}
          clash={clash}
          action={choices.get(clashKey(clash)) ?? clash.action}
          renamedTo={renamed.current.get(clashKey(clash))}
          choose={(action) => choose(clash, action)}
          disabled={disabled}
        />
      ))}
    </section>
  );
}

function Clash({
  clash,
  action,
  renamedTo,
  choose,
  disabled,
}: {
  clash: ImportClash;
  action: ImportClashAction;
  renamedTo: string | undefined;
  choose: (action: ImportClashAction) => void;
  disabled: boolean;
}) {
  const name = useId();
  const kind = kindLabel(clash.object?.kind ?? ResourceKind.UNSPECIFIED);
  const objectName = clash.object?.name ?? "";
  const options = [
    {
      value: ImportClashAction.RENAME,
      label: renamedTo ? `Rename the incoming one to ${renamedTo}` : "Rename the incoming one",
      hint: `${usersInImport(clash.object?.kind)} will use it; nothing else changes.`,
    },
    {
      value: ImportClashAction.REPLACE,
      label: "Replace the draft’s",
      hint: `With the incoming one: ${replaceText(clash)}`,
    },
    {
      value: ImportClashAction.SKIP,
      label: "Skip the incoming one",
      hint: "Keep the draft’s; this import’s references will use it.",
    },
  ];
  return (
    <article
      aria-label={`clash ${kind} ${objectName}`}
      className="overflow-hidden rounded-lg border border-warning-border bg-surface shadow-xs"
    >
      <div className="flex flex-col gap-3 px-4 py-3">
        <p className="text-fg">
          <span className="text-fg-subtle">{kind}</span>{" "}
          <span className="font-mono text-[13px] font-medium">{objectName}</span>: the draft has
          another by that name.
        </p>
        <p className="text-fg-muted">
          {clash.dependents.length === 0
            ? "Nothing else in the draft uses it."
            : `${objectsText(clash.dependents)} ${clash.dependents.length === 1 ? "uses" : "use"} it.`}
        </p>
        <fieldset className="flex flex-col gap-2" disabled={disabled}>
          <legend className="mb-1 text-sm font-medium text-fg">
            What to do with {kind} {objectName}
          </legend>
          {options.map((o) => (
            <label key={o.value} className="flex items-start gap-2 text-sm">
              <input
                type="radio"
                name={name}
                className="mt-1"
                checked={action === o.value}
                onChange={() => choose(o.value)}
              />
              <span>
                {o.label}
                <span className="block text-xs text-fg-subtle">{o.hint}</span>
              </span>
            </label>
          ))}
        </fieldset>
      </div>
      <div className="border-t">
        <p className="bg-surface-muted px-4 py-1 text-xs text-fg-subtle">
          The draft’s {kind} (−) and the incoming one (+)
        </p>
        <TextDiff
          before={clash.existing}
          after={clash.incoming}
          mode="unified"
          label={`The draft’s and the incoming ${kind} ${objectName}`}
        />
      </div>
    </article>
  );
}
