import type { Metadata } from "next";
import { Suspense } from "react";
import { TopologyView } from "@/components/topology/topology-view";
import { LoadingBlock } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "Topology" };

export default function TopologyPage() {
  // The focus is read from the URL (useSearchParams), which needs a Suspense boundary.
  return (
    <Suspense fallback={<LoadingBlock label="Loading listeners, routes and clusters…" rows={5} />}>
      <TopologyView />
    </Suspense>
  );
}
