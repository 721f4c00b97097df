import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { consoleRecord, routeConsoleToLogger } from "./console-log.js";

const METHODS = ["debug", "trace", "log", "info", "warn", "error"] as const;

describe("what libraries print, in the server's JSON log", () => {
  let saved: Record<string, unknown>;
  let warningListeners: NodeJS.WarningListener[];
  let lines: string[];
  let logger: pino.Logger;

  beforeEach(() => {
    saved = Object.fromEntries(METHODS.map((m) => [m, console[m]]));
    warningListeners = process.listeners("warning");
    lines = [];
    const out = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split("\n").filter(Boolean));
        done();
      },
    });
    logger = pino({ level: "debug", base: null }, out);
  });
  afterEach(() => {
    Object.assign(console, saved);
    process.removeAllListeners("warning");
    for (const listener of warningListeners) process.on("warning", listener);
  });

  const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  it("logs connect-node's `handler for rpc … failed` for a client that reset its connection at debug, as JSON", () => {
    routeConsoleToLogger(logger);
    const reset = Object.assign(new Error("aborted"), { code: "ECONNRESET" });
    console.error("handler for rpc WatchNodes of switchyard.v1.StatusService failed", reset);

    expect(records()).toEqual([
      expect.objectContaining({
        level: 20,
        msg: "handler for rpc WatchNodes of switchyard.v1.StatusService failed",
        err: expect.objectContaining({ message: "aborted", code: "ECONNRESET" }),
      }),
    ]);
  });

  it("logs any other console.error as an error, and console.log and warn at their levels", () => {
    routeConsoleToLogger(logger);
    console.error("handler for rpc Publish failed", new TypeError("x is undefined"));
    console.warn("deprecated option %s", "foo");
    console.log("ready");

    expect(records().map((r) => [r.level, r.msg])).toEqual([
      [50, "handler for rpc Publish failed"],
      [40, "deprecated option foo"],
      [30, "ready"],
    ]);
  });

  it("logs Node's process warnings as JSON warnings instead of Node's own stderr line", async () => {
    routeConsoleToLogger(logger);
    expect(process.listeners("warning")).toHaveLength(1);
    process.emitWarning("too many listeners", "MaxListenersExceededWarning");
    await new Promise((resolve) => setImmediate(resolve));

    expect(records()).toEqual([
      expect.objectContaining({
        level: 40,
        msg: "too many listeners",
        err: expect.objectContaining({ name: "MaxListenersExceededWarning" }),
      }),
    ]);
  });

  it("gives the console and Node's warning printer back when told", () => {
    const before = process.listeners("warning");
    const printError = console.error;
    const restore = routeConsoleToLogger(logger);
    restore();
    expect(console.error).toBe(printError);
    expect(process.listeners("warning")).toEqual(before);
    console.info("after");
    expect(lines).toEqual([]);
  });

  it("keeps the message when a line is only an error", () => {
    expect(consoleRecord("error", [new Error("boom")])).toEqual({
      level: "error",
      err: expect.any(Error),
      msg: "boom",
    });
  });
});
