"use client";

import { useQuery } from "@connectrpc/connect-query";
import { ConfigService, type RouteConfiguration } from "@switchyard/proto/switchyard/v1/config_pb";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import Link from "next/link";
import { useMemo } from "react";
import { RouteIcon } from "@/components/ui/icons";
import { routeConfigNames } from "@/lib/listener-form";
import { ConfigEditor } from "./config-editor";
import { ConfigList, deleteColumn, linkChip, nameColumn, updatedColumn } from "./config-list";
import { clusterHref, listenerHref, routeConfigHref, useRouteConfigKind } from "./kinds";
import { Loaded } from "./loaded";
import { RouteConfigFields } from "./route-fields";
import { Chip } from "./states";
import { useConfigClient } from "./use-config-client";

/** The clusters a route configuration sends traffic to, each once. */
function clustersOf(rc: RouteConfiguration): string[] {
  const names = rc.virtualHosts.flatMap((vh) =>
    vh.routes.flatMap((r) => [
      ...(r.cluster ? [r.cluster] : []),
      ...r.weightedClusters.map((w) => w.name),
    ]),
  );
  return [...new Set(names)];
}

export function RouteConfigList() {
  const query = useQuery(ConfigService.method.listRouteConfigurations, {});
  const listeners = useQuery(ConfigService.method.listListeners, {});
  const clusters = useQuery(ConfigService.method.listClusters, {});
  const client = useConfigClient();
  const usedBy = useMemo(() => {
    const map = new Map<string, string[]>();
    for (const l of listeners.data?.listeners ?? []) {
      for (const rc of routeConfigNames(l)) map.set(rc, [...(map.get(rc) ?? []), l.name]);
    }
    return map;
  }, [listeners.data]);
  const known = useMemo(
    () => new Set((clusters.data?.clusters ?? []).map((c) => c.name)),
    [clusters.data],
  );

  const columns = useMemo<ColumnDef<RouteConfiguration, unknown>[]>(
    () => [
      nameColumn<RouteConfiguration>(routeConfigHref),
      {
        id: "domains",
        header: "Domains",
        accessorFn: (rc) => rc.virtualHosts.flatMap((vh) => vh.domains).join(", "),
        cell: ({ getValue }) => <span className="font-mono text-xs">{String(getValue())}</span>,
      },
      {
        id: "routes",
        header: "Routes",
        accessorFn: (rc) => rc.virtualHosts.reduce((n, vh) => n + vh.routes.length, 0),
        cell: ({ getValue }) => <span className="tabular-nums">{String(getValue())}</span>,
      },
      {
        id: "clusters",
        header: "Clusters",
        enableSorting: false,
        cell: ({ row }) => (
          <span className="flex flex-wrap gap-1">
            {clustersOf(row.original).map((name) =>
              known.has(name) || !clusters.data ? (
                <Link key={name} href={clusterHref(name)} className={linkChip}>
                  {name}
                </Link>
              ) : (
                <span key={name} title="Not in the draft" className="inline-flex">
                  <Chip tone="warning">{name} (missing)</Chip>
                </span>
              ),
            )}
          </span>
        ),
      },
      {
        id: "listeners",
        header: "Used by",
        enableSorting: false,
        cell: ({ row }) => {
          const names = usedBy.get(row.original.name) ?? [];
          return names.length === 0 ? (
            <span className="text-fg-subtle">no listener</span>
          ) : (
            <span className="flex flex-wrap gap-1">
              {names.map((n) => (
                <Link key={n} href={listenerHref(n)} className={linkChip}>
                  {n}
                </Link>
              ))}
            </span>
          );
        },
      },
      updatedColumn<RouteConfiguration>(),
      deleteColumn<RouteConfiguration>({
        label: "route configuration",
        remove: (name) => client.deleteRouteConfiguration({ name }),
        consequence: "Listeners that serve it will fail validation until they are changed.",
      }),
    ],
    [client, known, usedBy, clusters.data],
  );

  return (
    <ConfigList
      query={query}
      rowsOf={(data) => data.routeConfigurations}
      title="Routes"
      description="Route configurations: virtual hosts and the ordered routes that send requests to clusters."
      newHref={"/routes/new" as Route}
      newLabel="New route configuration"
      what="route configurations"
      empty={{
        icon: <RouteIcon className="size-5" />,
        title: "No route configurations yet",
        action: "Create a route configuration",
        children:
          "A route configuration maps hosts and paths to clusters. Create one, then serve it from a listener.",
      }}
      table={{
        caption: "Route configurations",
        columns,
        searchPlaceholder: "Search by name, domain or cluster…",
        searchText: (rc) =>
          [rc.name, ...rc.virtualHosts.flatMap((vh) => vh.domains), ...clustersOf(rc)].join(" "),
      }}
    />
  );
}

function useClusterNames(): string[] {
  const query = useQuery(ConfigService.method.listClusters, {});
  return useMemo(() => (query.data?.clusters ?? []).map((c) => c.name), [query.data]);
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
  return (
    <Loaded
      query={query}
      what="route configuration"
      listHref={kind.listHref}
      listLabel={kind.listLabel}
    >
      {(rc: RouteConfiguration) => (
        <ConfigEditor key={rc.name} kind={kind} original={rc}>
          <RouteConfigFields editing clusterNames={clusterNames} />
        </ConfigEditor>
      )}
    </Loaded>
  );
}
