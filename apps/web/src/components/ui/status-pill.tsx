import type { ReactNode } from "react";

type Tone = "success" | "muted" | "warning" | "danger";

const tones: Record<Tone, { pill: string; dot: string }> = {
  success: { pill: "bg-success/10 text-success ring-success/30", dot: "bg-success" },
  muted: { pill: "bg-surface-muted text-fg-muted ring-border", dot: "bg-fg-subtle" },
  warning: { pill: "bg-warning-soft text-warning ring-warning-border", dot: "bg-warning" },
  danger: { pill: "bg-danger-soft text-danger ring-danger-border", dot: "bg-danger" },
};

/**
 * A rounded status word ("Live", "Reconnecting"), with a dot when `dot` says so. "pulse" is for
 * a passing state ("Connecting"): it starts after a second, and a state that lasts (e.g. "Live")
 * keeps a still dot, since an animation repaints the page for as long as it runs.
 */
export function StatusPill({
  tone,
  dot,
  title,
  children,
}: {
  tone: Tone;
  dot?: "still" | "pulse";
  title?: string;
  children: ReactNode;
}) {
  return (
    <span
      className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${tones[tone].pill}`}
      title={title}
    >
      {dot && (
        <span
          aria-hidden="true"
          className={`size-1.5 rounded-full ${tones[tone].dot} ${dot === "pulse" ? "motion-safe:animate-pulse-late" : ""}`}
        />
      )}
      {children}
    </span>
  );
}
