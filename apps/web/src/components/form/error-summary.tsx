"use client";

import { AlertTriangleIcon } from "@/components/ui/icons";
import type { FormIssue } from "@/lib/issue-path";

/**
 * The top-of-form summary after the server refused a save: how many problems were marked at
 * their fields, and, in full, those the form has no field for.
 */
export function ErrorSummary({
  title,
  placed,
  unplaced,
}: {
  title: string;
  placed: number;
  unplaced: readonly FormIssue[];
}) {
  return (
    <div
      role="alert"
      className="flex gap-3 rounded-lg border border-danger-border bg-danger-soft px-4 py-3"
    >
      <AlertTriangleIcon className="mt-0.5 size-4 shrink-0 text-danger" />
      <div className="min-w-0 flex-1">
        <p className="font-medium text-fg">{title}</p>
        {placed > 0 && (
          <p className="mt-0.5 text-fg-muted">
            {placed === 1 ? "One problem is" : `${placed} problems are`} marked at{" "}
            {placed === 1 ? "its field" : "their fields"} below.
          </p>
        )}
        {unplaced.length > 0 && (
          <ul className="mt-2 flex flex-col gap-1.5">
            {unplaced.map((issue) => (
              <li key={`${issue.path}:${issue.code}:${issue.message}`} className="text-fg-muted">
                <span className="text-fg">{issue.message}</span>
                {issue.hint && <span> — {issue.hint}</span>}
                {issue.path && (
                  <code className="ml-1.5 rounded bg-surface px-1 py-px font-mono text-xs text-fg-subtle">
                    {issue.path}
                  </code>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
