"use client";

import { timestampDate, timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import type { NodeHeldAt } from "@switchyard/proto/switchyard/v1/status_pb";
import { useEffect, useMemo, useState } from "react";
import {
  CartesianGrid,
  ReferenceArea,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { Card } from "@/components/ui/card";
import { type HistoryPoint, historyLanes, localInputValue } from "@/lib/node-history";
import { typeLabel } from "@/lib/node-list";
import { useStatusClient } from "./use-status-client";

/** How far back the timeline reaches (the history keeps SWITCHYARD_HISTORY_RETENTION). */
const WINDOW_MS = 24 * 60 * 60 * 1_000;
const CONNECTION_LANE = "Connection";

const clock = (at: number) =>
  new Date(at).toLocaleTimeString(undefined, {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });

interface Mark {
  readonly at: number;
  readonly lane: string;
  readonly kind: "ack" | "nack" | "connect" | "disconnect";
  readonly label: string;
}

/** A chart mark: a dot per version taken, a triangle per NACK, a square per (dis)connect. */
function MarkShape(props: { cx?: number | undefined; cy?: number | undefined; payload?: unknown }) {
  const { cx = 0, cy = 0 } = props;
  const payload = props.payload as Mark | undefined;
  if (payload === undefined) return null;
  const title = <title>{payload.label}</title>;
  if (payload.kind === "nack")
    return (
      <path
        data-mark="nack"
        d={`M${cx},${cy - 6}L${cx + 6},${cy + 5}L${cx - 6},${cy + 5}Z`}
        fill="#D55E00"
      >
        {title}
      </path>
    );
  if (payload.kind === "ack")
    return (
      <circle data-mark="ack" cx={cx} cy={cy} r={5} fill="#0072B2">
        {title}
      </circle>
    );
  return (
    <rect
      data-mark={payload.kind}
      x={cx - 4}
      y={cy - 4}
      width={8}
      height={8}
      fill={payload.kind === "connect" ? "#009E73" : "#6b7280"}
    >
      {title}
    </rect>
  );
}

/**
 * The node's history (GetNodeHistory, the last 24 hours): per type a lane of the versions it
 * took, its NACKs, and when it connected; and "what did it hold at": a time picker answered by
 * the server from the whole history.
 */
export function NodeHistoryPanel({ nodeId, changed }: { nodeId: string; changed: unknown }) {
  const client = useStatusClient();
  const [points, setPoints] = useState<HistoryPoint[] | undefined>(undefined);
  const [until, setUntil] = useState(() => Date.now());
  const [error, setError] = useState<string | undefined>(undefined);
  // Re-read whenever the node's live detail changes (a new ACK, NACK or connection).
  // biome-ignore lint/correctness/useExhaustiveDependencies: `changed` is the trigger
  useEffect(() => {
    const controller = new AbortController();
    const now = Date.now();
    client
      .getNodeHistory(
        { nodeId, since: timestampFromMs(now - WINDOW_MS), limit: 2_000 },
        { signal: controller.signal },
      )
      .then((history) => {
        setUntil(now);
        setPoints(
          history.entries.map((e) => ({
            kind: e.kind,
            at: e.at === undefined ? 0 : timestampMs(e.at),
            typeUrl: e.typeUrl,
            version: e.version,
            errorDetail: e.errorDetail,
          })),
        );
        setError(undefined);
      })
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setError(e instanceof Error ? e.message : String(e));
      });
    return () => controller.abort();
  }, [client, nodeId, changed]);

  const lanes = useMemo(() => historyLanes(points ?? [], until), [points, until]);
  const laneNames = [CONNECTION_LANE, ...lanes.types.map(typeLabel)];
  const marks: Mark[] = useMemo(() => {
    const out: Mark[] = [];
    for (const p of points ?? []) {
      if (p.kind === "connect" || p.kind === "disconnect")
        out.push({
          at: p.at,
          lane: CONNECTION_LANE,
          kind: p.kind,
          label: `${p.kind === "connect" ? "Connected" : "Disconnected"} at ${clock(p.at)}`,
        });
    }
    for (const span of lanes.held)
      out.push({
        at: span.from,
        lane: typeLabel(span.typeUrl),
        kind: "ack",
        label: `${typeLabel(span.typeUrl)} ACKed ${span.version} at ${clock(span.from)}`,
      });
    for (const nack of lanes.nacks)
      out.push({
        at: nack.at,
        lane: typeLabel(nack.typeUrl),
        kind: "nack",
        label: `${typeLabel(nack.typeUrl)} NACKed ${nack.version} at ${clock(nack.at)}: ${nack.errorDetail}`,
      });
    return out;
  }, [points, lanes]);
  const from = Math.min(until - 60_000, ...marks.map((m) => m.at));

  return (
    <Card title="History" id="history-title" aside="the last 24 hours">
      <div className="flex flex-col gap-4 px-5 py-4">
        {error !== undefined && (
          <p role="alert" className="text-danger">
            Could not read the history: {error}
          </p>
        )}
        {points !== undefined && points.length === 0 ? (
          <p className="text-center text-fg-subtle">No history recorded in the last 24 hours.</p>
        ) : (
          <figure
            aria-label={`History of node ${nodeId}`}
            className="w-full"
            style={{ height: 60 + laneNames.length * 36 }}
          >
            <ResponsiveContainer width="100%" height="100%">
              <ScatterChart margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
                <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
                <XAxis
                  dataKey="at"
                  type="number"
                  domain={[from, until]}
                  tickFormatter={clock}
                  fontSize={11}
                />
                <YAxis
                  dataKey="lane"
                  type="category"
                  allowDuplicatedCategory={false}
                  width={88}
                  fontSize={11}
                />
                {lanes.connected.map((span) => (
                  <ReferenceArea
                    key={`${span.from}`}
                    x1={span.from}
                    x2={span.to}
                    fill="#009E73"
                    fillOpacity={0.08}
                  />
                ))}
                <Tooltip
                  cursor={false}
                  content={({ payload }) => {
                    const mark = payload?.[0]?.payload as Mark | undefined;
                    return mark === undefined ? null : (
                      <div className="max-w-sm rounded border bg-surface px-2 py-1 text-xs shadow">
                        {mark.label}
                      </div>
                    );
                  }}
                />
                <Scatter data={marks} shape={MarkShape} isAnimationActive={false} />
              </ScatterChart>
            </ResponsiveContainer>
          </figure>
        )}
        <ul aria-label="Versions held" className="flex flex-col gap-1 text-[13px]">
          {lanes.held.map((span) => (
            <li key={`${span.typeUrl}:${span.from}`}>
              <span className="font-mono text-fg-muted">{typeLabel(span.typeUrl)}</span>{" "}
              <span className="font-mono">{span.version}</span>{" "}
              <span className="text-fg-subtle">
                from {clock(span.from)}
                {span.to < until ? ` to ${clock(span.to)}` : " (still held)"}
              </span>
            </li>
          ))}
          {lanes.nacks.map((nack) => (
            <li key={`nack:${nack.typeUrl}:${nack.at}`} className="text-danger">
              <span className="font-mono">{typeLabel(nack.typeUrl)}</span> NACK of {nack.version} at{" "}
              {clock(nack.at)}: <span className="font-mono text-xs">{nack.errorDetail}</span>
            </li>
          ))}
        </ul>
        <HeldAtPicker nodeId={nodeId} />
      </div>
    </Card>
  );
}

/** "What did it hold at T": the server's answer (GetNodeHistory with `at`). */
function HeldAtPicker({ nodeId }: { nodeId: string }) {
  const client = useStatusClient();
  const [value, setValue] = useState(() => localInputValue(Date.now()));
  const [held, setHeld] = useState<NodeHeldAt | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  async function show() {
    const at = new Date(value).getTime();
    if (Number.isNaN(at)) {
      setError(`"${value}" is not a time`);
      return;
    }
    try {
      const answer = await client.getNodeHistory({ nodeId, at: timestampFromMs(at), limit: 1 });
      setHeld(answer.heldAt);
      setError(undefined);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }
  return (
    <section aria-labelledby="held-at-title" className="flex flex-col gap-2 border-t pt-3">
      <h3 id="held-at-title" className="text-[13px] font-semibold">
        What did it hold at
      </h3>
      <form
        className="flex flex-wrap items-center gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          void show();
        }}
      >
        <input
          type="datetime-local"
          step={1}
          aria-label="Time"
          value={value}
          onChange={(event) => setValue(event.target.value)}
          className="rounded border bg-surface px-2 py-1 text-[13px]"
        />
        <button type="submit" className="rounded border px-3 py-1 text-[13px] font-medium">
          Show
        </button>
      </form>
      {error !== undefined && (
        <p role="alert" className="text-danger">
          {error}
        </p>
      )}
      {held !== undefined && (
        <section aria-label="Held at" className="text-[13px]">
          <p className="text-fg-muted">
            At {held.at ? timestampDate(held.at).toLocaleString() : "?"}:{" "}
            {held.connected === undefined
              ? "connection unknown"
              : held.connected
                ? "connected"
                : "disconnected"}
          </p>
          {held.types.length === 0 ? (
            <p className="text-fg-subtle">Nothing recorded before then.</p>
          ) : (
            <table className="mt-1 w-full text-left">
              <thead>
                <tr className="text-xs text-fg-subtle">
                  <th className="py-1 font-medium">Type</th>
                  <th className="py-1 font-medium">State</th>
                  <th className="py-1 font-medium">Held (ACKed)</th>
                  <th className="py-1 font-medium">NACK</th>
                </tr>
              </thead>
              <tbody>
                {held.types.map((type) => (
                  <tr key={type.typeUrl}>
                    <td className="py-1 font-mono">{typeLabel(type.typeUrl)}</td>
                    <td className="py-1">{type.state}</td>
                    <td className="py-1 font-mono">{type.ackedVersion || "-"}</td>
                    <td className="py-1 font-mono text-xs text-danger">
                      {type.nackAt === undefined
                        ? ""
                        : `${type.nackVersion}: ${type.nackErrorDetail}`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
    </section>
  );
}
