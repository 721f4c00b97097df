import { timestampDate } from "@bufbuild/protobuf/wkt";
import { NodeTypeStatus, type TypeStatus } from "@switchyard/proto/switchyard/v1/status_pb";
import { type NodeHealth, typeLabel } from "@/lib/node-list";

export const healthPresentation: Record<
  NodeHealth,
  { label: string; chip: string; dot: string; text: string }
> = {
  synced: {
    label: "Synced",
    chip: "bg-success/10 text-success ring-success/30",
    dot: "bg-success",
    text: "text-success",
  },
  nacked: {
    label: "NACKed",
    chip: "bg-danger-soft text-danger ring-danger-border",
    dot: "bg-danger",
    text: "text-danger",
  },
  stale: {
    label: "Stale",
    chip: "bg-warning-soft text-warning ring-warning-border",
    dot: "bg-warning",
    text: "text-warning",
  },
  pending: {
    label: "Pending",
    chip: "bg-surface-muted text-fg-muted ring-border",
    dot: "bg-fg-subtle motion-safe:animate-pulse-late",
    text: "text-fg",
  },
  disconnected: {
    label: "Disconnected",
    chip: "bg-surface-muted text-fg-subtle ring-border",
    dot: "bg-fg-subtle/50",
    text: "text-fg-subtle",
  },
};

export function HealthBadge({ health }: { health: NodeHealth }) {
  const p = healthPresentation[health];
  return (
    <span
      className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-semibold whitespace-nowrap ring-1 ring-inset ${p.chip}`}
    >
      <span aria-hidden="true" className={`size-1.5 rounded-full ${p.dot}`} />
      {p.label}
    </span>
  );
}

export const typeStatusPresentation: Record<
  NodeTypeStatus,
  { label: string; chip: string; dot: string }
> = {
  [NodeTypeStatus.UNSPECIFIED]: {
    label: "UNKNOWN",
    chip: "bg-surface-muted text-fg-muted",
    dot: "bg-fg-subtle",
  },
  [NodeTypeStatus.SYNCED]: {
    label: "SYNCED",
    chip: "bg-success/10 text-success ring-success/30",
    dot: "bg-success",
  },
  [NodeTypeStatus.NOT_SENT]: {
    label: "NOT SENT",
    chip: "bg-surface-muted text-fg-muted ring-border",
    dot: "bg-fg-subtle",
  },
  [NodeTypeStatus.PENDING]: {
    label: "PENDING",
    chip: "bg-surface-muted text-fg-muted ring-border",
    dot: "bg-fg-subtle motion-safe:animate-pulse-late",
  },
  [NodeTypeStatus.STALE]: {
    label: "STALE",
    chip: "bg-warning-soft text-warning ring-warning-border",
    dot: "bg-warning",
  },
  [NodeTypeStatus.NACKED]: {
    label: "NACKED",
    chip: "bg-danger-soft text-danger ring-danger-border",
    dot: "bg-danger",
  },
};

/** A type's status in words, for tooltips: "SYNCED at version 3", "NACKED: <text>". */
function describe(t: TypeStatus): string {
  const p = typeStatusPresentation[t.status];
  if (t.status === NodeTypeStatus.NACKED) return `${p.label}: ${t.nackMessage}`;
  if (t.status === NodeTypeStatus.SYNCED && t.ackedVersion)
    return `${p.label}, ACKed version ${t.ackedVersion}${t.ackedTime ? ` at ${timestampDate(t.ackedTime).toLocaleTimeString()}` : ""}`;
  if (t.sentVersion) return `${p.label}, sent version ${t.sentVersion}`;
  return p.label;
}

/** One chip per xDS type the node asked for: "CDS SYNCED", "LDS NACKED"; the detail on hover. */
export function TypeChips({ types, dim = false }: { types: readonly TypeStatus[]; dim?: boolean }) {
  if (types.length === 0) return <span className="text-xs text-fg-subtle">none requested</span>;
  return (
    <ul aria-label="Status by type" className={`flex flex-wrap gap-1 ${dim ? "opacity-60" : ""}`}>
      {types.map((t) => {
        const p = typeStatusPresentation[t.status];
        return (
          <li
            key={t.typeUrl}
            title={`${t.typeUrl}\n${describe(t)}`}
            className={`inline-flex items-center gap-1 rounded px-1.5 py-px font-mono text-[11px] font-medium ring-1 ring-inset ${p.chip}`}
          >
            <span aria-hidden="true" className={`size-1.5 rounded-full ${p.dot}`} />
            {typeLabel(t.typeUrl)}
            <span className="sr-only"> {p.label}</span>
          </li>
        );
      })}
    </ul>
  );
}
