"use client";

import { useQuery } from "@connectrpc/connect-query";
import {
  ConfigService,
  ResourceKind,
  type RouteConfiguration,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { useMemo } from "react";
import { useWriter } from "@/components/access/use-write-access";
import { routeConfigDeleteAccess } from "@/lib/write-access";
import { ConfigEditor } from "./config-editor";
import { Loaded } from "./loaded";
import { useRouteConfigKind } from "./route-config-kind";
import { RouteConfigFields } from "./route-fields";

/** The clusters' names, for the cluster fields' suggestions: summaries, not whole clusters. */
function useClusterNames(): string[] {
  const query = useQuery(ConfigService.method.listResources, { kind: ResourceKind.CLUSTER });
  return useMemo(() => (query.data?.resources ?? []).map((c) => c.name), [query.data]);
}

export function NewRouteConfig() {
  const kind = useRouteConfigKind();
  const clusterNames = useClusterNames();
  return (
    <ConfigEditor
      kind={kind}
      original={undefined}
      description="Saved to the draft; it goes live when the draft is published."
    >
      <RouteConfigFields editing={false} clusterNames={clusterNames} />
    </ConfigEditor>
  );
}

export function EditRouteConfig({ name }: { name: string }) {
  const kind = useRouteConfigKind();
  const clusterNames = useClusterNames();
  const query = useQuery(ConfigService.method.getRouteConfiguration, { name }, { staleTime: 0 });
  const writer = useWriter();
  return (
    <Loaded
      query={query}
      what="route configuration"
      listHref={kind.listHref}
      listLabel={kind.listLabel}
    >
      {(rc: RouteConfiguration) => (
        <ConfigEditor
          key={rc.name}
          kind={kind}
          original={rc}
          deleteAccess={(stored) => routeConfigDeleteAccess(writer, stored.virtualHosts)}
        >
          <RouteConfigFields editing clusterNames={clusterNames} />
        </ConfigEditor>
      )}
    </Loaded>
  );
}
