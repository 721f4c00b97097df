import type { Metadata } from "next";
import { Suspense } from "react";
import { NewListener } from "@/components/config/listener-pages";
import { EditorSkeleton } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "New listener" };

export default function NewListenerPage() {
  // useSearchParams needs a Suspense boundary to prerender the page.
  return (
    <Suspense fallback={<EditorSkeleton label="the form" />}>
      <NewListener />
    </Suspense>
  );
}
