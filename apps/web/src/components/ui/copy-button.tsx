"use client";

import { useEffect, useState } from "react";
import { CheckIcon, CopyIcon } from "./icons";

/**
 * An icon button that copies `text` and shows a check for two seconds. Clipboard access can be
 * refused (insecure origin, permissions); the text it sits next to stays selectable, so a refusal
 * needs no message.
 */
export function CopyButton({
  text,
  label,
  title = label,
  className,
}: {
  text: string;
  /** The accessible name until copied, e.g. "Copy command"; "Copied" after. */
  label: string;
  /** The tooltip until copied; the label unless told. */
  title?: string;
  className: string;
}) {
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
      // Refused: see above.
    }
  };

  return (
    <button
      type="button"
      onClick={copy}
      aria-label={copied ? "Copied" : label}
      title={copied ? "Copied" : title}
      className={className}
    >
      {copied ? <CheckIcon className="size-4 text-success" /> : <CopyIcon className="size-4" />}
    </button>
  );
}
