import type { Metadata } from "next";
import { ClusterList } from "@/components/config/cluster-list";

export const metadata: Metadata = { title: "Clusters" };

export default function ClustersPage() {
  return <ClusterList />;
}
