import { ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Metadata } from "next";
import { EditCluster } from "@/components/config/cluster-pages";
import { ObjectViews } from "@/components/config/object-views";
import { routeParam } from "@/lib/route-param";

export async function generateMetadata({
  params,
}: PageProps<"/clusters/[name]">): Promise<Metadata> {
  return { title: `Cluster ${routeParam((await params).name)}` };
}

export default async function ClusterPage({ params }: PageProps<"/clusters/[name]">) {
  const name = routeParam((await params).name);
  return (
    <ObjectViews
      kind={ResourceKind.CLUSTER}
      label="cluster"
      name={name}
      form={<EditCluster name={name} />}
    />
  );
}
