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

/** "Saved to the draft": what happened, and where to publish it (the Changes page). */
export function toastSavedToDraft(what: string) {
  toastDraftEdit(`${what} saved to the draft`, "Not live yet");
}

export function toastDeleted(what: string) {
  toastDraftEdit(`${what} deleted from the draft`, "Still served until published");
}
