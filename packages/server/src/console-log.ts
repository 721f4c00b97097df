/**
 * Everything a running server writes is a JSON log record (issue 46): what its libraries print
 * with `console.*` (connect-node's `handler for rpc … failed`, Next.js's request errors, Prisma's
 * warnings) and the warnings Node emits (`process.emitWarning`: MaxListenersExceededWarning,
 * deprecations), which would otherwise reach stderr as lines of their own format that a log
 * pipeline cannot parse. A line that says only that a client went away (ECONNRESET, EPIPE, a
 * cancelled stream: @switchyard/xds peerWentAway) is logged at debug: a tab closing is no error.
 */
import { format } from "node:util";
import { peerWentAway } from "@switchyard/xds";
import type { Logger } from "pino";

type Level = "debug" | "info" | "warn" | "error";

/** The console methods routed, and the level each logs at. */
const LEVELS: Readonly<Record<"debug" | "log" | "info" | "warn" | "error" | "trace", Level>> = {
  debug: "debug",
  trace: "debug",
  log: "info",
  info: "info",
  warn: "warn",
  error: "error",
};

/** One console call as a log record: its text as util.format makes it, its first Error as err. */
export function consoleRecord(
  level: Level,
  args: readonly unknown[],
): { level: Level; err?: Error; msg: string } {
  const err = args.find((arg): arg is Error => arg instanceof Error);
  const went = err !== undefined && peerWentAway(err);
  // Text before the error, when there is some, is the message (connect-node's "handler for rpc
  // X of Y failed"); the error goes whole, with its stack and causes, under err.
  const text = args.filter((arg) => arg !== err);
  return {
    level: went && (level === "error" || level === "warn") ? "debug" : level,
    ...(err === undefined ? {} : { err }),
    msg: text.length > 0 ? format(...text) : (err?.message ?? ""),
  };
}

/**
 * Sends `console.*` and Node's process warnings to `logger` until the returned function is
 * called. Node's own printing of warnings is a 'warning' listener it adds at start-up (unless
 * --no-warnings); it is replaced meanwhile.
 */
export function routeConsoleToLogger(logger: Logger): () => void {
  const savedConsole = Object.fromEntries(
    Object.keys(LEVELS).map((m) => [m, Reflect.get(console, m)]),
  );
  const savedListeners = process.listeners("warning");
  const log = (level: Level, args: readonly unknown[]) => {
    const { level: at, err, msg } = consoleRecord(level, args);
    if (err === undefined) logger[at](msg);
    else logger[at]({ err }, msg);
  };
  for (const [method, level] of Object.entries(LEVELS)) {
    (console as unknown as Record<string, (...args: unknown[]) => void>)[method] = (...args) =>
      log(level, args);
  }
  const onWarning = (warning: Error) => logger.warn({ err: warning }, warning.message);
  process.removeAllListeners("warning");
  process.on("warning", onWarning);
  return () => {
    Object.assign(console, savedConsole);
    process.off("warning", onWarning);
    for (const listener of savedListeners) process.on("warning", listener);
  };
}
