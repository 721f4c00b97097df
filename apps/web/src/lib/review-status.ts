import { type ReviewRequest, ReviewState } from "@switchyard/proto/switchyard/v1/config_pb";

/** How a request's state reads on the page: a word and a tone for its pill. */
export interface ReviewStatus {
  readonly label: string;
  readonly tone: "success" | "muted" | "warning" | "danger";
}

/**
 * A request's state as the console shows it. An open request that is no longer `current` is
 * "Out of date": an approval would be refused (review-handlers.ts, approveReview).
 */
export function reviewStatus(request: Pick<ReviewRequest, "state" | "current">): ReviewStatus {
  switch (request.state) {
    case ReviewState.OPEN:
      return request.current
        ? { label: "Open", tone: "warning" }
        : { label: "Out of date", tone: "danger" };
    case ReviewState.APPROVED:
      return { label: "Approved", tone: "success" };
    case ReviewState.REJECTED:
      return { label: "Rejected", tone: "danger" };
    case ReviewState.WITHDRAWN:
      return { label: "Withdrawn", tone: "muted" };
    default:
      return { label: "Unknown", tone: "muted" };
  }
}

/**
 * Why an admin cannot approve `request` now, or undefined when they can. The server decides
 * again when asked: the draft may change between this answer and the click.
 */
export function approvalBlocked(
  request: Pick<ReviewRequest, "state" | "current" | "requester">,
): string | undefined {
  if (request.state !== ReviewState.OPEN) return "Only an open request can be approved.";
  if (!request.current)
    return `Out of date: the draft changed, or a version was published, after it was requested. Ask ${request.requester} to review the draft and request again, or reject it.`;
  return undefined;
}

/**
 * What the Changes page tells `username` about their own requests: their open one, if any, or
 * else their newest request when an admin rejected it (with the admin's comment), so they see
 * why before they change the draft and ask again. `recent` is newest first.
 */
export function ownReviews(
  open: readonly ReviewRequest[],
  recent: readonly ReviewRequest[],
  username: string | undefined,
): { readonly open: ReviewRequest | undefined; readonly rejected: ReviewRequest | undefined } {
  if (username === undefined) return { open: undefined, rejected: undefined };
  const mine = open.find((r) => r.requester === username && r.state === ReviewState.OPEN);
  if (mine) return { open: mine, rejected: undefined };
  const newest = recent.find((r) => r.requester === username);
  return {
    open: undefined,
    rejected: newest?.state === ReviewState.REJECTED ? newest : undefined,
  };
}
