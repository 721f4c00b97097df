import { readFileSync } from "node:fs";
import type { ServeProcess } from "./processes.js";

/**
 * Watching a real `switchyard serve` from outside during a fault: that its API keeps answering,
 * and how much memory it takes. A liveness check, not a speed measure (speed is `npm run bench`).
 */

export interface MemorySample {
  /** When the sample was read (ms, Date.now()). */
  readonly at: number;
  /** `process_resident_memory_bytes`. */
  readonly residentBytes: number;
  /**
   * `nodejs_external_memory_bytes`: memory outside the V8 heap, where encoded resources (their
   * Uint8Array bodies) and the buffers of responses being written live.
   */
  readonly externalBytes: number;
}

/** The server's memory, from its own `/metrics`. */
export async function memoryOf(serve: ServeProcess): Promise<MemorySample> {
  const response = await fetch(`${serve.baseUrl}/metrics`);
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
  const text = await response.text();
  const metric = (name: string): number => {
    const value = new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1];
    if (value === undefined) throw new Error(`GET /metrics has no ${name}`);
    return Number(value);
  };
  return {
    at: Date.now(),
    residentBytes: metric("process_resident_memory_bytes"),
    externalBytes: metric("nodejs_external_memory_bytes"),
  };
}

/**
 * The process's peak resident set since it started (Linux's VmHWM, which no sampling can miss),
 * or undefined where /proc is not there.
 */
export function peakResidentBytes(serve: ServeProcess): number | undefined {
  const pid = serve.child.pid;
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

export interface Probe {
  /** Rounds answered: when each started and ended (ms, Date.now()). */
  readonly calls: ReadonlyArray<{ readonly start: number; readonly end: number }>;
  /** One per round. */
  readonly memory: readonly MemorySample[];
  /** The slowest round, in ms. */
  readonly slowestMs: number;
  /** The largest resident set seen: the samples', or the process's own peak when known. */
  readonly peakResidentBytes: number;
}

/**
 * Calls the server's API (`call`, then GET /metrics) in rounds, back to back, until `stop`. Each
 * round must answer within `boundMs`, or the probe fails: `stop()` rejects with what went wrong.
 * `memory` fills as it goes, for a test to read while the probe runs.
 */
export function probeServer(
  serve: ServeProcess,
  call: () => Promise<unknown>,
  boundMs: number,
): { readonly memory: readonly MemorySample[]; stop(): Promise<Probe> } {
  const calls: Array<{ start: number; end: number }> = [];
  const memory: MemorySample[] = [];
  let stopping = false;
  const running = (async () => {
    while (!stopping) {
      const start = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the server's API did not answer within ${boundMs} ms`)),
          boundMs,
        );
      });
      try {
        await Promise.race([
          (async () => {
            await call();
            memory.push(await memoryOf(serve));
          })(),
          late,
        ]);
      } finally {
        clearTimeout(timer);
      }
      calls.push({ start, end: Date.now() });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  // A failure is reported by stop(), not as an unhandled rejection before it.
  running.catch(() => undefined);
  return {
    memory,
    async stop() {
      stopping = true;
      await running;
      return {
        calls,
        memory,
        slowestMs: Math.max(0, ...calls.map((c) => c.end - c.start)),
        peakResidentBytes: Math.max(
          peakResidentBytes(serve) ?? 0,
          ...memory.map((m) => m.residentBytes),
        ),
      };
    },
  };
}

/**
 * The least-squares slope of `points` ([x, y] pairs): how much y grows per unit of x, all
 * samples weighing alike, so that where a garbage collection happens to fall matters little.
 */
export function slope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  if (n < 2) throw new Error("a slope needs two points at least");
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const [x, y] of points) {
    covariance += (x - meanX) * (y - meanY);
    variance += (x - meanX) ** 2;
  }
  if (variance === 0) throw new Error("a slope needs two different x at least");
  return covariance / variance;
}
