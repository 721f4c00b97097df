import { type Issue, Severity } from "@switchyard/proto/switchyard/v1/config_pb";
import { AlertTriangleIcon } from "@/components/ui/icons";

const tone = {
  error: {
    label: "Error",
    icon: "text-danger",
    chip: "bg-danger-soft text-danger ring-danger-border",
  },
  warning: {
    label: "Warning",
    icon: "text-warning",
    chip: "bg-warning-soft text-warning ring-warning-border",
  },
  info: {
    label: "Note",
    icon: "text-fg-subtle",
    chip: "bg-surface-muted text-fg-muted ring-border",
  },
} as const;

function toneOf(severity: Severity) {
  if (severity === Severity.ERROR) return tone.error;
  if (severity === Severity.WARNING) return tone.warning;
  return tone.info;
}

/**
 * Validation or import issues, each with its severity, where it is (the path), what is wrong and
 * how to fix it (the hint).
 */
export function IssueList({
  issues,
  compact = false,
}: {
  issues: readonly Issue[];
  compact?: boolean;
}) {
  return (
    <ul className={`flex flex-col ${compact ? "gap-1.5" : "gap-2.5"}`}>
      {issues.map((issue, i) => {
        const t = toneOf(issue.severity);
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: the list is replaced whole, never reordered
          <li key={i} className="flex gap-2.5">
            <AlertTriangleIcon className={`mt-0.5 size-4 shrink-0 ${t.icon}`} />
            <div className="min-w-0 flex-1">
              <p className="text-fg">
                <span
                  className={`mr-2 inline-flex rounded px-1.5 py-px text-[11px] font-semibold ring-1 ring-inset ${t.chip}`}
                >
                  {t.label}
                </span>
                {issue.message}
              </p>
              {issue.path && (
                <p className="mt-0.5 font-mono text-xs text-fg-muted [overflow-wrap:anywhere]">
                  at {issue.path}
                  {issue.code && <span className="text-fg-subtle"> · {issue.code}</span>}
                </p>
              )}
              {issue.hint && <p className="mt-0.5 text-xs text-fg-muted">{issue.hint}</p>}
            </div>
          </li>
        );
      })}
    </ul>
  );
}
