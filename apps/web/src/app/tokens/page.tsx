import type { Metadata } from "next";
import { Suspense } from "react";
import { TokensView } from "@/components/access/token-pages";
import { LoadingBlock } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "API tokens" };

export default function TokensPage() {
  // An admin may look at another user's tokens (?user=NAME): useSearchParams needs a boundary.
  return (
    <Suspense fallback={<LoadingBlock label="Loading API tokens…" />}>
      <TokensView />
    </Suspense>
  );
}
