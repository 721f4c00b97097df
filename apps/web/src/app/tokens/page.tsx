import type { Metadata } from "next";
import { TokensView } from "@/components/access/token-pages";
import { BrowserOnly } from "@/components/ui/browser-only";
import { LoadingBlock } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "API tokens" };

export default function TokensPage() {
  // An admin may look at another user's tokens (?user=NAME, useSearchParams): drawn in the browser.
  return (
    <BrowserOnly fallback={<LoadingBlock label="Loading API tokens…" />}>
      <TokensView />
    </BrowserOnly>
  );
}
