import type { Metadata } from "next";
import { NewRuntimeLayer } from "@/components/config/runtime-pages";

export const metadata: Metadata = { title: "New runtime layer" };

export default function NewRuntimeLayerPage() {
  return <NewRuntimeLayer />;
}
