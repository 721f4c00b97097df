import type { Metadata } from "next";
import { EditCluster } from "@/components/config/cluster-pages";
import { routeParam } from "@/lib/route-param";

export async function generateMetadata({
  params,
}: PageProps<"/clusters/[name]">): Promise<Metadata> {
  return { title: `Cluster ${routeParam((await params).name)}` };
}

export default async function ClusterPage({ params }: PageProps<"/clusters/[name]">) {
  return <EditCluster name={routeParam((await params).name)} />;
}
