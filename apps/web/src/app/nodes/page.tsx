import type { Metadata } from "next";
import { NodesView } from "@/components/nodes/nodes-view";
import { BrowserOnly } from "@/components/ui/browser-only";
import { TableSkeleton } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "Nodes" };

export default function NodesPage() {
  // The filters are read from the URL (useSearchParams): drawn in the browser.
  return (
    <BrowserOnly fallback={<TableSkeleton label="the nodes" />}>
      <NodesView />
    </BrowserOnly>
  );
}
