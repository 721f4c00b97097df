import type { Metadata } from "next";
import { RolloutsView } from "@/components/rollouts/rollouts-view";
import { BrowserOnly } from "@/components/ui/browser-only";
import { LoadingBlock } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "Rollouts" };

export default function RolloutsPage() {
  // The rollout shown is read from the URL (useSearchParams): drawn in the browser.
  return (
    <BrowserOnly fallback={<LoadingBlock label="Loading the rollout…" rows={6} />}>
      <RolloutsView />
    </BrowserOnly>
  );
}
