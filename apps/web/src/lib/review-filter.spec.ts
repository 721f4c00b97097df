import { create } from "@bufbuild/protobuf";
import { ReviewRequestSchema, ReviewState } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import {
  mergeReviews,
  NO_REVIEW_FILTER,
  OPEN_REVIEWS,
  RECENT_REVIEWS,
  reviewFilterFromParams,
  reviewHref,
  reviewLists,
  searchOfReviewFilter,
} from "./review-filter";

const parse = (search: string) => reviewFilterFromParams(new URLSearchParams(search));
const review = (id: number, state: ReviewState) =>
  create(ReviewRequestSchema, { id: BigInt(id), state });

describe("the Reviews page's view in the URL", () => {
  it("no parameter is the default view, and the default view writes no parameter", () => {
    expect(parse("")).toEqual(NO_REVIEW_FILTER);
    expect(searchOfReviewFilter(NO_REVIEW_FILTER)).toBe("");
  });

  it("reads a state and an id back as they were written", () => {
    const filter = { state: "rejected", id: 12n } as const;
    expect(searchOfReviewFilter(filter)).toBe("?state=rejected&id=12");
    expect(parse(searchOfReviewFilter(filter))).toEqual(filter);
    expect(reviewHref(7n)).toBe("/reviews?id=7");
  });

  it("an unknown state or a malformed id (an edited URL) is no filter", () => {
    expect(parse("?state=pending&id=abc")).toEqual(NO_REVIEW_FILTER);
    expect(parse("?id=0")).toEqual(NO_REVIEW_FILTER);
    expect(parse("?id=-3")).toEqual(NO_REVIEW_FILTER);
    expect(parse("?state=OPEN").state).toBe("open");
  });
});

describe("the calls a view makes", () => {
  it("the default view asks for every open request and the newest of any state", () => {
    expect(reviewLists(undefined)).toEqual({ open: OPEN_REVIEWS, other: RECENT_REVIEWS });
  });

  it("the open view asks for the open requests only, the same call the sidebar's count makes", () => {
    expect(reviewLists("open")).toEqual({ open: OPEN_REVIEWS, other: undefined });
  });

  it("a closed state's view asks for that state only", () => {
    expect(reviewLists("withdrawn")).toEqual({
      open: undefined,
      other: { states: [ReviewState.WITHDRAWN], limit: 100 },
    });
  });
});

describe("mergeReviews", () => {
  it("lists the open requests first, then the others, each newest first", () => {
    const merged = mergeReviews(
      [review(3, ReviewState.OPEN), review(9, ReviewState.OPEN)],
      [review(8, ReviewState.REJECTED), review(10, ReviewState.APPROVED)],
    );
    expect(merged.map((r) => Number(r.id))).toEqual([9, 3, 10, 8]);
  });

  it("shows an open request once, even when both lists hold it", () => {
    const merged = mergeReviews(
      [review(5, ReviewState.OPEN)],
      [review(6, ReviewState.WITHDRAWN), review(5, ReviewState.OPEN)],
    );
    expect(merged.map((r) => Number(r.id))).toEqual([5, 6]);
  });
});
