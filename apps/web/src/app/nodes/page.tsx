import type { Metadata } from "next";
import { Suspense } from "react";
import { NodesView } from "@/components/nodes/nodes-view";
import { TableSkeleton } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "Nodes" };

export default function NodesPage() {
  // The filters are read from the URL (useSearchParams), which needs a Suspense boundary.
  return (
    <Suspense fallback={<TableSkeleton label="the nodes" />}>
      <NodesView />
    </Suspense>
  );
}
