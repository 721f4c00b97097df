import type { Metadata } from "next";
import { Suspense } from "react";
import { ReviewsView } from "@/components/reviews/reviews-view";
import { LoadingBlock } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "Reviews" };

export default function ReviewsPage() {
  // The state filter and the selected request are read from the URL (useSearchParams), which
  // needs a Suspense boundary.
  return (
    <Suspense fallback={<LoadingBlock label="Loading the review requests…" rows={6} />}>
      <ReviewsView />
    </Suspense>
  );
}
