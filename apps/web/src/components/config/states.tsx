import type { ReactNode } from "react";

/** A small label in a list cell: a discovery type, "TLS", a missing reference. */
export function Chip({
  children,
  tone = "muted",
}: {
  children: ReactNode;
  tone?: "muted" | "accent" | "warning";
}) {
  const tones = {
    muted: "bg-surface-muted text-fg-muted ring-border",
    accent: "bg-accent-soft text-accent ring-accent/25",
    warning: "bg-warning-soft text-warning ring-warning-border",
  };
  return (
    <span
      className={`inline-flex items-center rounded-md px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${tones[tone]}`}
    >
      {children}
    </span>
  );
}
