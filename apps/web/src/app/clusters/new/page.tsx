import type { Metadata } from "next";
import { NewCluster } from "@/components/config/cluster-pages";

export const metadata: Metadata = { title: "New cluster" };

export default function NewClusterPage() {
  return <NewCluster />;
}
