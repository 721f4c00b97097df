import { type Rollout, RolloutAckState } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { Card } from "@/components/ui/card";
import { Link } from "@/components/ui/link";
import { nodeHref } from "@/lib/node-list";
import { ackLabel } from "@/lib/rollouts";

const ackTone: Record<RolloutAckState, string> = {
  [RolloutAckState.UNSPECIFIED]: "text-fg-subtle",
  [RolloutAckState.PENDING]: "text-warning",
  [RolloutAckState.ACKED]: "text-success",
  [RolloutAckState.NACKED]: "font-medium text-danger",
};

/** The group's nodes as the rollout sees them: which version each is served, and its answer. */
export function RolloutNodes({ rollout }: { rollout: Rollout }) {
  const to = rollout.toVersion;
  return (
    <Card
      id="rollout-nodes-title"
      title="Nodes"
      aside={`${rollout.nodesOnNew} of ${rollout.nodesConnected} connected on version ${to}, ${rollout.nodesOnPrevious} on version ${rollout.fromVersion}`}
    >
      {rollout.nodes.length === 0 ? (
        <p className="p-5 text-fg-muted">No node of this group is known.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full min-w-[760px] text-left">
            <caption className="sr-only">Nodes of group {rollout.group} and their versions</caption>
            <thead className="border-b bg-surface-muted text-xs text-fg-subtle">
              <tr>
                {["Node", "Connected", "Version served", "Wave", "ACK", "NACK text"].map((h) => (
                  <th key={h} scope="col" className="px-4 py-2 font-medium">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y">
              {rollout.nodes.map((node) => (
                <tr key={node.nodeId}>
                  <th scope="row" className="px-4 py-2 font-normal">
                    <Link
                      href={nodeHref(node.nodeId)}
                      className="font-mono text-[13px] font-medium text-fg hover:text-accent hover:underline [overflow-wrap:anywhere]"
                    >
                      {node.nodeId}
                    </Link>
                  </th>
                  <td className="px-4 py-2 text-xs">{node.connected ? "Yes" : "No"}</td>
                  <td className="px-4 py-2 text-xs tabular-nums">
                    <span className={node.version === to ? "font-medium text-fg" : "text-fg-muted"}>
                      v{node.version.toString()}
                    </span>
                    {node.version === to ? " (new)" : ""}
                  </td>
                  <td className="px-4 py-2 text-xs tabular-nums">
                    {node.wave === 0 ? "—" : node.wave}
                  </td>
                  <td className={`px-4 py-2 text-xs ${ackTone[node.ack]}`}>{ackLabel[node.ack]}</td>
                  <td className="max-w-md px-4 py-2 font-mono text-xs text-danger [overflow-wrap:anywhere]">
                    {node.nackDetail}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {rollout.nodesTruncated && (
            <p className="border-t px-4 py-2 text-xs text-fg-subtle">
              The first {rollout.nodes.length} nodes, those with the new version first.
            </p>
          )}
        </div>
      )}
    </Card>
  );
}
