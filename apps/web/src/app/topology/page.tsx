import type { Metadata } from "next";
import { TopologyView } from "@/components/topology/topology-view";
import { BrowserOnly } from "@/components/ui/browser-only";
import { LoadingBlock } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "Topology" };

export default function TopologyPage() {
  // The focus is read from the URL (useSearchParams): drawn in the browser.
  return (
    <BrowserOnly
      fallback={<LoadingBlock label="Loading listeners, routes and clusters…" rows={5} />}
    >
      <TopologyView />
    </BrowserOnly>
  );
}
