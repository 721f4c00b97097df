/**
 * An xDS worker process (xds-workers.ts): waits for its settings from the main process, serves
 * xDS as an xDS-only replica, answers metrics requests, and stops when told to, or when the main
 * process is gone.
 *
 * Signals are the main process's to act on: Ctrl-C in a terminal reaches the whole process group,
 * and a worker that stopped on its own would lose the order of the shutdown (drain the xDS port,
 * write the last disconnects, then stop the database).
 */
import cluster from "node:cluster";
import { pino } from "pino";
import { routeConsoleToLogger } from "./console-log.js";
import { startXdsReplica, type XdsReplica } from "./replica.js";
import type { FromWorker, ToWorker } from "./xds-workers.js";

process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});

const send = (message: FromWorker) => process.send?.(message);
let starting: Promise<XdsReplica | undefined> | undefined;
let stopping = false;

/** Stops once: after the start, if one is under way, so what it started is stopped too. */
const stop = async () => {
  if (stopping) return;
  stopping = true;
  try {
    await (await starting)?.stop();
  } finally {
    process.exit(0);
  }
};

process.on("message", (message: ToWorker) => {
  if (message.t === "start") {
    const logger = pino({ level: message.logLevel, base: { worker: cluster.worker?.id } });
    routeConsoleToLogger(logger);
    starting = startXdsReplica(message.settings, logger, message.rollouts).then(
      (replica) => {
        send({ t: "listening", port: replica.xdsPort });
        return replica;
      },
      (error: unknown) => {
        stopping = true;
        const failed: FromWorker = {
          t: "failed",
          message: error instanceof Error ? error.message : String(error),
        };
        process.send?.(failed, () => process.exit(1));
        return undefined;
      },
    );
  } else if (message.t === "rollout") {
    // After the start, in the order sent (RolloutServing carries commands out in order).
    void starting?.then((replica) =>
      replica?.rollouts
        .command(message.command)
        .catch((error: unknown) =>
          send({ t: "rollout-failed", command: message.command, message: String(error) }),
        ),
    );
  } else if (message.t === "metrics") {
    void starting
      ?.then((replica) => replica?.metrics.registry.getMetricsAsJSON())
      .then((metrics) => metrics && send({ t: "metrics", id: message.id, metrics }));
  } else if (message.t === "stop") void stop();
});

// Told only now: a message sent before the listener above was attached would be lost.
send({ t: "ready" });

// The main process is gone (killed outright): stop serving rather than serve a stale snapshot.
process.on("disconnect", () => void stop());
