import type { Metadata } from "next";
import { Suspense } from "react";
import { HistoryView } from "@/components/history/history-view";
import { LoadingBlock } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "History" };

export default function HistoryPage() {
  // The selected version is read from the URL (useSearchParams), which needs a Suspense boundary.
  return (
    <Suspense fallback={<LoadingBlock label="Loading the published versions…" rows={6} />}>
      <HistoryView />
    </Suspense>
  );
}
