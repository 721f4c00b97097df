/**
 * How the client commands print: the Output they write to, kubectl-style tables, change
 * summaries and lists, and the choice of an --output format. Shared by every *-commands.ts.
 */
import { ChangeType, type ObjectChange } from "@switchyard/proto/switchyard/v1/config_pb";
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
