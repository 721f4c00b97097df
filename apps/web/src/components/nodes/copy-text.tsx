"use client";

import { useEffect, useState } from "react";
import { CheckIcon, CopyIcon } from "@/components/ui/icons";

/** Preformatted text (a NACK's error_detail, a bootstrap) with a button that copies it. */
export function CopyableText({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 2_000);
    return () => clearTimeout(t);
  }, [copied]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      // Clipboard access can be refused (insecure origin); the text stays selectable.
    }
  };
  return (
    <figure aria-label={label} className="relative">
      <pre className="max-h-80 overflow-auto rounded-lg border border-danger-border bg-danger-soft py-3 pr-12 pl-4 font-mono text-[12.5px] leading-relaxed whitespace-pre-wrap text-fg [overflow-wrap:anywhere]">
        {text}
      </pre>
      <button
        type="button"
        onClick={copy}
        aria-label={copied ? "Copied" : `Copy ${label.toLowerCase()}`}
        title={copied ? "Copied" : "Copy"}
        className="absolute top-2 right-2 grid size-7 place-items-center rounded-md bg-surface text-fg-muted shadow-xs ring-1 ring-border transition-colors hover:text-fg"
      >
        {copied ? <CheckIcon className="size-4 text-success" /> : <CopyIcon className="size-4" />}
      </button>
    </figure>
  );
}
