import type { Metadata } from "next";
import { NodeGroupList } from "@/components/config/node-group-pages";

export const metadata: Metadata = { title: "Node groups" };

export default function NodeGroupsPage() {
  return <NodeGroupList />;
}
