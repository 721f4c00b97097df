import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sleepUnlessAborted } from "./abortable-sleep.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("sleepUnlessAborted", () => {
  it("leaves no listener on the signal after each wait, however many a watch sleeps", async () => {
    vi.useFakeTimers();
    const signal = new AbortController().signal;
    for (let i = 0; i < 20; i++) {
      const slept = sleepUnlessAborted(250, signal);
      await vi.advanceTimersByTimeAsync(250);
      await slept;
    }
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("ends at once when the signal aborts, with no timer left behind", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const slept = sleepUnlessAborted(60_000, controller.signal);
    controller.abort();
    await slept;
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
