"use client";

import type { Route } from "next";
import Link from "next/link";
import { toast } from "sonner";

/** "Saved to the draft": what happened, and where to publish it (the Changes page). */
export function toastSavedToDraft(what: string) {
  toast.success(`${what} saved to the draft`, {
    description: (
      <span>
        Not live yet:{" "}
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

export function toastDeleted(what: string) {
  toast.success(`${what} deleted from the draft`, {
    description: (
      <span>
        Still served until published:{" "}
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
