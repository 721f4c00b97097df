"use client";

import { useQuery } from "@connectrpc/connect-query";
import {
  ConfigService,
  ResourceKind,
  type ResourceSummary,
} from "@switchyard/proto/switchyard/v1/config_pb";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import { useMemo } from "react";
import { RouteIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { ConfigList, deleteColumn, linkChip, nameColumn, updatedColumn } from "./config-list";
import { clusterHref, listenerHref, routeConfigHref } from "./hrefs";
import { Chip } from "./states";
import { useConfigClient } from "./use-config-client";

/**
 * The route configurations as ListResources summaries ("1 virtual host, 100 routes" and the
 * clusters they reference), with the listeners that serve each and whether each cluster exists:
 * one light call for all three, instead of downloading every route of every configuration.
 */
export function RouteConfigList() {
  const query = useQuery(ConfigService.method.listResources, {});
  const client = useConfigClient();
  const { usedBy, known } = useMemo(() => {
    const usedBy = new Map<string, string[]>();
    const known = new Set<string>();
    for (const r of query.data?.resources ?? []) {
      if (r.kind === ResourceKind.CLUSTER) known.add(r.name);
      if (r.kind === ResourceKind.LISTENER)
        for (const rc of new Set(r.references)) usedBy.set(rc, [...(usedBy.get(rc) ?? []), r.name]);
    }
    return { usedBy, known };
  }, [query.data]);

  const columns = useMemo<ColumnDef<ResourceSummary, unknown>[]>(
    () => [
      nameColumn<ResourceSummary>(routeConfigHref),
      {
        id: "contents",
        header: "Contents",
        accessorFn: (rc) => rc.description,
        enableSorting: false,
        cell: ({ getValue }) => <span className="text-xs">{String(getValue())}</span>,
      },
      {
        id: "clusters",
        header: "Clusters",
        enableSorting: false,
        cell: ({ row }) => <ClusterChips names={clustersOf(row.original)} known={known} />,
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
      updatedColumn<ResourceSummary>(),
      deleteColumn<ResourceSummary>({
        label: "route configuration",
        remove: (name) => client.deleteRouteConfiguration({ name }),
        consequence: "Listeners that serve it will fail validation until they are changed.",
      }),
    ],
    [client, known, usedBy],
  );

  return (
    <ConfigList
      creates="route configuration"
      query={query}
      rowsOf={(data) => data.resources.filter((r) => r.kind === ResourceKind.ROUTE_CONFIGURATION)}
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
        searchPlaceholder: "Search by name or cluster…",
        searchText: (rc) => [rc.name, ...clustersOf(rc)].join(" "),
      }}
    />
  );
}

/** The clusters a route configuration sends traffic to, each once. */
function clustersOf(rc: ResourceSummary): string[] {
  return [...new Set(rc.references)];
}

/** At most a few cluster chips (a configuration of 100 routes may name dozens), then "+ n more". */
const SHOWN_CLUSTERS = 6;

function ClusterChips({ names, known }: { names: readonly string[]; known: ReadonlySet<string> }) {
  const rest = names.length - SHOWN_CLUSTERS;
  return (
    <span className="flex flex-wrap gap-1">
      {names.slice(0, SHOWN_CLUSTERS).map((name) =>
        known.has(name) ? (
          <Link key={name} href={clusterHref(name)} className={linkChip}>
            {name}
          </Link>
        ) : (
          <span key={name} title="Not in the draft" className="inline-flex">
            <Chip tone="warning">{name} (missing)</Chip>
          </span>
        ),
      )}
      {rest > 0 && <span className="self-center text-xs text-fg-subtle">+ {rest} more</span>}
    </span>
  );
}
