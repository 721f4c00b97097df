/**
 * xDS served by worker processes (`serve --xds-workers N`), so that fanning a change out to a
 * fleet uses every core and never holds up the API, the console or a publish.
 *
 * The workers share the xDS port through node:cluster (the main process accepts connections and
 * hands them round-robin to the workers). Each worker is an xDS-only replica
 * (replica.ts startXdsReplica) of the replica model Switchyard already has on one database: it
 * loads the published snapshot, follows publishes through NOTIFY, writes its nodes' status rows
 * under its own replica id and lease. So the console, status and convergence stay one view of
 * the fleet whichever process serves a node, and a worker that dies is reaped like any replica
 * (its nodes reconnect to the others at once) and replaced.
 *
 * The main process asks each worker for its metrics when /metrics is read and sums them with its
 * own (prom-client's AggregatorRegistry.aggregate).
 *
 * Workers run at a lower CPU priority than the main process (WORKER_NICENESS): fanning a change
 * out to a fleet is bulk work that may take every core for seconds, while a publish, the API and
 * the console answer people. On a machine with cores to spare it changes nothing; on a busy one
 * the main process goes first. (Timed in the Publish handler at 5,000 nodes on 2 cores: rendering
 * its answer while the workers fanned out the version it had just committed took 77–219 ms, and
 * 26–133 ms with the workers nicer.)
 */
import cluster, { type Worker } from "node:cluster";
import { existsSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import type { MetricsJson } from "./metrics.js";
import type { XdsReplicaSettings } from "./replica.js";
import type { ServingCommand } from "./rollout-serving.js";
import { StartupError } from "./startup-error.js";

/** What the main process tells a worker. */
export type ToWorker =
  | {
      readonly t: "start";
      readonly settings: XdsReplicaSettings;
      readonly logLevel: string;
      /** The rollouts under way when it starts (RolloutServing.replay). */
      readonly rollouts: readonly ServingCommand[];
    }
  /** A rollout's next step, in the order the main process was given them. */
  | { readonly t: "rollout"; readonly command: ServingCommand }
  | { readonly t: "metrics"; readonly id: number }
  | { readonly t: "stop" };

/** What a worker tells the main process. */
export type FromWorker =
  | { readonly t: "ready" }
  | { readonly t: "listening"; readonly port: number }
  | { readonly t: "failed"; readonly message: string }
  /** A rollout's step could not be carried out (RolloutServing.command rejected). */
  | { readonly t: "rollout-failed"; readonly command: ServingCommand; readonly message: string }
  | { readonly t: "metrics"; readonly id: number; readonly metrics: MetricsJson };

/**
 * V8's young generation for a worker, in MB per semi-space (Node's default is 16): a fan-out
 * allocates each stream's response and its bookkeeping, which live until the node's ACK, a few
 * hundred milliseconds later. With the default most of it survives two scavenges and is copied
 * into the old generation, to be marked and compacted later; with room for a whole fan-out it dies
 * young. Measured at 2,000 nodes (the fleet bench's config and fleet, ten one-route changes each,
 * median CPU per change): 0.77 s with the default, 0.65 s with 64, 0.63 s with 128. The
 * semi-spaces grow only as a worker's allocation rate needs them, to ~110 MB more RSS per busy
 * worker. A --max-semi-space-size in NODE_OPTIONS or the server's own flags wins.
 */
export const WORKER_SEMI_SPACE_MB = 64;

/** How much nicer than the main process a worker is (setpriority(2): 0 normal, 19 the nicest). */
const WORKER_NICENESS = 5;

export interface XdsWorkersOptions {
  readonly count: number;
  /** What every worker starts with; `xdsPort` 0 picks a free port, shared by all. */
  readonly settings: XdsReplicaSettings;
  readonly logger: Logger;
  /** How long a worker may take to drain and stop before it is killed. Default 30 s. */
  readonly stopTimeoutMs?: number;
  /**
   * The rollouts under way, for a worker starting now (the main process's
   * RolloutServing.replay): a worker replaced mid-rollout serves each node its version.
   */
  readonly rollouts?: () => readonly ServingCommand[];
}

export interface XdsWorkers {
  /** The xDS port every worker serves. */
  readonly port: number;
  /** Each live worker's metrics; a worker that does not answer within 2 s is left out. */
  metrics(): Promise<MetricsJson[]>;
  /**
   * Carries a rollout's step to every worker (rollout-serving.ts), as the main process carries
   * it out on its own cache; a worker started later gets the rollouts then under way instead.
   */
  rollout(command: ServingCommand): void;
  /** Asks every worker to drain its streams and stop, and waits until they have. Idempotent. */
  close(): Promise<void>;
}

/** The worker entry beside this file (xds-worker-main.js when built). */
function workerEntry(): string {
  const here = fileURLToPath(import.meta.url);
  const entry = path.join(path.dirname(here), `xds-worker-main${path.extname(here)}`);
  if (!existsSync(entry)) throw new StartupError(`the xDS worker entry ${entry} is missing`);
  return entry;
}

/** The server's own Node flags, with the workers' young generation unless one was given. */
function workerExecArgv(): string[] {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((flag) =>
    /--max[-_]semi[-_]space[-_]size/.test(flag),
  );
  return given
    ? process.execArgv
    : [...process.execArgv, `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`];
}

/** Restarts of a worker that keeps dying wait longer each time, up to this. */
const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that lived this long before dying is restarted at once. */
const HEALTHY_AFTER_MS = 10_000;

/**
 * Forks `count` xDS workers and resolves once each listens on the xDS port; rejects (having
 * stopped the ones started) if any fails to start, with that worker's own message.
 */
export async function startXdsWorkers(options: XdsWorkersOptions): Promise<XdsWorkers> {
  const { logger, count } = options;
  cluster.setupPrimary({
    exec: workerEntry(),
    args: [],
    execArgv: workerExecArgv(),
    serialization: "advanced",
  });
  const live = new Set<Worker>();
  /** Workers listening for messages: one not yet would not hear "stop". */
  const ready = new WeakSet<Worker>();
  let closing: Promise<void> | undefined;
  let restartDelayMs = 1_000;
  let metricsRequest = 0;

  const fork = (settings: XdsReplicaSettings, initial: boolean): Promise<number> => {
    const worker = cluster.fork();
    lowerPriority(worker, logger);
    const startedAt = Date.now();
    live.add(worker);
    return new Promise<number>((resolve, reject) => {
      let listening = false;
      worker.on("message", (message: FromWorker) => {
        if (message.t === "ready") {
          ready.add(worker);
          const start: ToWorker = {
            t: "start",
            settings,
            logLevel: logger.level,
            rollouts: options.rollouts?.() ?? [],
          };
          worker.send(start);
        } else if (message.t === "listening") {
          listening = true;
          resolve(message.port);
        } else if (message.t === "failed") reject(new StartupError(message.message));
        else if (message.t === "rollout-failed")
          logger.error(
            { worker: worker.id, command: message.command, problem: message.message },
            "an xDS worker could not carry out a rollout's step",
          );
      });
      worker.once("exit", (code, signal) => {
        live.delete(worker);
        if (!listening)
          reject(
            new StartupError(
              `an xDS worker stopped while starting (${signal ?? `exit code ${code}`})`,
            ),
          );
        // A worker that fails its first start fails the whole start; any other is replaced,
        // sooner the longer it lived.
        if (closing !== undefined || (initial && !listening)) return;
        const lived = Date.now() - startedAt;
        restartDelayMs =
          lived > HEALTHY_AFTER_MS
            ? 0
            : Math.min(MAX_RESTART_DELAY_MS, restartDelayMs * 2 || 1_000);
        logger.error(
          { worker: worker.id, code, signal, restartInMs: restartDelayMs },
          "an xDS worker stopped unexpectedly: its proxies reconnect to the other workers; starting another",
        );
        setTimeout(() => {
          if (closing !== undefined) return;
          fork(settings, false).catch((error: unknown) =>
            logger.error({ err: error }, "starting an xDS worker again failed"),
          );
        }, restartDelayMs).unref();
      });
    });
  };

  const stopWorker = (worker: Worker, timeoutMs: number) =>
    new Promise<void>((resolve) => {
      if (worker.isDead()) {
        resolve();
        return;
      }
      const kill = setTimeout(() => {
        logger.warn({ worker: worker.id }, "an xDS worker did not stop in time; killing it");
        worker.process.kill("SIGKILL");
      }, timeoutMs);
      worker.once("exit", () => {
        clearTimeout(kill);
        resolve();
      });
      const stop: ToWorker = { t: "stop" };
      // One not yet told its settings has started nothing that needs stopping in order.
      if (worker.isConnected() && ready.has(worker)) worker.send(stop);
      else worker.process.kill("SIGKILL");
    });

  const close = () => {
    closing ??= Promise.all(
      [...live].map((worker) => stopWorker(worker, options.stopTimeoutMs ?? 30_000)),
    ).then(() => undefined);
    return closing;
  };

  try {
    // Asked for port 0, every worker gets the same free port: node:cluster shares one listening
    // handle per address and port asked for (and so a replaced worker is asked for 0 again).
    const [port = 0] = await Promise.all(
      Array.from({ length: count }, () => fork(options.settings, true)),
    );
    logger.info({ workers: count, xdsPort: port }, "xDS served by worker processes");
    return {
      port,
      close,
      rollout: (command) => {
        const message: ToWorker = { t: "rollout", command };
        for (const worker of live)
          if (ready.has(worker) && worker.isConnected()) worker.send(message);
      },
      metrics: () => {
        const id = ++metricsRequest;
        return Promise.all(
          [...live]
            .filter((worker) => worker.isConnected())
            .map(
              (worker) =>
                new Promise<MetricsJson | undefined>((resolve) => {
                  const timer = setTimeout(() => done(undefined), 2_000);
                  const onMessage = (message: FromWorker) => {
                    if (message.t === "metrics" && message.id === id) done(message.metrics);
                  };
                  const done = (metrics: MetricsJson | undefined) => {
                    clearTimeout(timer);
                    worker.off("message", onMessage);
                    worker.off("exit", onExit);
                    resolve(metrics);
                  };
                  const onExit = () => done(undefined);
                  worker.on("message", onMessage);
                  worker.once("exit", onExit);
                  const request: ToWorker = { t: "metrics", id };
                  worker.send(request);
                }),
            ),
        ).then((all) => all.filter((metrics) => metrics !== undefined));
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Makes `worker` WORKER_NICENESS nicer than this process; where it cannot, says so and goes on. */
function lowerPriority(worker: Worker, logger: Logger): void {
  const { pid } = worker.process;
  if (pid === undefined) return;
  try {
    os.setPriority(pid, Math.min(os.getPriority() + WORKER_NICENESS, 19));
  } catch (error) {
    logger.debug({ err: error, pid }, "could not lower an xDS worker's CPU priority");
  }
}
