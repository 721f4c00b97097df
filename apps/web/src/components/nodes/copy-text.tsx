import { CopyButton } from "@/components/ui/copy-button";

/** Preformatted text (a NACK's error_detail) with a button that copies it. */
export function CopyableText({ text, label }: { text: string; label: string }) {
  return (
    <figure aria-label={label} className="relative">
      <pre className="max-h-80 overflow-auto rounded-lg border border-danger-border bg-danger-soft py-3 pr-12 pl-4 font-mono text-[12.5px] leading-relaxed whitespace-pre-wrap text-fg [overflow-wrap:anywhere]">
        {text}
      </pre>
      <CopyButton
        text={text}
        label={`Copy ${label.toLowerCase()}`}
        title="Copy"
        className="absolute top-2 right-2 grid size-7 place-items-center rounded-md bg-surface text-fg-muted shadow-xs ring-1 ring-border transition-colors hover:text-fg"
      />
    </figure>
  );
}
