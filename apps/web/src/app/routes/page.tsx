import type { Metadata } from "next";
import { RouteConfigList } from "@/components/config/route-config-list";

export const metadata: Metadata = { title: "Routes" };

export default function RoutesPage() {
  return <RouteConfigList />;
}
