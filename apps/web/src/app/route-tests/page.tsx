import type { Metadata } from "next";
import { RouteTestsView } from "@/components/routing/route-tests-view";

export const metadata: Metadata = { title: "Route tests" };

export default function RouteTestsPage() {
  return <RouteTestsView />;
}
