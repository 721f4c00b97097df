import type { Metadata } from "next";
import { NewNodeGroup } from "@/components/config/node-group-pages";

export const metadata: Metadata = { title: "New node group" };

export default function NewNodeGroupPage() {
  return <NewNodeGroup />;
}
