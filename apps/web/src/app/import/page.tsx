import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/page-states";
import { ExportPanel } from "./export-panel";
import { ImportPanel } from "./import-panel";

export const metadata: Metadata = { title: "Import / export" };

export default function ImportPage() {
  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Import / export"
        description="Bring existing Envoy configuration into the draft, or take Switchyard’s out."
      />
      <ImportPanel />
      <ExportPanel />
    </div>
  );
}
