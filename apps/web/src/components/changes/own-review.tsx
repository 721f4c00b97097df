"use client";

import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { ReviewRequest } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { useState } from "react";
import { WithdrawButton } from "@/components/reviews/review-actions";
import { Button } from "@/components/ui/button";
import { AlertTriangleIcon, ReviewIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { RelativeTime } from "@/components/ui/relative-time";
import { reviewHref } from "@/lib/review-filter";

const linkClass = "text-sm font-medium text-accent hover:underline";

/**
 * The member's own review request on the Changes page: the open one (waiting, or out of date
 * since the draft or the latest version changed), with Withdraw; or else their newest one when an
 * admin rejected it, with the admin's comment, until they dismiss it or ask again.
 */
export function OwnReview({
  open,
  rejected,
}: {
  open: ReviewRequest | undefined;
  rejected: ReviewRequest | undefined;
}) {
  const [dismissed, setDismissed] = useState<bigint | undefined>();
  if (open) {
    const asked = open.createTime ? timestampDate(open.createTime) : undefined;
    return (
      <section
        aria-label="Your review request"
        className={`flex flex-wrap items-start gap-3 rounded-lg border px-4 py-3 ${
          open.current ? "border-accent/30 bg-accent-soft" : "border-warning-border bg-warning-soft"
        }`}
      >
        {open.current ? (
          <ReviewIcon className="mt-0.5 size-4 shrink-0 text-accent" />
        ) : (
          <AlertTriangleIcon className="mt-0.5 size-4 shrink-0 text-warning" />
        )}
        <div className="min-w-0 flex-1">
          <p className="font-medium text-fg">
            Your review request #{open.id.toString()}{" "}
            {open.current ? "is waiting for an admin" : "is out of date"}
          </p>
          <p className="mt-0.5 text-fg-muted [overflow-wrap:anywhere]">
            “{open.message}”
            {asked && (
              <>
                {" "}
                · asked <RelativeTime date={asked} />
              </>
            )}
          </p>
          {!open.current && (
            <p className="mt-1 text-fg">
              The draft changed, or a version was published, after you asked: an admin cannot
              approve it. Review the changes below and request again to replace it.
            </p>
          )}
        </div>
        <div className="flex items-center gap-3">
          <Link href={reviewHref(open.id) as Route} className={linkClass}>
            View request
          </Link>
          <WithdrawButton request={open} />
        </div>
      </section>
    );
  }
  if (rejected && rejected.id !== dismissed) {
    const when = rejected.decideTime ? timestampDate(rejected.decideTime) : undefined;
    return (
      <section
        aria-label="Your review request"
        className="flex flex-wrap items-start gap-3 rounded-lg border border-danger-border bg-danger-soft px-4 py-3"
      >
        <AlertTriangleIcon className="mt-0.5 size-4 shrink-0 text-danger" />
        <div className="min-w-0 flex-1">
          <p className="font-medium text-fg">
            Your review request #{rejected.id.toString()} was rejected by {rejected.decidedBy}
            {when && (
              <>
                {" "}
                <RelativeTime date={when} />
              </>
            )}
          </p>
          <blockquote className="mt-1 border-l-2 border-danger-border pl-3 whitespace-pre-wrap text-fg [overflow-wrap:anywhere]">
            {rejected.comment}
          </blockquote>
          <p className="mt-1 text-fg-muted">
            Nothing was published. Change the draft, then request a review again.
          </p>
        </div>
        <div className="flex items-center gap-3">
          <Link href={reviewHref(rejected.id) as Route} className={linkClass}>
            View request
          </Link>
          <Button onClick={() => setDismissed(rejected.id)}>Dismiss</Button>
        </div>
      </section>
    );
  }
  return null;
}
