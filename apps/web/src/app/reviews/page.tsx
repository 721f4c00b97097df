import type { Metadata } from "next";
import { ReviewsView } from "@/components/reviews/reviews-view";
import { BrowserOnly } from "@/components/ui/browser-only";
import { LoadingBlock } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "Reviews" };

export default function ReviewsPage() {
  // The state filter and the selected request are read from the URL (useSearchParams): drawn in
  // the browser.
  return (
    <BrowserOnly fallback={<LoadingBlock label="Loading the review requests…" rows={6} />}>
      <ReviewsView />
    </BrowserOnly>
  );
}
