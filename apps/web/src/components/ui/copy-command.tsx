import { CopyButton } from "./copy-button";

/** A shell command in a code block, with a button that copies it. */
export function CopyCommand({ command }: { command: string }) {
  return (
    <div className="flex items-center gap-2 rounded-lg border bg-surface-muted py-1.5 pr-1.5 pl-3.5 font-mono text-[13px]">
      <span aria-hidden="true" className="select-none text-fg-subtle">
        $
      </span>
      <code className="flex-1 overflow-x-auto whitespace-nowrap text-fg">{command}</code>
      <CopyButton
        text={command}
        label="Copy command"
        className="grid size-7 shrink-0 place-items-center rounded-md text-fg-muted transition-colors hover:bg-surface-hover hover:text-fg"
      />
    </div>
  );
}
