import type { Metadata } from "next";
import { RuntimeLayerList } from "@/components/config/runtime-pages";

export const metadata: Metadata = { title: "Runtime" };

export default function RuntimePage() {
  return <RuntimeLayerList />;
}
