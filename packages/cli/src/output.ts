/**
 * How the client commands print: the Output they write to, kubectl-style tables, change
 * summaries and lists, and the choice of an --output format. Shared by every *-commands.ts.
 */
import {
  ChangeType,
  type ImportClash,
  ImportClashAction,
  type ObjectChange,
  ResourceKind,
} from "@switchyard/proto/switchyard/v1/config_pb";
import Table from "cli-table3";
import { CliError } from "./client.js";
import { kindLabel } from "./kinds.js";

/** Everything a command writes goes through here, so tests can capture it. */
export interface Output {
  out(text: string): void;
}

const changeWord: Record<ChangeType, string> = {
  [ChangeType.UNSPECIFIED]: "changed",
  [ChangeType.ADDED]: "added",
  [ChangeType.MODIFIED]: "modified",
  [ChangeType.REMOVED]: "removed",
};

/** A borderless, aligned table (kubectl style). */
export function table(head: string[], rows: string[][]): string {
  const t = new Table({
    head,
    chars: {
      top: "",
      "top-mid": "",
      "top-left": "",
      "top-right": "",
      bottom: "",
      "bottom-mid": "",
      "bottom-left": "",
      "bottom-right": "",
      left: "",
      "left-mid": "",
      mid: "",
      "mid-mid": "",
      right: "",
      "right-mid": "",
      middle: "  ",
    },
    style: { head: [], border: [], "padding-left": 0, "padding-right": 0 },
  });
  t.push(...rows);
  return `${t.toString()}\n`;
}

export function summarizeChanges(changes: readonly ObjectChange[]): string {
  if (changes.length === 0) return "no changes";
  const count = (type: ChangeType) => changes.filter((c) => c.change === type).length;
  return [
    `${count(ChangeType.ADDED)} added`,
    `${count(ChangeType.MODIFIED)} modified`,
    `${count(ChangeType.REMOVED)} removed`,
  ].join(", ");
}

export function changeLines(changes: readonly ObjectChange[]): string {
  return changes
    .map((c) => `  ${changeWord[c.change].padEnd(8)} ${kindLabel[c.kind]} ${c.name}\n`)
    .join("");
}

/** "listener a, listener b" */
const objectList = (objects: readonly { kind: ResourceKind; name: string }[]) =>
  objects.map((o) => `${kindLabel[o.kind]} ${o.name}`).join(", ");

/**
 * What an import or apply did with stored objects of its names (ImportClash), one line each:
 * "route configuration local_route is replaced; listener 0.0.0.0_8080, not in these files, uses it".
 */
export function clashLines(clashes: readonly ImportClash[], where = "these files"): string {
  return clashes
    .map((clash) => {
      const object = `${kindLabel[clash.object?.kind ?? ResourceKind.UNSPECIFIED]} ${clash.object?.name ?? ""}`;
      const users = clash.dependents;
      const uses =
        users.length === 0
          ? ""
          : `${objectList(users)}, not in ${where}, ${users.length === 1 ? "uses" : "use"} it`;
      switch (clash.action) {
        case ImportClashAction.RENAME:
          return `  ${object}: the draft has another by that name; stored as ${clash.renamedTo}${uses ? ` (${uses}, and keeps the draft's)` : ""}\n`;
        case ImportClashAction.SKIP:
          return `  ${object}: the draft has another by that name; kept the draft's, the files' references name it\n`;
        default:
          return `  ${object} is ${clash.change === ChangeType.REMOVED ? "removed" : "replaced"}${uses ? `; ${uses}` : ""}\n`;
      }
    })
    .join("");
}

export function outputFormat(
  value: string | undefined,
  allowed: readonly string[],
  fallback: string,
): string {
  const format = value ?? fallback;
  if (!allowed.includes(format))
    throw new CliError(`unknown output format "${format}": use ${allowed.join(" or ")}`);
  return format;
}
