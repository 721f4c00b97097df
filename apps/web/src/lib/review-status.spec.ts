import { create } from "@bufbuild/protobuf";
import { ReviewRequestSchema, ReviewState } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import { approvalBlocked, ownReviews, reviewStatus } from "./review-status";

const review = (id: number, requester: string, state: ReviewState, current = false) =>
  create(ReviewRequestSchema, { id: BigInt(id), requester, state, current });

describe("reviewStatus", () => {
  it("an open request still current is Open; one whose draft or base changed is Out of date", () => {
    expect(reviewStatus({ state: ReviewState.OPEN, current: true }).label).toBe("Open");
    expect(reviewStatus({ state: ReviewState.OPEN, current: false })).toEqual({
      label: "Out of date",
      tone: "danger",
    });
  });

  it("a closed request reads as its outcome", () => {
    expect(reviewStatus({ state: ReviewState.APPROVED, current: false }).label).toBe("Approved");
    expect(reviewStatus({ state: ReviewState.REJECTED, current: false }).label).toBe("Rejected");
    expect(reviewStatus({ state: ReviewState.WITHDRAWN, current: false }).label).toBe("Withdrawn");
  });
});

describe("approvalBlocked", () => {
  it("an open, current request can be approved", () => {
    expect(approvalBlocked(review(1, "sam", ReviewState.OPEN, true))).toBeUndefined();
  });

  it("an out-of-date request cannot, and the reason says who asks again", () => {
    expect(approvalBlocked(review(1, "sam", ReviewState.OPEN, false))).toMatch(
      /^Out of date: .* Ask sam to review the draft and request again, or reject it\.$/,
    );
  });

  it("a closed request cannot", () => {
    expect(approvalBlocked(review(1, "sam", ReviewState.REJECTED))).toBe(
      "Only an open request can be approved.",
    );
  });
});

describe("ownReviews", () => {
  it("shows the caller's open request, not another requester's", () => {
    const open = [review(4, "kim", ReviewState.OPEN, true), review(3, "sam", ReviewState.OPEN)];
    expect(ownReviews(open, [], "sam").open?.id).toBe(3n);
    expect(ownReviews(open, [], "lee")).toEqual({ open: undefined, rejected: undefined });
  });

  it("with no open request, shows the caller's newest request when it was rejected", () => {
    const recent = [
      review(9, "kim", ReviewState.APPROVED),
      review(8, "sam", ReviewState.REJECTED),
      review(7, "sam", ReviewState.APPROVED),
    ];
    expect(ownReviews([], recent, "sam").rejected?.id).toBe(8n);
  });

  it("an older rejection is not shown once a newer request of theirs was decided otherwise", () => {
    const recent = [
      review(8, "sam", ReviewState.WITHDRAWN),
      review(7, "sam", ReviewState.REJECTED),
    ];
    expect(ownReviews([], recent, "sam").rejected).toBeUndefined();
  });

  it("shows nothing while the caller is unknown", () => {
    expect(ownReviews([review(1, "sam", ReviewState.OPEN)], [], undefined).open).toBeUndefined();
  });
});
