import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditView } from "@/components/access/audit-view";
import { LoadingBlock } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "Audit log" };

export default function AuditPage() {
  // The filters and page are read from the URL (useSearchParams), which needs a boundary.
  return (
    <Suspense fallback={<LoadingBlock label="Loading the audit log…" rows={6} />}>
      <AuditView />
    </Suspense>
  );
}
