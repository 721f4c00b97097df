"use client";

import { useQuery } from "@connectrpc/connect-query";
import { ConfigService, type Listener } from "@switchyard/proto/switchyard/v1/config_pb";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import { useMemo } from "react";
import { RadioIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { routeConfigNames } from "@/lib/object-facts";
import { ConfigList, deleteColumn, linkChip, nameColumn, updatedColumn } from "./config-list";
import { listenerHref, routeConfigHref } from "./hrefs";
import { Chip } from "./states";
import { useConfigClient } from "./use-config-client";

/*
 * The Listeners list, apart from the editors (listener-pages.tsx): a list page loads no form code.
 */

export function ListenerList() {
  const query = useQuery(ConfigService.method.listListeners, {});
  const client = useConfigClient();
  const columns = useMemo<ColumnDef<Listener, unknown>[]>(
    () => [
      nameColumn<Listener>(listenerHref),
      {
        id: "type",
        header: "Type",
        accessorFn: (l) => (l.apiListener ? "gRPC api listener" : "socket"),
        cell: ({ row }) =>
          row.original.apiListener ? (
            <Chip tone="accent">gRPC api listener</Chip>
          ) : (
            <span className="flex flex-wrap gap-1">
              <Chip>socket</Chip>
              {/* Chains of network filters only: a TCP proxy, Redis, ... */}
              {row.original.filterChains.some((c) => c.networkOnly) && <Chip>TCP</Chip>}
            </span>
          ),
      },
      {
        id: "address",
        header: "Address",
        accessorFn: (l) => (l.apiListener ? "" : `${l.address ?? ""}:${l.port ?? ""}`),
        cell: ({ row }) =>
          row.original.apiListener ? (
            <span className="font-mono text-xs">xds:///{row.original.name}</span>
          ) : (
            <span className="font-mono text-xs">
              {row.original.address}:{row.original.port}
            </span>
          ),
      },
      {
        id: "routes",
        header: "Route configuration",
        enableSorting: false,
        cell: ({ row }) => (
          <span className="flex flex-wrap gap-1">
            {routeConfigNames(row.original).map((n) => (
              <Link key={n} href={routeConfigHref(n)} className={linkChip}>
                {n}
              </Link>
            ))}
          </span>
        ),
      },
      updatedColumn<Listener>(),
      deleteColumn<Listener>({
        label: "listener",
        remove: (name) => client.deleteListener({ name }),
      }),
    ],
    [client],
  );

  return (
    <ConfigList
      creates="listener"
      query={query}
      rowsOf={(data) => data.listeners}
      title="Listeners"
      description="Where traffic enters, and the route configuration that handles it."
      newHref={"/listeners/new" as Route}
      newLabel="New listener"
      what="listeners"
      empty={{
        icon: <RadioIcon className="size-5" />,
        title: "No listeners yet",
        action: "Create a listener",
        children:
          "A listener is where traffic enters: an address and port for Envoy, or a name that proxyless gRPC clients dial. It serves a route configuration.",
      }}
      table={{
        caption: "Listeners",
        columns,
        searchPlaceholder: "Search by name, address or route configuration…",
        searchText: (l) =>
          [l.name, l.address ?? "", String(l.port ?? ""), ...routeConfigNames(l)].join(" "),
      }}
    />
  );
}
