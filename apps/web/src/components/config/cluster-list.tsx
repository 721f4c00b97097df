"use client";

import { useQuery } from "@connectrpc/connect-query";
import {
  type Cluster,
  ConfigService,
  DiscoveryType,
  LbPolicy,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { formatAddress } from "@switchyard/snapshot/address";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import { useMemo } from "react";
import { ServerIcon } from "@/components/ui/icons";
import { http2Source, isTlsSocket } from "@/lib/envoy-facts";
import { endpointCount } from "@/lib/object-facts";
import { ConfigList, deleteColumn, nameColumn, updatedColumn } from "./config-list";
import { clusterHref } from "./hrefs";
import { Chip } from "./states";
import { useConfigClient } from "./use-config-client";

/*
 * The Clusters list, apart from the editors (cluster-pages.tsx): a list page loads no form code.
 */

const enumLabel = (values: Record<number, string>, v: number) =>
  (values[v] ?? "").toLowerCase().replace(/_/g, " ");

export function ClusterList() {
  const query = useQuery(ConfigService.method.listClusters, {});
  const client = useConfigClient();
  const columns = useMemo<ColumnDef<Cluster, unknown>[]>(
    () => [
      nameColumn<Cluster>(clusterHref),
      {
        id: "discovery",
        header: "Discovery",
        accessorFn: (c) => enumLabel(DiscoveryType, c.discoveryType),
        cell: ({ getValue }) => <Chip>{String(getValue())}</Chip>,
      },
      {
        id: "lb",
        header: "LB policy",
        accessorFn: (c) => enumLabel(LbPolicy, c.lbPolicy),
      },
      {
        id: "endpoints",
        header: "Endpoints",
        accessorFn: endpointCount,
        cell: ({ row }) => {
          const n = endpointCount(row.original);
          return n === 0 ? (
            <Chip tone="warning">none</Chip>
          ) : (
            <span className="tabular-nums">
              {n} in {row.original.localities.length}{" "}
              {row.original.localities.length === 1 ? "locality" : "localities"}
            </span>
          );
        },
      },
      {
        id: "features",
        header: "Features",
        enableSorting: false,
        cell: ({ row }) => {
          const c = row.original;
          return (
            <span className="flex flex-wrap gap-1">
              {http2Source(c) !== undefined && <Chip>HTTP/2</Chip>}
              {c.reportLoad && <Chip>load reported</Chip>}
              {(c.tlsSecretName || isTlsSocket(c.extra?.transportSocket)) && <Chip>TLS</Chip>}
              {c.healthChecks.length > 0 && <Chip>health checks</Chip>}
              {c.outlierDetection && <Chip>outlier detection</Chip>}
            </span>
          );
        },
      },
      updatedColumn<Cluster>(),
      deleteColumn<Cluster>({
        label: "cluster",
        remove: (name) => client.deleteCluster({ name }),
        consequence: "Routes that send traffic to it will fail validation until they are changed.",
      }),
    ],
    [client],
  );

  return (
    <ConfigList
      creates="cluster"
      query={query}
      rowsOf={(data) => data.clusters}
      title="Clusters"
      description="Upstream services, their endpoints and how Envoy balances load across them."
      newHref={"/clusters/new" as Route}
      newLabel="New cluster"
      what="clusters"
      empty={{
        icon: <ServerIcon className="size-5" />,
        title: "No clusters yet",
        action: "Create a cluster",
        children:
          "A cluster is a group of upstream endpoints that Envoy load-balances across. Create one, then send traffic to it from a route.",
      }}
      table={{
        caption: "Clusters",
        columns,
        searchPlaceholder: "Search by name or endpoint address…",
        searchText: (c) =>
          [
            c.name,
            ...c.localities.flatMap((l) =>
              l.endpoints.map((e) => formatAddress(e.address, e.port)),
            ),
          ].join(" "),
      }}
    />
  );
}
