import type { Metadata } from "next";
import { NewRouteConfig } from "@/components/config/route-config-pages";

export const metadata: Metadata = { title: "New route configuration" };

export default function NewRouteConfigPage() {
  return <NewRouteConfig />;
}
