"use client";

import { timestampDate } from "@bufbuild/protobuf/wkt";
import { useQuery } from "@connectrpc/connect-query";
import { ConfigService, type RouteConfiguration } from "@switchyard/proto/switchyard/v1/config_pb";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import Link from "next/link";
import { type ReactNode, useMemo } from "react";
import { RouteIcon } from "@/components/ui/icons";
import { RelativeTime } from "@/components/ui/relative-time";
import { routeConfigNames } from "@/lib/listener-form";
import { primaryLink } from "./cluster-pages";
import { ConfigEditor } from "./config-editor";
import { ConfigTable } from "./config-table";
import { DeleteRowButton } from "./delete-row-button";
import { clusterHref, listenerHref, routeConfigHref, useRouteConfigKind } from "./kinds";
import { Loaded } from "./loaded";
import { RouteConfigFields } from "./route-fields";
import { Chip, EmptyState, LoadError, PageHeader, TableSkeleton } from "./states";
import { useConfigClient } from "./use-config-client";

const newHref = "/routes/new" as Route;

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

const linkChip =
  "inline-flex items-center rounded-md border bg-surface-muted px-1.5 py-0.5 font-mono text-xs text-fg-muted hover:border-border-strong hover:text-fg";

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
      {
        id: "name",
        header: "Name",
        accessorFn: (rc) => rc.name,
        cell: ({ row }) => (
          <Link
            href={routeConfigHref(row.original.name)}
            className="font-mono text-[13px] text-fg hover:text-accent hover:underline"
          >
            {row.original.name}
          </Link>
        ),
      },
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
      {
        id: "updated",
        header: "Updated",
        accessorFn: (rc) => (rc.updateTime ? Number(rc.updateTime.seconds) : 0),
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
          <div className="flex justify-end">
            <DeleteRowButton
              label="route configuration"
              name={row.original.name}
              remove={(name) => client.deleteRouteConfiguration({ name })}
              consequence="Listeners that serve it will fail validation until they are changed."
            />
          </div>
        ),
      },
    ],
    [client, known, usedBy, clusters.data],
  );

  let body: ReactNode;
  if (query.data) {
    body =
      query.data.routeConfigurations.length === 0 ? (
        <EmptyState
          icon={<RouteIcon className="size-5" />}
          title="No route configurations yet"
          action={
            <Link href={newHref} className={primaryLink}>
              Create a route configuration
            </Link>
          }
        >
          A route configuration maps hosts and paths to clusters. Create one, then serve it from a
          listener.
        </EmptyState>
      ) : (
        <ConfigTable
          caption="Route configurations"
          data={query.data.routeConfigurations}
          columns={columns}
          searchPlaceholder="Search by name, domain or cluster…"
          searchText={(rc) =>
            [rc.name, ...rc.virtualHosts.flatMap((vh) => vh.domains), ...clustersOf(rc)].join(" ")
          }
        />
      );
  } else if (query.error) {
    body = (
      <LoadError
        what="route configurations"
        error={query.error}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
      />
    );
  } else {
    body = <TableSkeleton label="route configurations" />;
  }

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Routes"
        description="Route configurations: virtual hosts and the ordered routes that send requests to clusters."
        actions={
          <Link href={newHref} className={primaryLink}>
            New route configuration
          </Link>
        }
      />
      {body}
    </div>
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
