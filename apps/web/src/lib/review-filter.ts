import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  type ListReviewRequestsRequestSchema,
  type ReviewRequest,
  ReviewState,
  ReviewStateSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { type EnumValueName, enumValueNames } from "./proto-enum";

/*
 * The Reviews page's view in its URL, so it can be shared or reloaded: `?state=rejected` lists
 * the requests in one state, none lists every state with the open ones first, and `?id=12` shows
 * one request (the link the Changes page gives after asking).
 */

type ReviewStateName = EnumValueName<typeof ReviewState>;

/** A state as the URL names it: its name in config.proto, in lower case (`?state=rejected`). */
export type ReviewStateParam = Lowercase<ReviewStateName>;

export interface ReviewFilter {
  /** Only requests in this state; every state when undefined. */
  readonly state: ReviewStateParam | undefined;
  /** One request, by id. */
  readonly id: bigint | undefined;
}

export const NO_REVIEW_FILTER: ReviewFilter = { state: undefined, id: undefined };

/** Every state but UNSPECIFIED, in proto order. */
const stateNames = enumValueNames(ReviewStateSchema, ReviewState);
const paramOf = (name: ReviewStateName) => name.toLowerCase() as ReviewStateParam;

const STATES = Object.fromEntries(
  stateNames.map((name) => [paramOf(name), ReviewState[name]]),
) as Record<ReviewStateParam, ReviewState>;

const stateLabels: Record<ReviewStateName, string> = {
  OPEN: "Open",
  APPROVED: "Approved",
  REJECTED: "Rejected",
  WITHDRAWN: "Withdrawn",
};

/** The state filter's choices, in the order the page offers them: all, then proto order. */
export const REVIEW_STATE_CHOICES: readonly {
  readonly value: ReviewStateParam | undefined;
  readonly label: string;
}[] = [
  { value: undefined, label: "All" },
  ...stateNames.map((name) => ({ value: paramOf(name), label: stateLabels[name] })),
];

function isStateParam(value: string): value is ReviewStateParam {
  return Object.hasOwn(STATES, value);
}

/** The filter in `params`; anything unknown (an edited URL) is no filter. */
export function reviewFilterFromParams(params: Pick<URLSearchParams, "get">): ReviewFilter {
  const state = (params.get("state") ?? "").trim().toLowerCase();
  const id = (params.get("id") ?? "").trim();
  return {
    state: isStateParam(state) ? state : undefined,
    id: /^[1-9]\d{0,18}$/.test(id) ? BigInt(id) : undefined,
  };
}

/** The search part of the page's URL, "?…" or "" for the default view. */
export function searchOfReviewFilter(filter: ReviewFilter): string {
  const params = new URLSearchParams();
  if (filter.state !== undefined) params.set("state", filter.state);
  if (filter.id !== undefined) params.set("id", filter.id.toString());
  const search = params.toString();
  return search === "" ? "" : `?${search}`;
}

/** The page of one review request. */
export function reviewHref(id: bigint): string {
  return `/reviews${searchOfReviewFilter({ state: undefined, id })}`;
}

type ListRequest = MessageInitShape<typeof ListReviewRequestsRequestSchema>;

/**
 * Every open request (the API's maximum page). The Reviews page, the sidebar's count and the
 * Changes page make exactly this call, so they share one cached answer; early-requests.ts starts
 * it too.
 */
export const OPEN_REVIEWS: ListRequest = { states: [ReviewState.OPEN], limit: 500 };

/** The newest requests in any state, for the page's default view. */
export const RECENT_REVIEWS: ListRequest = { limit: 50 };

/** How many requests a view of one closed state lists, newest first. */
export const CLOSED_REVIEWS_SHOWN = 100;

/**
 * The calls a view makes: the open requests (`open`), and the others (`other`). The default view
 * asks for both, so that an old open request is never pushed out of the list by newer closed
 * ones.
 */
export function reviewLists(state: ReviewStateParam | undefined): {
  readonly open: ListRequest | undefined;
  readonly other: ListRequest | undefined;
} {
  if (state === undefined) return { open: OPEN_REVIEWS, other: RECENT_REVIEWS };
  if (state === "open") return { open: OPEN_REVIEWS, other: undefined };
  return { open: undefined, other: { states: [STATES[state]], limit: CLOSED_REVIEWS_SHOWN } };
}

/** The open requests first, then the others, each newest first, every request once. */
export function mergeReviews(
  open: readonly ReviewRequest[],
  other: readonly ReviewRequest[],
): ReviewRequest[] {
  const newestFirst = (a: ReviewRequest, b: ReviewRequest) =>
    a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
  const openIds = new Set(open.map((r) => r.id));
  return [
    ...[...open].sort(newestFirst),
    ...other.filter((r) => r.state !== ReviewState.OPEN && !openIds.has(r.id)).sort(newestFirst),
  ];
}
