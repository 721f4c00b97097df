import type { Metadata } from "next";
import { NewListener } from "@/components/config/listener-pages";
import { BrowserOnly } from "@/components/ui/browser-only";
import { EditorSkeleton } from "@/components/ui/page-states";

export const metadata: Metadata = { title: "New listener" };

export default function NewListenerPage() {
  // The route configuration to start from (?routes=) is read from the URL (useSearchParams):
  // drawn in the browser.
  return (
    <BrowserOnly fallback={<EditorSkeleton label="the form" />}>
      <NewListener />
    </BrowserOnly>
  );
}
