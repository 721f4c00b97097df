import { ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import { LoadBreakdown } from "@switchyard/proto/switchyard/v1/status_pb";
import type { Metadata } from "next";
import { EditCluster } from "@/components/config/cluster-pages";
import { ObjectViews } from "@/components/config/object-views";
import { LoadPanel } from "@/components/load/load-panel";
import { routeParam } from "@/lib/route-param";

export async function generateMetadata({
  params,
}: PageProps<"/clusters/[name]">): Promise<Metadata> {
  return { title: `Cluster ${routeParam((await params).name)}` };
}

export default async function ClusterPage({ params }: PageProps<"/clusters/[name]">) {
  const name = routeParam((await params).name);
  return (
    <div className="flex flex-col gap-6">
      <ObjectViews
        kind={ResourceKind.CLUSTER}
        label="cluster"
        name={name}
        form={<EditCluster name={name} />}
      />
      <LoadPanel
        id="cluster-traffic-title"
        title="Traffic"
        cluster={name}
        breakdowns={[LoadBreakdown.LOCALITY, LoadBreakdown.ENDPOINT, LoadBreakdown.NODE]}
        empty="No load reported for this cluster in the last 5 minutes. With Report load on, the proxies that use it report its requests and errors here."
      />
    </div>
  );
}
