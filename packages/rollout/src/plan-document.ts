/**
 * A plan back as the document it is read from (plan.ts), for `rollout plans get` and the
 * console's plan editor, and as one line for `rollout status` and the audit log. The document
 * reads back as the same plan (plan-document.spec.ts): wave 1's bake, ACK timeout and traffic
 * gate are written plan-wide, and each later wave says only where it differs.
 */
import {
  durationText,
  type NodeSelector,
  type RolloutPlan,
  type TrafficGatePlan,
  type WavePlan,
  type WaveShare,
} from "./plan.js";

/** The JSON (or YAML) shape of a plan, as `planOf` reads it. */
export interface PlanDocument {
  readonly name?: string;
  readonly onFailure: "rollback" | "pause";
  readonly bake: string;
  readonly ackTimeout: string;
  readonly traffic?: TrafficGatePlan;
  readonly waves: readonly (number | string | WaveDocument)[];
}

export interface WaveDocument {
  readonly share?: number | string;
  readonly nodes?: {
    readonly ids?: readonly string[];
    readonly zone?: string;
    readonly metadata?: { readonly [key: string]: string };
  };
  readonly bake?: string;
  readonly ackTimeout?: string;
  readonly traffic?: TrafficGatePlan | false;
}

function shareText(share: Exclude<WaveShare, { t: "selector" }>): number | string {
  return share.t === "count" ? share.count : `${share.percent}%`;
}

/**
 * A wave's share in words, as the console, `rollout status` and the API's RolloutWave say it:
 * "1 node", "10%", "nodes matching id canary-* or edge-1, zone eu-1a, track=canary".
 */
export function waveShareText(share: WaveShare): string {
  switch (share.t) {
    case "count":
      return `${share.count} node${share.count === 1 ? "" : "s"}`;
    case "percent":
      return `${share.percent}%`;
    case "selector": {
      const { ids, zone, metadata } = share.selector;
      const parts = [
        ...(ids.length > 0 ? [`id ${ids.join(" or ")}`] : []),
        ...(zone === undefined ? [] : [`zone ${zone}`]),
        ...Object.entries(metadata).map(([k, v]) => `${k}=${v}`),
      ];
      return `nodes matching ${parts.join(", ")}`;
    }
  }
}

function selectorDocument(selector: NodeSelector): NonNullable<WaveDocument["nodes"]> {
  return {
    ...(selector.ids.length > 0 ? { ids: selector.ids } : {}),
    ...(selector.zone !== undefined ? { zone: selector.zone } : {}),
    ...(Object.keys(selector.metadata).length > 0 ? { metadata: selector.metadata } : {}),
  };
}

function sameGate(a: TrafficGatePlan | undefined, b: TrafficGatePlan | undefined): boolean {
  return (
    a?.maxErrorIncrease === b?.maxErrorIncrease &&
    a?.minRequests === b?.minRequests &&
    a?.withoutTraffic === b?.withoutTraffic
  );
}

function waveDocument(wave: WavePlan, first: WavePlan): number | string | WaveDocument {
  const own: WaveDocument = {
    ...(wave.bakeMs !== first.bakeMs ? { bake: durationText(wave.bakeMs) } : {}),
    ...(wave.ackTimeoutMs !== first.ackTimeoutMs
      ? { ackTimeout: durationText(wave.ackTimeoutMs) }
      : {}),
    ...(!sameGate(wave.traffic, first.traffic) ? { traffic: wave.traffic ?? false } : {}),
  };
  if (wave.share.t === "selector") return { nodes: selectorDocument(wave.share.selector), ...own };
  const share = shareText(wave.share);
  return Object.keys(own).length === 0 ? share : { share, ...own };
}

/** The document of `plan`; `planOf(planDocument(plan))` is `plan`. */
export function planDocument(plan: RolloutPlan): PlanDocument {
  const first = plan.waves[0];
  if (!first) throw new Error("a plan has at least one wave");
  return {
    ...(plan.name !== undefined ? { name: plan.name } : {}),
    onFailure: plan.onFailure,
    bake: durationText(first.bakeMs),
    ackTimeout: durationText(first.ackTimeoutMs),
    ...(first.traffic ? { traffic: first.traffic } : {}),
    waves: plan.waves.map((wave) => waveDocument(wave, first)),
  };
}

function gateText(gate: TrafficGatePlan | undefined): string {
  if (!gate) return "ACKs only";
  return `errors at most ${gate.maxErrorIncrease} points above the previous version's over ${gate.minRequests} requests (${gate.withoutTraffic === "pass" ? "passes" : "fails"} without them)`;
}

/**
 * "waves 1, 10%, 50%, 100%; bake 2m, ACKs within 30s, errors at most 2 points above ...; on
 * failure roll back", then each wave that differs: "wave 3: bake 10m".
 */
export function describePlan(plan: RolloutPlan): string {
  const doc = planDocument(plan);
  const first = plan.waves[0];
  const shares = plan.waves.map((w) =>
    w.share.t === "selector" ? "selected nodes" : shareText(w.share),
  );
  const parts = [
    `waves ${shares.join(", ")}`,
    `bake ${doc.bake}, ACKs within ${doc.ackTimeout}, ${gateText(first?.traffic)}`,
    `on failure ${plan.onFailure === "rollback" ? "roll back" : "pause"}`,
  ];
  doc.waves.forEach((wave, i) => {
    if (typeof wave !== "object") return;
    const own = [
      ...(wave.bake !== undefined ? [`bake ${wave.bake}`] : []),
      ...(wave.ackTimeout !== undefined ? [`ACKs within ${wave.ackTimeout}`] : []),
      ...(wave.traffic !== undefined ? [gateText(wave.traffic || undefined)] : []),
    ];
    if (own.length > 0) parts.push(`wave ${i + 1}: ${own.join(", ")}`);
  });
  return parts.join("; ");
}
