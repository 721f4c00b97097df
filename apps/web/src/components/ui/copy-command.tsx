"use client";

import { useEffect, useState } from "react";
import { CheckIcon, CopyIcon } from "./icons";

/** A shell command in a code block, with a button that copies it. */
export function CopyCommand({ command }: { command: string }) {
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 2_000);
    return () => clearTimeout(t);
  }, [copied]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(command);
      setCopied(true);
    } catch {
      // Clipboard access can be refused (insecure origin, permissions); the command stays
      // selectable, so there is nothing more to do.
    }
  };

  return (
    <div className="flex items-center gap-2 rounded-lg border bg-surface-muted py-1.5 pr-1.5 pl-3.5 font-mono text-[13px]">
      <span aria-hidden="true" className="select-none text-fg-subtle">
        $
      </span>
      <code className="flex-1 overflow-x-auto whitespace-nowrap text-fg">{command}</code>
      <button
        type="button"
        onClick={copy}
        className="grid size-7 shrink-0 place-items-center rounded-md text-fg-muted transition-colors hover:bg-surface-hover hover:text-fg"
        aria-label={copied ? "Copied" : "Copy command"}
        title={copied ? "Copied" : "Copy command"}
      >
        {copied ? <CheckIcon className="size-4 text-success" /> : <CopyIcon className="size-4" />}
      </button>
    </div>
  );
}
