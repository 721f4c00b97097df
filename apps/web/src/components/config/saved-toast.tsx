"use client";

import { type Issue, Severity } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { toast } from "sonner";
import { Link } from "@/components/ui/link";

/** A draft edit's toast: what happened, why it is not live yet, and where to publish it. */
function toastDraftEdit(title: string, notLive: string) {
  toast.success(title, {
    description: (
      <span>
        {notLive}:{" "}
        <Link
          href={"/changes" as Route}
          className="font-medium text-accent underline underline-offset-2"
        >
          review and publish on Changes
        </Link>
      </span>
    ),
  });
}

/** "Cluster", from a kind's label "cluster": a sentence's first word. */
export const capitalized = (label: string) => label.charAt(0).toUpperCase() + label.slice(1);

/** How a toast names a stored object: Cluster “payments”. */
const named = (label: string, name: string) => `${capitalized(label)} “${name}”`;

/** Issues a save's answer lists at most in its toast (the Changes page lists them all). */
const SHOWN_ISSUES = 3;

/**
 * "Saved to the draft": what happened, and where to publish it (the Changes page). With the
 * draft's issues about the object as saved (a route configuration that does not exist, a second
 * listener on its address), it says them, and that an error among them blocks a publish.
 */
export function toastSavedToDraft(label: string, name: string, issues: readonly Issue[] = []) {
  const title = `${named(label, name)} saved to the draft`;
  if (issues.length === 0) {
    toastDraftEdit(title, "Not live yet");
    return;
  }
  const blocks = issues.some((issue) => issue.severity === Severity.ERROR);
  toast.warning(title, {
    duration: 15_000,
    description: (
      <span>
        {blocks
          ? "Publishing it is refused until this is fixed:"
          : "Worth a look before publishing:"}
        <ul className="mt-1 list-disc pl-4">
          {issues.slice(0, SHOWN_ISSUES).map((issue) => (
            <li key={`${issue.code}:${issue.path}`}>{issue.message}</li>
          ))}
        </ul>
        {issues.length > SHOWN_ISSUES ? `and ${issues.length - SHOWN_ISSUES} more ` : ""}
        <Link
          href={"/changes" as Route}
          className="font-medium text-accent underline underline-offset-2"
        >
          review on Changes
        </Link>
      </span>
    ),
  });
}

export function toastDeleted(label: string, name: string) {
  toastDraftEdit(`${named(label, name)} deleted from the draft`, "Still served until published");
}
