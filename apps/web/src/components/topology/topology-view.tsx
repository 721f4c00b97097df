"use client";

import { useQuery } from "@connectrpc/connect-query";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import Link from "next/link";
import { type ReactNode, useMemo } from "react";
import { Button, buttonClass } from "@/components/ui/button";
import { ChevronRightIcon, NetworkIcon, RefreshIcon } from "@/components/ui/icons";
import { EmptyState, LoadError, LoadingBlock, PageHeader } from "@/components/ui/page-states";
import { buildTopology, type TopologyKind } from "@/lib/topology";
import { kindTitles, TopologyGraph } from "./topology-graph";

const columns: readonly TopologyKind[] = [
  "listener",
  "route-configuration",
  "virtual-host",
  "cluster",
  "endpoint",
];

/**
 * The Topology page: the draft's listeners, route configurations, virtual hosts, clusters and
 * endpoints as one graph, each node a link to its object.
 */
export function TopologyView() {
  const listeners = useQuery(ConfigService.method.listListeners, {});
  const routes = useQuery(ConfigService.method.listRouteConfigurations, {});
  const clusters = useQuery(ConfigService.method.listClusters, {});
  const queries = [listeners, routes, clusters];
  const failed = queries.find((q) => q.error && !q.data);
  const refreshing = queries.some((q) => q.isFetching);
  const refetch = () => {
    for (const q of queries) void q.refetch();
  };

  const topology = useMemo(
    () =>
      listeners.data && routes.data && clusters.data
        ? buildTopology({
            listeners: listeners.data.listeners,
            routeConfigurations: routes.data.routeConfigurations,
            clusters: clusters.data.clusters,
          })
        : undefined,
    [listeners.data, routes.data, clusters.data],
  );

  let body: ReactNode;
  if (failed?.error) {
    body = (
      <LoadError
        what="the topology"
        procedure="switchyard.v1.ConfigService/List*"
        error={failed.error}
        retrying={refreshing}
        onRetry={refetch}
      />
    );
  } else if (!topology) {
    body = <LoadingBlock label="Loading listeners, routes and clusters…" rows={5} />;
  } else if (topology.nodes.length === 0) {
    body = (
      <EmptyState
        icon={<NetworkIcon className="size-5" />}
        title="Nothing to draw yet"
        actions={
          <Link href={"/import" as Route} className={buttonClass("primary")}>
            Import Envoy YAML
          </Link>
        }
      >
        The topology shows how traffic flows from listeners through routes to clusters and their
        endpoints. Create a listener, a route configuration or a cluster, or import an existing
        Envoy configuration.
      </EmptyState>
    );
  } else {
    body = (
      <>
        <ol
          aria-label="Columns, left to right"
          className="flex flex-wrap items-center gap-1.5 text-xs text-fg-muted"
        >
          {columns.map((kind, i) => (
            <li key={kind} className="flex items-center gap-1.5">
              {i > 0 && <ChevronRightIcon className="size-3.5 text-fg-subtle" />}
              {kindTitles[kind]}s
            </li>
          ))}
          <li className="ml-auto text-fg-subtle">
            Click a node to open it · scroll to zoom · drag to pan
          </li>
        </ol>
        <TopologyGraph topology={topology} />
      </>
    );
  }

  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title="Topology"
        description="How traffic flows through the draft configuration, from listeners to endpoints."
        actions={
          <Button onClick={refetch} disabled={refreshing}>
            <RefreshIcon className={`size-4 ${refreshing ? "motion-safe:animate-spin" : ""}`} />
            Refresh
          </Button>
        }
      />
      {body}
    </div>
  );
}
