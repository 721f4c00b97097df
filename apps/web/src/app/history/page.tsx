import type { Metadata } from "next";
import { HistoryView } from "@/components/history/history-view";
import { BrowserOnly } from "@/components/ui/browser-only";
import { LoadingBlock } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "History" };

export default function HistoryPage() {
  // The selected version is read from the URL (useSearchParams): drawn in the browser.
  return (
    <BrowserOnly fallback={<LoadingBlock label="Loading the published versions…" rows={6} />}>
      <HistoryView />
    </BrowserOnly>
  );
}
