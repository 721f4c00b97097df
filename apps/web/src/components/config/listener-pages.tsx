"use client";

import { timestampDate } from "@bufbuild/protobuf/wkt";
import { useQuery } from "@connectrpc/connect-query";
import { ConfigService, type Listener } from "@switchyard/proto/switchyard/v1/config_pb";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { type ReactNode, useMemo } from "react";
import { RadioIcon } from "@/components/ui/icons";
import { RelativeTime } from "@/components/ui/relative-time";
import { emptyListenerForm, routeConfigNames } from "@/lib/listener-form";
import { primaryLink } from "./cluster-pages";
import { ConfigEditor } from "./config-editor";
import { ConfigTable } from "./config-table";
import { DeleteRowButton } from "./delete-row-button";
import { listenerHref, routeConfigHref, useListenerKind } from "./kinds";
import { ListenerFields } from "./listener-fields";
import { Loaded } from "./loaded";
import { Chip, EmptyState, LoadError, PageHeader, TableSkeleton } from "./states";
import { useConfigClient } from "./use-config-client";

const newHref = "/listeners/new" as Route;

export function ListenerList() {
  const query = useQuery(ConfigService.method.listListeners, {});
  const client = useConfigClient();
  const columns = useMemo<ColumnDef<Listener, unknown>[]>(
    () => [
      {
        id: "name",
        header: "Name",
        accessorFn: (l) => l.name,
        cell: ({ row }) => (
          <Link
            href={listenerHref(row.original.name)}
            className="font-mono text-[13px] text-fg hover:text-accent hover:underline"
          >
            {row.original.name}
          </Link>
        ),
      },
      {
        id: "type",
        header: "Type",
        accessorFn: (l) => (l.apiListener ? "gRPC api listener" : "socket"),
        cell: ({ row }) =>
          row.original.apiListener ? (
            <Chip tone="accent">gRPC api listener</Chip>
          ) : (
            <Chip>socket</Chip>
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
              <Link
                key={n}
                href={routeConfigHref(n)}
                className="inline-flex items-center rounded-md border bg-surface-muted px-1.5 py-0.5 font-mono text-xs text-fg-muted hover:border-border-strong hover:text-fg"
              >
                {n}
              </Link>
            ))}
          </span>
        ),
      },
      {
        id: "updated",
        header: "Updated",
        accessorFn: (l) => (l.updateTime ? Number(l.updateTime.seconds) : 0),
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
              label="listener"
              name={row.original.name}
              remove={(name) => client.deleteListener({ name })}
            />
          </div>
        ),
      },
    ],
    [client],
  );

  let body: ReactNode;
  if (query.data) {
    body =
      query.data.listeners.length === 0 ? (
        <EmptyState
          icon={<RadioIcon className="size-5" />}
          title="No listeners yet"
          action={
            <Link href={newHref} className={primaryLink}>
              Create a listener
            </Link>
          }
        >
          A listener is where traffic enters: an address and port for Envoy, or a name that
          proxyless gRPC clients dial. It serves a route configuration.
        </EmptyState>
      ) : (
        <ConfigTable
          caption="Listeners"
          data={query.data.listeners}
          columns={columns}
          searchPlaceholder="Search by name, address or route configuration…"
          searchText={(l) =>
            [l.name, l.address ?? "", String(l.port ?? ""), ...routeConfigNames(l)].join(" ")
          }
        />
      );
  } else if (query.error) {
    body = (
      <LoadError
        what="listeners"
        error={query.error}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
      />
    );
  } else {
    body = <TableSkeleton label="listeners" />;
  }

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Listeners"
        description="Where traffic enters, and the route configuration that handles it."
        actions={
          <Link href={newHref} className={primaryLink}>
            New listener
          </Link>
        }
      />
      {body}
    </div>
  );
}

function useRouteConfigNames(): string[] {
  const query = useQuery(ConfigService.method.listRouteConfigurations, {});
  return useMemo(() => (query.data?.routeConfigurations ?? []).map((rc) => rc.name), [query.data]);
}

export function NewListener() {
  const kind = useListenerKind();
  const names = useRouteConfigNames();
  // "/listeners/new?routes=NAME" (from a route configuration) starts with that one chosen.
  const preset = useSearchParams().get("routes") ?? "";
  return (
    <ConfigEditor
      kind={kind}
      original={undefined}
      initialValues={emptyListenerForm(preset)}
      description="Saved to the draft; it goes live when the draft is published."
    >
      <ListenerFields editing={false} routeConfigNames={names} />
    </ConfigEditor>
  );
}

export function EditListener({ name }: { name: string }) {
  const kind = useListenerKind();
  const names = useRouteConfigNames();
  const query = useQuery(ConfigService.method.getListener, { name }, { staleTime: 0 });
  return (
    <Loaded query={query} what="listener" listHref={kind.listHref} listLabel={kind.listLabel}>
      {(listener: Listener) => (
        <ConfigEditor key={listener.name} kind={kind} original={listener}>
          <ListenerFields editing routeConfigNames={names} />
        </ConfigEditor>
      )}
    </Loaded>
  );
}
