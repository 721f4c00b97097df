"use client";

import { timestampDate } from "@bufbuild/protobuf/wkt";
import { type ReviewRequest, ReviewState } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { useId, useState } from "react";
import type { CallerRole } from "@/components/access/use-caller";
import { Button } from "@/components/ui/button";
import { AlertTriangleIcon, ChevronRightIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { RelativeTime } from "@/components/ui/relative-time";
import { StatusPill } from "@/components/ui/status-pill";
import { reviewHref } from "@/lib/review-filter";
import { approvalBlocked, reviewStatus } from "@/lib/review-status";
import { ApproveButton, RejectButton, WithdrawButton } from "./review-actions";
import { ChangeNames, ReviewDiff } from "./review-changes";

/**
 * One review request: who asked, when, on which version and why; what it changes; its outcome;
 * and what the reader may do about it (an admin approves or rejects an open request, the
 * requester withdraws it). While it is current, its diff opens on request.
 */
export function ReviewCard({
  request,
  caller,
  linked = true,
  diffOpen = false,
}: {
  request: ReviewRequest;
  caller: { readonly role: CallerRole | undefined; readonly username: string | undefined };
  /** The title links to the request's own page (not on that page). */
  linked?: boolean;
  /** The diff starts open (the request's own page). */
  diffOpen?: boolean;
}) {
  const titleId = useId();
  const blockedId = useId();
  const diffId = useId();
  const [showDiff, setShowDiff] = useState(diffOpen);
  const status = reviewStatus(request);
  const open = request.state === ReviewState.OPEN;
  const blocked = approvalBlocked(request);
  const title = `Review #${request.id}`;
  const created = request.createTime ? timestampDate(request.createTime) : undefined;
  return (
    <article
      aria-labelledby={titleId}
      className="flex flex-col rounded-xl border bg-surface shadow-xs"
    >
      <header className="flex flex-wrap items-start justify-between gap-3 border-b px-5 py-4">
        <div className="min-w-0">
          <h2 id={titleId} className="flex items-center gap-2.5 text-base font-semibold text-fg">
            {linked ? (
              <Link
                href={reviewHref(request.id) as Route}
                className="hover:text-accent hover:underline"
              >
                {title}
              </Link>
            ) : (
              title
            )}
            <StatusPill tone={status.tone}>{status.label}</StatusPill>
          </h2>
          <p className="mt-1 text-xs text-fg-muted">
            Asked by <span className="font-medium text-fg">{request.requester}</span>
            {request.team && <> of team {request.team}</>}
            {created && (
              <>
                {" "}
                <RelativeTime date={created} />
              </>
            )}
            {" · "}
            {request.baseVersion === 0n ? (
              "before the first version"
            ) : (
              <>on version {request.baseVersion.toString()}</>
            )}
          </p>
        </div>
        {open && (
          <div className="flex items-center gap-2">
            {caller.username === request.requester && <WithdrawButton request={request} />}
            {caller.role === "admin" && (
              <>
                <RejectButton request={request} />
                <ApproveButton request={request} blocked={blocked} blockedId={blockedId} />
              </>
            )}
          </div>
        )}
      </header>
      <div className="flex flex-col gap-4 px-5 py-4">
        <p className="whitespace-pre-wrap text-fg [overflow-wrap:anywhere]">{request.message}</p>
        {open && !request.current && (
          <p
            id={blockedId}
            role="note"
            className="flex gap-2 rounded-md border border-warning-border bg-warning-soft px-3 py-2 text-fg"
          >
            <AlertTriangleIcon className="mt-0.5 size-4 shrink-0 text-warning" />
            {blocked}
          </p>
        )}
        <Outcome request={request} />
        <ChangeNames request={request} />
        {open && request.current && (
          <div className="flex flex-col gap-3">
            <div>
              <Button
                variant="ghost"
                aria-expanded={showDiff}
                aria-controls={showDiff ? diffId : undefined}
                onClick={() => setShowDiff(!showDiff)}
              >
                <ChevronRightIcon
                  className={`size-4 transition-transform ${showDiff ? "rotate-90" : ""}`}
                />
                {showDiff ? "Hide the diff" : "Show the diff"}
              </Button>
            </div>
            {showDiff && (
              <div id={diffId}>
                <ReviewDiff request={request} />
              </div>
            )}
          </div>
        )}
      </div>
    </article>
  );
}

/** Who decided a closed request, when, and why; an approval's published version. */
function Outcome({ request }: { request: ReviewRequest }) {
  if (request.state === ReviewState.OPEN || request.state === ReviewState.UNSPECIFIED) return null;
  const when = request.decideTime ? timestampDate(request.decideTime) : undefined;
  const verb =
    request.state === ReviewState.APPROVED
      ? "Approved"
      : request.state === ReviewState.REJECTED
        ? "Rejected"
        : "Withdrawn";
  const version = request.publishedVersion.toString();
  return (
    <div className="flex flex-col gap-1.5 rounded-md border bg-surface-muted px-3 py-2">
      <p className="text-fg-muted">
        {verb} by <span className="font-medium text-fg">{request.decidedBy}</span>
        {when && (
          <>
            {" "}
            <RelativeTime date={when} />
          </>
        )}
        {request.state === ReviewState.APPROVED && request.publishedVersion > 0n && (
          <>
            {": published as "}
            <Link
              href={`/history?version=${version}` as Route}
              className="font-medium text-accent hover:underline"
            >
              version {version}
            </Link>
          </>
        )}
      </p>
      {request.comment && (
        <blockquote className="border-l-2 border-border-strong pl-3 whitespace-pre-wrap text-fg [overflow-wrap:anywhere]">
          {request.comment}
        </blockquote>
      )}
    </div>
  );
}
