"use client";

import { create } from "@bufbuild/protobuf";
import { useQuery } from "@connectrpc/connect-query";
import {
  ConfigService,
  type TopologyCounts,
  TopologyCountsSchema,
  TopologyScope,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { keepPreviousData } from "@tanstack/react-query";
import type { Route } from "next";
import { useSearchParams } from "next/navigation";
import { type ReactNode, useCallback, useMemo } from "react";
import { buttonClass } from "@/components/ui/button";
import { ChevronRightIcon, NetworkIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { EmptyState, LoadError, LoadingBlock, PageHeader } from "@/components/ui/page-states";
import { RefreshButton } from "@/components/ui/refresh-button";
import {
  kindTitles,
  type Topology,
  type TopologyKind,
  type TopologyNode,
  topologyNodeOf,
  topologyOf,
} from "@/lib/topology";
import { FocusPicker } from "./focus-picker";
import { TopologyGraph } from "./topology-graph";

const columns: readonly TopologyKind[] = [
  "listener",
  "route-configuration",
  "virtual-host",
  "cluster",
  "endpoint",
];

/** `?focus=listener:edge`: the URL keeps the focus readable, so it can be written by hand. */
function focusHref(id: string | undefined): string {
  return id === undefined
    ? window.location.pathname
    : `${window.location.pathname}?focus=${encodeURIComponent(id).replaceAll("%3A", ":")}`;
}

const plural = (n: number, one: string, many: string) =>
  `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

/**
 * The Topology page: the draft's listeners, route configurations, virtual hosts, clusters and
 * endpoints as one graph, each node a link to its object. The server builds the graph
 * (GetTopology) and sends only what to draw: a configuration too large to draw at once is drawn
 * one neighbourhood at a time, around the object chosen in "Focus on" (kept in the URL as
 * `?focus=kind:name`), by default its first listener.
 */
export function TopologyView() {
  const params = useSearchParams();
  const focus = params.get("focus") ?? "";
  // `?path=listener:edge,cluster:api`: the nodes a request takes, from the Route tester.
  const pathParam = params.get("path") ?? "";
  const path = useMemo(() => new Set(pathParam.split(",").filter((id) => id !== "")), [pathParam]);
  // A new focus keeps the graph drawn until the new one arrives.
  const query = useQuery(
    ConfigService.method.getTopology,
    { focus },
    { placeholderData: keepPreviousData },
  );
  const refreshing = query.isFetching;
  const refetch = () => void query.refetch();
  // pushState, not the router: no server round trip, Back returns to the previous focus, and
  // Next.js folds it into useSearchParams. Not with `window.history.state`: Next.js takes a state
  // carrying its own marker for one of its own calls and would not update useSearchParams.
  const setFocus = useCallback((id: string | undefined) => {
    window.history.pushState(null, "", focusHref(id));
  }, []);

  const answer = query.data;
  const drawing = useMemo(() => {
    if (!answer) return undefined;
    const topology = topologyOf(answer);
    const large = answer.totalNodes > answer.maxNodes;
    const view: View =
      answer.scope === TopologyScope.WHOLE
        ? { t: "whole", topology }
        : answer.scope === TopologyScope.FOCUSED
          ? { t: "focused", focus: answer.focus, topology, chosen: focus !== "", large }
          : { t: "unknown", focus: answer.focus, large };
    return {
      view,
      total: answer.totalNodes,
      counts: answer.counts ?? create(TopologyCountsSchema),
      choices: answer.choices.map(topologyNodeOf),
      drawn: new Map(topology.nodes.map((n) => [n.id, n])),
    };
  }, [answer, focus]);

  let body: ReactNode;
  if (query.error && !query.data) {
    body = (
      <LoadError
        what="the topology"
        procedure="switchyard.v1.ConfigService/GetTopology"
        error={query.error}
        retrying={refreshing}
        onRetry={refetch}
      />
    );
  } else if (!drawing) {
    body = <LoadingBlock label="Loading listeners, routes and clusters…" rows={5} />;
  } else if (drawing.total === 0) {
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
        <div className="flex flex-wrap items-center justify-between gap-3">
          <Overview
            view={drawing.view}
            counts={drawing.counts}
            drawn={drawing.drawn}
            onShowAll={setFocus}
          />
          <FocusPicker choices={drawing.choices} onChoose={setFocus} />
        </div>
        {drawing.view.t !== "unknown" && (
          // A new focus is a new graph: remount, so React Flow fits it to the view again.
          <TopologyGraph
            key={drawing.view.t === "focused" ? drawing.view.focus : ""}
            topology={drawing.view.topology}
            path={path}
          />
        )}
      </>
    );
  }

  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title="Topology"
        description="How traffic flows through the draft configuration, from listeners to endpoints."
        actions={
          <RefreshButton fetching={refreshing} shown={answer !== undefined} onClick={refetch} />
        }
      />
      {body}
    </div>
  );
}

/** What the graph shows: everything, one object's neighbourhood, or nothing for an unknown focus. */
type View =
  | { readonly t: "whole"; readonly topology: Topology }
  | {
      readonly t: "focused";
      readonly focus: string;
      readonly topology: Topology;
      /** In the URL, rather than the default for a large configuration. */
      readonly chosen: boolean;
      readonly large: boolean;
    }
  | { readonly t: "unknown"; readonly focus: string; readonly large: boolean };

/** One line on what is drawn out of how much, and how to change it. */
function Overview({
  view,
  counts,
  drawn,
  onShowAll,
}: {
  view: View;
  counts: TopologyCounts;
  drawn: ReadonlyMap<string, TopologyNode>;
  onShowAll: (id: undefined) => void;
}) {
  const total = [
    plural(counts.listeners, "listener", "listeners"),
    `${plural(counts.routeConfigurations, "route configuration", "route configurations")} (${plural(counts.routes, "route", "routes")})`,
    `${plural(counts.clusters, "cluster", "clusters")} (${plural(counts.endpoints, "endpoint", "endpoints")})`,
  ].join(", ");
  const showAll = (
    <button
      type="button"
      onClick={() => onShowAll(undefined)}
      className="font-medium text-accent underline-offset-2 hover:underline"
    >
      Show everything
    </button>
  );
  const named = (id: string) => {
    const node = drawn.get(id);
    return node ? (
      <>
        {kindTitles[node.kind].toLowerCase()}{" "}
        <span className="font-mono font-medium text-fg">{node.label}</span>
      </>
    ) : (
      <span className="font-mono font-medium text-fg">{id}</span>
    );
  };

  let text: ReactNode;
  if (view.t === "whole") {
    text = <>All of {total}. Focus on one of them to see only the traffic through it.</>;
  } else if (view.t === "unknown") {
    text = view.focus ? (
      <span role="alert">
        Nothing to focus on: {named(view.focus)} is not in the draft (renamed or deleted?). Search
        for another object{view.large ? "" : <>, or {showAll}</>}.
      </span>
    ) : (
      <>{total}: too many to draw at once. Search for an object to see its neighbourhood.</>
    );
  } else {
    text = (
      <>
        {view.large && <>{total}: too many to draw at once. </>}
        Showing {named(view.focus)}
        {view.chosen ? "" : " (the first)"} and the path of its traffic
        {view.large ? <>; search to focus on another.</> : <>. {showAll}</>}
      </>
    );
  }
  return <p className="min-w-0 flex-1 text-sm text-fg-muted">{text}</p>;
}
