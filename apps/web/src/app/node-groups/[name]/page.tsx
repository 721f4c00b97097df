import type { Metadata } from "next";
import { EditNodeGroup } from "@/components/config/node-group-pages";
import { routeParam } from "@/lib/route-param";

export async function generateMetadata({
  params,
}: PageProps<"/node-groups/[name]">): Promise<Metadata> {
  return { title: `Node group ${routeParam((await params).name)}` };
}

export default async function NodeGroupPage({ params }: PageProps<"/node-groups/[name]">) {
  return <EditNodeGroup name={routeParam((await params).name)} />;
}
