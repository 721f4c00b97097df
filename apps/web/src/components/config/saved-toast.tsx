"use client";

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

/** "Saved to the draft": what happened, and where to publish it (the Changes page). */
export function toastSavedToDraft(label: string, name: string) {
  toastDraftEdit(`${named(label, name)} saved to the draft`, "Not live yet");
}

export function toastDeleted(label: string, name: string) {
  toastDraftEdit(`${named(label, name)} deleted from the draft`, "Still served until published");
}
