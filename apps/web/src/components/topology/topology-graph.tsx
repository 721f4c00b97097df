"use client";

import {
  Background,
  Controls,
  type Edge,
  Handle,
  MarkerType,
  type Node,
  type NodeProps,
  Position,
  ReactFlow,
} from "@xyflow/react";
import type { Route } from "next";
import { useRouter } from "next/navigation";
import { memo, useMemo } from "react";
import { Link } from "@/components/ui/link";
import {
  kindTitles,
  layoutTopology,
  type Topology,
  type TopologyKind,
  type TopologyNode,
  topologySignature,
} from "@/lib/topology";

const nodeSize = { width: 180, height: 58 };

const kindAccent: Record<TopologyKind, string> = {
  listener: "border-l-accent",
  "route-configuration": "border-l-[#0ea5e9]",
  "virtual-host": "border-l-[#14b8a6]",
  cluster: "border-l-success",
  endpoint: "border-l-fg-subtle",
};

type ObjectNode = Node<{ item: TopologyNode; onPath: boolean }, "object">;

/** One object: its kind, name and a detail line; a link to its page when it has one. */
function ObjectNodeView({ data }: NodeProps<ObjectNode>) {
  const { item, onPath } = data;
  const body = (
    <>
      <span className="block text-[10px] font-medium uppercase tracking-wider text-fg-subtle">
        {kindTitles[item.kind]}
        {item.missing && <span className="text-warning"> · missing</span>}
      </span>
      <span className="block truncate font-mono text-[12.5px] font-semibold text-fg">
        {item.label}
      </span>
      <span className="block truncate text-[11px] text-fg-muted">{item.detail}</span>
    </>
  );
  const frame = `block h-full w-full rounded-md border border-l-4 bg-surface px-2.5 py-1.5 text-left shadow-xs ${
    item.missing
      ? "border-dashed border-warning-border border-l-warning bg-warning-soft"
      : `${kindAccent[item.kind]} ${item.summary ? "border-dashed bg-surface-muted" : ""}`
  } ${onPath ? "ring-2 ring-accent ring-offset-1" : ""}`;
  return (
    <>
      <Handle type="target" position={Position.Left} isConnectable={false} className="!opacity-0" />
      {item.href ? (
        <Link
          href={item.href as Route}
          data-on-path={onPath || undefined}
          className={`${frame} transition-colors hover:border-border-strong hover:bg-surface-hover`}
          title={
            item.summary
              ? `${item.label.slice(1)} ${item.detail} not drawn: open the page that lists them`
              : `Open ${kindTitles[item.kind].toLowerCase()} ${item.label}`
          }
        >
          {body}
        </Link>
      ) : (
        <div
          data-on-path={onPath || undefined}
          className={frame}
          title={item.missing ? `“${item.label}” is referred to but not stored` : undefined}
        >
          {body}
        </div>
      )}
      <Handle
        type="source"
        position={Position.Right}
        isConnectable={false}
        className="!opacity-0"
      />
    </>
  );
}

// Module-level: React Flow warns when nodeTypes is a new object on every render.
const nodeTypes = { object: ObjectNodeView };

/**
 * The topology, laid out left to right (dagre) and drawn with React Flow: pan and zoom, no
 * editing. Every node links to its object's page, and is reachable with Tab. Lays out whatever it
 * is given: the caller keeps it small (`maxGraphNodes`). Re-renders, and so lays out again, only
 * when what it draws changed, not when its parent re-renders or a refetch returns the same
 * configuration.
 */
export const TopologyGraph = memo(
  TopologyGraphView,
  (before, after) =>
    samePath(before.path, after.path) &&
    (before.topology === after.topology ||
      topologySignature(before.topology) === topologySignature(after.topology)),
);

const NO_PATH: ReadonlySet<string> = new Set();

function samePath(a: ReadonlySet<string> = NO_PATH, b: ReadonlySet<string> = NO_PATH): boolean {
  return a.size === b.size && [...a].every((id) => b.has(id));
}

/**
 * `path`: the nodes a request takes (the Route tester's "Show on topology"), ringed, and the
 * edges between them drawn bold.
 */
function TopologyGraphView({
  topology,
  path = NO_PATH,
}: {
  topology: Topology;
  path?: ReadonlySet<string>;
}) {
  const router = useRouter();
  const graph = useMemo(() => {
    const positions = layoutTopology(topology, nodeSize);
    const nodes: ObjectNode[] = topology.nodes.map((item) => ({
      id: item.id,
      type: "object",
      position: positions.get(item.id) ?? { x: 0, y: 0 },
      data: { item, onPath: path.has(item.id) },
      width: nodeSize.width,
      height: nodeSize.height,
      draggable: false,
      selectable: false,
      focusable: false,
      ariaLabel: `${kindTitles[item.kind]} ${item.label}`,
    }));
    const edges: Edge[] = topology.edges.map((e) => {
      const taken = path.has(e.source) && path.has(e.target);
      return {
        id: e.id,
        source: e.source,
        target: e.target,
        ...(e.label ? { label: e.label } : {}),
        focusable: false,
        selectable: false,
        animated: taken,
        markerEnd: { type: MarkerType.ArrowClosed, width: 14, height: 14 },
        style: taken ? { strokeWidth: 2.5, stroke: "var(--color-accent)" } : { strokeWidth: 1.25 },
      };
    });
    // Tall enough for the graph at full size, within the window: a small graph is not lost in
    // an empty canvas, and a large one scrolls by panning.
    const bottom = Math.max(0, ...nodes.map((n) => n.position.y + nodeSize.height));
    const height = Math.min(Math.max(bottom + 96, 320), 760);
    return { nodes, edges, height };
  }, [topology, path]);

  return (
    <div
      style={{ height: `min(${graph.height}px, 75vh)` }}
      className="min-h-[320px] overflow-hidden rounded-xl border bg-surface-muted shadow-xs"
    >
      <ReactFlow
        nodes={graph.nodes}
        edges={graph.edges}
        nodeTypes={nodeTypes}
        colorMode="system"
        fitView
        fitViewOptions={{ padding: 0.08, maxZoom: 1.25 }}
        minZoom={0.15}
        nodesDraggable={false}
        nodesConnectable={false}
        nodesFocusable={false}
        edgesFocusable={false}
        elementsSelectable={false}
        // Also what makes nodes take pointer events at all: React Flow turns them off for nodes
        // that are neither selectable nor draggable unless a click handler is set.
        onNodeClick={(event, node: ObjectNode) => {
          // A click on the node's link is the link's; around it, the node still navigates.
          if ((event.target as Element).closest("a")) return;
          if (node.data.item.href) router.push(node.data.item.href as Route);
        }}
        aria-label="Topology graph"
      >
        <Background gap={20} size={1} />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
