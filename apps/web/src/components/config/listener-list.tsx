"use client";

import { useQuery } from "@connectrpc/connect-query";
import { ConfigService, type Listener } from "@switchyard/proto/switchyard/v1/config_pb";
import { formatAddress } from "@switchyard/snapshot/address";
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
        accessorFn: (l) => listenerType(l),
        cell: ({ row }) =>
          row.original.apiListener ? (
            <Chip tone="accent">gRPC api listener</Chip>
          ) : (
            <span className="flex flex-wrap gap-1">
              <Chip>{listenerType(row.original)}</Chip>
              {/* Chains of network filters only: a TCP proxy, Redis, ... */}
              {row.original.filterChains.some((c) => c.networkOnly) && <Chip>TCP</Chip>}
            </span>
          ),
      },
      {
        id: "address",
        header: "Address",
        accessorFn: (l) => listenerAddress(l),
        cell: ({ row }) => (
          <span className="font-mono text-xs">{listenerAddress(row.original)}</span>
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

function listenerType(listener: Listener): string {
  if (listener.apiListener) return "gRPC api listener";
  return listener.extra?.internalListener !== undefined ? "internal" : "socket";
}

/** Where a listener is reached: xds:///NAME, envoy://NAME (internal), an address and port, or a Unix socket. */
function listenerAddress(listener: Listener): string {
  if (listener.apiListener) return `xds:///${listener.name}`;
  if (listener.address === undefined) return `envoy://${listener.name}`;
  return formatAddress(listener.address, listener.port ?? null);
}
