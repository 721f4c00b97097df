import type { Metadata } from "next";
import { RouteTester } from "@/components/routing/route-tester";

export const metadata: Metadata = { title: "Route tester" };

export default function RouteTesterPage() {
  return <RouteTester />;
}
