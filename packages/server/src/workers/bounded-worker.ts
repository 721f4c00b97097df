// Work a caller chooses the size of (an import's megabytes, a route test's cases), run off the
// event loop that serves the API and xDS: one worker thread (piscina) with a heap limit, a time
// limit and a bounded queue. A worker that runs out of memory or time is ended and replaced, and
// the caller gets an error that says which limit it hit and what to do, never Internal.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger } from "pino";
import { Piscina } from "piscina";

export interface BoundedWorkerLimits {
  /** Heap of the worker thread, in MiB. */
  readonly heapMb: number;
  /**
   * The longest one job may take, waiting included. Also the bound on a worker that dies while
   * starting, which piscina does not report to the task waiting for it.
   */
  readonly timeoutMs: number;
  /** Jobs that may wait while one runs; more are refused as RESOURCE_EXHAUSTED. */
  readonly maxQueue: number;
}

/** How a kind of job is spoken of in refusals. */
export interface JobWords {
  /** What the job does, as a refusal starts: "checking the route tests". */
  readonly doing: string;
  /** What one job is, for the limits: "one check". */
  readonly one: string;
  /** What to do when a limit is hit: "send fewer cases". */
  readonly fix: string;
  /** What waits, when the queue is full: "route test checks". */
  readonly waiting: string;
}

export interface BoundedWorker<Job> {
  /** Runs `job` with the worker module's export `name` (its default export when not given). */
  run<T>(job: Job, words: JobWords, options?: { name?: string; signal?: AbortSignal }): Promise<T>;
  close(): Promise<void>;
}

/**
 * A worker for `module` (a file beside the caller, named without its extension: its TypeScript
 * source under tsx in tests, its build output otherwise), `label` naming it in the log.
 */
export function createBoundedWorker<Job>(
  module: URL,
  label: string,
  limits: BoundedWorkerLimits,
  logger?: Logger,
): BoundedWorker<Job> {
  const { heapMb, timeoutMs, maxQueue } = limits;
  const fromSource = import.meta.url.endsWith(".ts");
  const pool = new Piscina<Job, unknown>({
    filename: `${module.href}.${fromSource ? "ts" : "js"}`,
    execArgv: fromSource ? ["--import", "tsx"] : [],
    minThreads: 0,
    maxThreads: 1,
    // Kept a minute after use: starting one (loading the Envoy registry) takes a few hundred ms.
    idleTimeout: 60_000,
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
  });
  // A worker's death is reported to the task it ran; between tasks it would be an 'error' event,
  // which unhandled would end the process.
  pool.on("error", (error: unknown) => logger?.error({ err: error }, `${label} failed`));
  // Jobs being run or waiting. Counted here: piscina's own maxQueue does not count tasks that
  // can be aborted, which every job is.
  let inFlight = 0;
  return {
    async run<T>(job: Job, words: JobWords, options: { name?: string; signal?: AbortSignal } = {}) {
      if (inFlight > maxQueue)
        throw new ConnectError(
          `${maxQueue} ${words.waiting} are already waiting: try again once they are done`,
          Code.ResourceExhausted,
        );
      const timeout = AbortSignal.timeout(timeoutMs);
      inFlight += 1;
      try {
        return (await pool.run(job, {
          ...(options.name === undefined ? {} : { name: options.name }),
          signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
        })) as T;
      } catch (error) {
        throw limitHit(error, words, limits, timeout.aborted);
      } finally {
        inFlight -= 1;
      }
    },
    async close() {
      await pool.close({ force: true });
    },
  };
}

function limitHit(
  error: unknown,
  words: JobWords,
  limits: BoundedWorkerLimits,
  timedOut: boolean,
): ConnectError {
  if (timedOut)
    return new ConnectError(
      `${words.doing} took longer than ${limits.timeoutMs / 1000} s, the most ${words.one} may take: ${words.fix}`,
      Code.DeadlineExceeded,
    );
  if ((error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY")
    return new ConnectError(
      `${words.doing} needed more than the ${limits.heapMb} MiB ${words.one} may use: ${words.fix}`,
      Code.ResourceExhausted,
    );
  if (error instanceof Error && error.name === "AbortError")
    return new ConnectError(`${words.doing} was cancelled`, Code.Canceled);
  const message = error instanceof Error ? error.message : String(error);
  return new ConnectError(
    `${words.doing} failed: ${message}`,
    Code.Internal,
    undefined,
    undefined,
    error,
  );
}
