"use client";

import { timestampDate } from "@bufbuild/protobuf/wkt";
import { useQuery } from "@connectrpc/connect-query";
import {
  type Cluster,
  ConfigService,
  DiscoveryType,
  LbPolicy,
} from "@switchyard/proto/switchyard/v1/config_pb";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import Link from "next/link";
import { useMemo } from "react";
import { ServerIcon } from "@/components/ui/icons";
import { RelativeTime } from "@/components/ui/relative-time";
import { endpointCount } from "@/lib/cluster-form";
import { ClusterFields } from "./cluster-fields";
import { ConfigEditor } from "./config-editor";
import { ConfigTable } from "./config-table";
import { DeleteRowButton } from "./delete-row-button";
import { clusterHref, useClusterKind } from "./kinds";
import { Loaded } from "./loaded";
import { Chip, EmptyState, LoadError, PageHeader, TableSkeleton } from "./states";
import { useConfigClient } from "./use-config-client";

const newHref = "/clusters/new" as Route;

export const primaryLink =
  "inline-flex h-8 items-center justify-center gap-2 rounded-md bg-accent px-3 text-sm font-medium text-accent-fg shadow-xs transition-colors hover:bg-accent/90";

const enumLabel = (values: Record<number, string>, v: number) =>
  (values[v] ?? "").toLowerCase().replace(/_/g, " ");

export function ClusterList() {
  const query = useQuery(ConfigService.method.listClusters, {});
  const client = useConfigClient();
  const columns = useMemo<ColumnDef<Cluster, unknown>[]>(
    () => [
      {
        id: "name",
        header: "Name",
        accessorFn: (c) => c.name,
        cell: ({ row }) => (
          <Link
            href={clusterHref(row.original.name)}
            className="font-mono text-[13px] text-fg hover:text-accent hover:underline"
          >
            {row.original.name}
          </Link>
        ),
      },
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
              {c.http2 && <Chip>HTTP/2</Chip>}
              {c.tlsSecretName && <Chip>TLS</Chip>}
              {c.healthChecks.length > 0 && <Chip>health checks</Chip>}
              {c.outlierDetection && <Chip>outlier detection</Chip>}
            </span>
          );
        },
      },
      {
        id: "updated",
        header: "Updated",
        accessorFn: (c) => (c.updateTime ? Number(c.updateTime.seconds) : 0),
        cell: ({ row }) =>
          row.original.updateTime ? (
            <RelativeTime date={timestampDate(row.original.updateTime)} />
          ) : null,
      },
      {
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        enableSorting: false,
        cell: ({ row }) => (
          <div className="flex justify-end gap-1">
            <DeleteRowButton
              label="cluster"
              name={row.original.name}
              remove={(name) => client.deleteCluster({ name })}
              consequence="Routes that send traffic to it will fail validation until they are changed."
            />
          </div>
        ),
      },
    ],
    [client],
  );

  let body: React.ReactNode;
  if (query.data) {
    body =
      query.data.clusters.length === 0 ? (
        <EmptyState
          icon={<ServerIcon className="size-5" />}
          title="No clusters yet"
          action={
            <Link href={newHref} className={primaryLink}>
              Create a cluster
            </Link>
          }
        >
          A cluster is a group of upstream endpoints that Envoy load-balances across. Create one,
          then send traffic to it from a route.
        </EmptyState>
      ) : (
        <ConfigTable
          caption="Clusters"
          data={query.data.clusters}
          columns={columns}
          searchPlaceholder="Search by name or endpoint address…"
          searchText={(c) =>
            [
              c.name,
              ...c.localities.flatMap((l) => l.endpoints.map((e) => `${e.address}:${e.port}`)),
            ].join(" ")
          }
        />
      );
  } else if (query.error) {
    body = (
      <LoadError
        what="clusters"
        error={query.error}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
      />
    );
  } else {
    body = <TableSkeleton label="clusters" />;
  }

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Clusters"
        description="Upstream services, their endpoints and how Envoy balances load across them."
        actions={
          <Link href={newHref} className={primaryLink}>
            New cluster
          </Link>
        }
      />
      {body}
    </div>
  );
}

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
          <ClusterFields editing />
        </ConfigEditor>
      )}
    </Loaded>
  );
}
