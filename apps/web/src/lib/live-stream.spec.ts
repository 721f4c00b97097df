import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { isRetryable, reconnectDelayMs } from "./live-stream";

describe("isRetryable", () => {
  it("reconnects after a server restart or a network failure", () => {
    expect(isRetryable(new ConnectError("gone", Code.Unavailable))).toBe(true);
    expect(isRetryable(new TypeError("Failed to fetch"))).toBe(true);
  });
  it("does not reconnect when the server refused the request itself", () => {
    expect(isRetryable(new ConnectError("no such node", Code.NotFound))).toBe(false);
    expect(isRetryable(new ConnectError("no watch", Code.Unimplemented))).toBe(false);
  });
});

describe("reconnectDelayMs", () => {
  it("doubles from half a second and stops growing at 15 seconds", () => {
    expect([1, 2, 3, 4, 10].map((n) => reconnectDelayMs(n, 0.5))).toEqual([
      500, 1000, 2000, 4000, 15000,
    ]);
  });
  it("spreads reconnects by ±20 %", () => {
    expect(reconnectDelayMs(2, 0)).toBe(800);
    expect(reconnectDelayMs(2, 0.999999)).toBe(1200);
  });
});
