"use client";

import { useQuery } from "@connectrpc/connect-query";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { type ReactNode, useMemo } from "react";
import { RefreshButton } from "@/components/ui/refresh-button";
import { RelativeTime } from "@/components/ui/relative-time";
import { buildInventory, type Inventory, type InventoryGroup } from "@/lib/inventory";
import { InventoryEmpty, InventoryError, InventorySkeleton, StaleBanner } from "./inventory-states";
import { KindIcon } from "./kind-icon";
import { ResourceTable } from "./resource-table";

/**
 * The configuration inventory (/inventory): everything stored, by kind (ConfigService.ListResources with no kind filter).
 * States: loading (skeleton), failed with nothing loaded (what failed and how to fix it),
 * nothing stored (the command that imports a config), loaded (tables; a banner if the latest
 * refresh failed).
 */
export function InventoryView() {
  const query = useQuery(ConfigService.method.listResources, {});
  const inventory = useMemo(
    () => (query.data ? buildInventory(query.data.resources) : undefined),
    [query.data],
  );
  const refetch = () => void query.refetch();
  const refreshing = query.isFetching;

  let body: ReactNode;
  if (inventory) {
    body = (
      <>
        {query.error && (
          <StaleBanner
            error={query.error}
            loadedAt={new Date(query.dataUpdatedAt)}
            retrying={refreshing}
            onRetry={refetch}
          />
        )}
        {inventory.total === 0 ? <InventoryEmpty /> : <InventoryTables inventory={inventory} />}
      </>
    );
  } else if (query.error) {
    body = <InventoryError error={query.error} retrying={refreshing} onRetry={refetch} />;
  } else {
    body = <InventorySkeleton retrying={query.failureCount > 0} />;
  }

  return (
    <div className="flex flex-col gap-8">
      <header className="flex flex-wrap items-end justify-between gap-4">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight text-fg">Configuration</h1>
          <p className="mt-1 text-fg-muted">
            Everything Switchyard stores, by kind
            {inventory && inventory.total > 0 && (
              <>
                {" "}
                · <span className="tabular-nums">{inventory.total}</span>{" "}
                {inventory.total === 1 ? "object" : "objects"}
              </>
            )}
            .
          </p>
        </div>
        <div className="flex items-center gap-3">
          {query.dataUpdatedAt > 0 && (
            <span className="text-xs text-fg-subtle">
              Updated <RelativeTime date={new Date(query.dataUpdatedAt)} />
            </span>
          )}
          <RefreshButton fetching={refreshing} shown={query.data !== undefined} onClick={refetch} />
        </div>
      </header>
      {body}
    </div>
  );
}

function InventoryTables({ inventory }: { inventory: Inventory }) {
  return (
    <>
      <nav aria-label="Kinds">
        <ul className="grid grid-cols-2 gap-3 lg:grid-cols-4">
          {inventory.groups.map((group) => (
            <li key={group.kind.slug}>
              <KindCard group={group} />
            </li>
          ))}
        </ul>
      </nav>
      {inventory.groups.map((group) => (
        <KindSection key={group.kind.slug} group={group} />
      ))}
    </>
  );
}

function KindCard({ group }: { group: InventoryGroup }) {
  const count = group.rows.length;
  return (
    <a
      href={`#${group.kind.slug}`}
      className="group block rounded-lg border bg-surface p-4 shadow-xs transition-colors hover:border-border-strong"
    >
      <span className="flex items-center gap-2 text-fg-muted group-hover:text-fg">
        <KindIcon kind={group.kind} className="size-4" />
        {group.kind.title}
      </span>
      <span
        className={`mt-2 block text-2xl font-semibold tabular-nums tracking-tight ${
          count === 0 ? "text-fg-subtle" : "text-fg"
        }`}
      >
        {count}
      </span>
    </a>
  );
}

function KindSection({ group }: { group: InventoryGroup }) {
  const headingId = `${group.kind.slug}-heading`;
  return (
    <section id={group.kind.slug} aria-labelledby={headingId} className="scroll-mt-24">
      <div className="mb-3 flex items-center gap-2">
        <KindIcon kind={group.kind} className="size-4 text-fg-subtle" />
        <h2 id={headingId} className="text-base font-semibold text-fg">
          {group.kind.title}
        </h2>
        <span className="rounded-full bg-surface-muted px-2 py-0.5 text-xs font-medium text-fg-muted tabular-nums ring-1 ring-border ring-inset">
          {group.rows.length}
        </span>
      </div>
      {group.rows.length > 0 ? (
        <ResourceTable group={group} />
      ) : (
        <p className="rounded-lg border border-dashed px-4 py-5 text-center text-fg-subtle">
          No {group.kind.title.toLowerCase()} stored.
        </p>
      )}
    </section>
  );
}
