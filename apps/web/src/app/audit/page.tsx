import type { Metadata } from "next";
import { AuditView } from "@/components/access/audit-view";
import { BrowserOnly } from "@/components/ui/browser-only";
import { LoadingBlock } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "Audit log" };

export default function AuditPage() {
  // The filters and page are read from the URL (useSearchParams): drawn in the browser.
  return (
    <BrowserOnly fallback={<LoadingBlock label="Loading the audit log…" rows={6} />}>
      <AuditView />
    </BrowserOnly>
  );
}
