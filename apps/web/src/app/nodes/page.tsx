import type { Metadata } from "next";
import { Suspense } from "react";
import { TableSkeleton } from "@/components/config/states";
import { NodesView } from "@/components/nodes/nodes-view";

export const metadata: Metadata = { title: "Nodes" };

export default function NodesPage() {
  // The filters are read from the URL (useSearchParams), which needs a Suspense boundary.
  return (
    <Suspense fallback={<TableSkeleton label="the nodes" />}>
      <NodesView />
    </Suspense>
  );
}
