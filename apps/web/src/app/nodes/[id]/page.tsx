import type { Metadata } from "next";
import { NodeDetailView } from "@/components/nodes/node-detail-view";
import { routeParam } from "@/lib/route-param";

export async function generateMetadata({ params }: PageProps<"/nodes/[id]">): Promise<Metadata> {
  return { title: `Node ${routeParam((await params).id)}` };
}

export default async function NodePage({ params }: PageProps<"/nodes/[id]">) {
  return <NodeDetailView id={routeParam((await params).id)} />;
}
