"use client";

import { useQuery } from "@connectrpc/connect-query";
import { type Cluster, ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { ClusterFields } from "./cluster-fields";
import { useClusterKind } from "./cluster-kind";
import { ConfigEditor } from "./config-editor";
import { Loaded } from "./loaded";

export function NewCluster() {
  const kind = useClusterKind();
  return (
    <ConfigEditor
      kind={kind}
      original={undefined}
      description="Saved to the draft; it goes live when the draft is published."
    >
      <ClusterFields editing={false} />
    </ConfigEditor>
  );
}

export function EditCluster({ name }: { name: string }) {
  const kind = useClusterKind();
  const query = useQuery(ConfigService.method.getCluster, { name }, { staleTime: 0 });
  return (
    <Loaded query={query} what="cluster" listHref={kind.listHref} listLabel={kind.listLabel}>
      {(cluster: Cluster) => (
        <ConfigEditor key={cluster.name} kind={kind} original={cluster}>
          <ClusterFields editing stored={cluster} />
        </ConfigEditor>
      )}
    </Loaded>
  );
}
