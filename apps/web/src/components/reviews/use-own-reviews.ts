"use client";

import { skipToken, useQuery } from "@connectrpc/connect-query";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { OPEN_REVIEWS, RECENT_REVIEWS } from "@/lib/review-filter";
import { ownReviews } from "@/lib/review-status";

/**
 * The signed-in member's own review requests, as the Changes page shows them (lib/review-status.ts,
 * ownReviews): the same calls as the Reviews page's default view, so they share its cache.
 * Nothing is asked unless `enabled` (a member whose team requires review).
 */
export function useOwnReviews(username: string | undefined, enabled: boolean) {
  const open = useQuery(
    ConfigService.method.listReviewRequests,
    enabled ? OPEN_REVIEWS : skipToken,
  );
  const recent = useQuery(
    ConfigService.method.listReviewRequests,
    enabled ? RECENT_REVIEWS : skipToken,
  );
  return ownReviews(open.data?.requests ?? [], recent.data?.requests ?? [], username);
}
