"use client";

import { Code } from "@connectrpc/connect";
import { skipToken, useQuery } from "@connectrpc/connect-query";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { useSearchParams } from "next/navigation";
import type { ReactNode } from "react";
import { useCaller } from "@/components/access/use-caller";
import { buttonClass } from "@/components/ui/button";
import { ReviewIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { EmptyState, LoadError, LoadingBlock, PageHeader } from "@/components/ui/page-states";
import { RefreshButton } from "@/components/ui/refresh-button";
import {
  mergeReviews,
  REVIEW_STATE_CHOICES,
  type ReviewFilter,
  reviewFilterFromParams,
  reviewLists,
  searchOfReviewFilter,
} from "@/lib/review-filter";
import { ReviewCard } from "./review-card";

/**
 * The Reviews page: requests from members whose team requires review (README "Review"), open
 * ones first, filtered by state in the URL (lib/review-filter.ts); `?id=` shows one request.
 * Everyone signed in reads them; an admin approves or rejects, the requester withdraws.
 */
export function ReviewsView() {
  const filter = reviewFilterFromParams(useSearchParams());
  return filter.id === undefined ? (
    <ReviewList filter={filter} />
  ) : (
    <OneReview key={filter.id.toString()} id={filter.id} />
  );
}

const DESCRIPTION =
  "Teams that require review ask here for their drafts to be published; an admin approves or rejects each.";

function ReviewList({ filter }: { filter: ReviewFilter }) {
  const caller = useCaller();
  const lists = reviewLists(filter.state);
  const open = useQuery(ConfigService.method.listReviewRequests, lists.open ?? skipToken);
  const other = useQuery(ConfigService.method.listReviewRequests, lists.other ?? skipToken);
  const queries = [lists.open && open, lists.other && other].filter((q) => q !== undefined);
  const failed = queries.find((q) => q.error && !q.data);
  const loaded = queries.every((q) => q.data !== undefined);
  const busy = queries.some((q) => q.isFetching);
  const refetch = () => {
    for (const q of queries) void q.refetch();
  };
  const requests = mergeReviews(open.data?.requests ?? [], other.data?.requests ?? []);
  const chosen = REVIEW_STATE_CHOICES.find((c) => c.value === filter.state);

  let body: ReactNode;
  if (failed?.error) {
    body = (
      <LoadError
        what="the review requests"
        procedure="switchyard.v1.ConfigService/ListReviewRequests"
        error={failed.error}
        retrying={busy}
        onRetry={refetch}
      />
    );
  } else if (!loaded) {
    body = <LoadingBlock label="Loading the review requests…" rows={6} />;
  } else if (requests.length === 0) {
    body =
      filter.state === undefined ? (
        <EmptyState
          icon={<ReviewIcon className="size-5" />}
          title="No review requests yet"
          actions={
            <Link href={"/changes" as Route} className={buttonClass("secondary")}>
              See the pending changes
            </Link>
          }
        >
          A member of a team that requires review asks for one on the Changes page, instead of
          publishing; the request waits here until an admin approves or rejects it.
        </EmptyState>
      ) : (
        <EmptyState
          icon={<ReviewIcon className="size-5" />}
          title={`No ${chosen?.label.toLowerCase() ?? ""} requests`}
          actions={
            <Link href={"/reviews" as Route} className={buttonClass("secondary")}>
              Show every request
            </Link>
          }
        >
          {filter.state === "open"
            ? "Nothing is waiting for an admin."
            : "No request ended this way yet."}
        </EmptyState>
      );
  } else {
    body = (
      <ul aria-label="Review requests" className="flex flex-col gap-4">
        {requests.map((request) => (
          <li key={request.id.toString()}>
            <ReviewCard request={request} caller={caller} />
          </li>
        ))}
      </ul>
    );
  }

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Reviews"
        description={DESCRIPTION}
        actions={<RefreshButton fetching={busy} shown={loaded} onClick={refetch} />}
      />
      <StateFilter filter={filter} />
      {body}
    </div>
  );
}

/** The state filter: links, so each view has its own address. */
function StateFilter({ filter }: { filter: ReviewFilter }) {
  return (
    <nav aria-label="Filter by state">
      <ul className="flex w-fit flex-wrap rounded-md border bg-surface-muted p-0.5">
        {REVIEW_STATE_CHOICES.map((choice) => {
          const current = choice.value === filter.state;
          return (
            <li key={choice.label}>
              <Link
                href={
                  `/reviews${searchOfReviewFilter({ state: choice.value, id: undefined })}` as Route
                }
                aria-current={current ? "page" : undefined}
                className={`block rounded px-3 py-1 text-xs font-medium transition-colors ${
                  current ? "bg-surface text-fg shadow-xs" : "text-fg-muted hover:text-fg"
                }`}
              >
                {choice.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/** One request's own page (`?id=`), with its diff open while it is current. */
function OneReview({ id }: { id: bigint }) {
  const caller = useCaller();
  const query = useQuery(ConfigService.method.getReviewRequest, { id });
  const back = (
    <Link href={"/reviews" as Route} className="hover:text-fg hover:underline">
      Reviews
    </Link>
  );
  let body: ReactNode;
  if (query.error?.code === Code.NotFound) {
    body = (
      <EmptyState
        icon={<ReviewIcon className="size-5" />}
        title="No such review request"
        actions={
          <Link href={"/reviews" as Route} className={buttonClass("secondary")}>
            Back to Reviews
          </Link>
        }
      >
        No review request has the id {id.toString()}.
      </EmptyState>
    );
  } else if (query.error && !query.data) {
    body = (
      <LoadError
        what={`review request #${id}`}
        procedure="switchyard.v1.ConfigService/GetReviewRequest"
        error={query.error}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
      />
    );
  } else if (!query.data) {
    body = <LoadingBlock label={`Loading review request #${id}…`} rows={6} />;
  } else {
    body = <ReviewCard request={query.data} caller={caller} linked={false} diffOpen />;
  }
  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        eyebrow={back}
        title={`Review request #${id}`}
        description={DESCRIPTION}
        actions={
          <RefreshButton
            fetching={query.isFetching}
            shown={query.data !== undefined}
            onClick={() => void query.refetch()}
          />
        }
      />
      {body}
    </div>
  );
}
