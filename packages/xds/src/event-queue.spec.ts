import { describe, expect, it } from "vitest";
import { EventQueue } from "./event-queue.js";

type Event = { t: "request"; n: number } | { t: "snapshot"; version: number } | { t: "tick" };

const isSnapshot = (e: Event) => e.t === "snapshot";

/** Takes the next `count` events from an iterator over `queue`. */
async function take(iterator: AsyncIterator<Event>, count: number): Promise<Event[]> {
  const taken: Event[] = [];
  for (let i = 0; i < count; i++) {
    const next = await iterator.next();
    if (next.done) break;
    taken.push(next.value);
  }
  return taken;
}

/**
 * Whether `promise` has settled after the pending callbacks ran. The queue runs on promises alone:
 * by the next turn of the event loop every callback it set off has run, so one not settled then
 * waits for the test to act.
 */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

describe("EventQueue", () => {
  it("yields pushed events in order, then ends after close", async () => {
    const queue = new EventQueue<Event>();
    queue.push({ t: "request", n: 1 });
    queue.push({ t: "tick" });
    queue.close();
    queue.push({ t: "request", n: 2 });
    const seen: Event[] = [];
    for await (const event of queue) seen.push(event);
    expect(seen).toEqual([{ t: "request", n: 1 }, { t: "tick" }]);
  });

  it("a consumer that does not keep up holds one snapshot however many are pushed: the latest, in the place of the first", async () => {
    const queue = new EventQueue<Event>();
    queue.push({ t: "request", n: 1 });
    for (let version = 1; version <= 1000; version++) {
      queue.pushLatest({ t: "snapshot", version }, isSnapshot);
      if (version === 1) queue.push({ t: "request", n: 2 });
    }
    expect(queue.size).toBe(3);
    queue.close();
    const seen: Event[] = [];
    for await (const event of queue) seen.push(event);
    expect(seen).toEqual([
      { t: "request", n: 1 },
      { t: "snapshot", version: 1000 },
      { t: "request", n: 2 },
    ]);
  });

  it("a snapshot pushed after the previous one was consumed is queued, not dropped", async () => {
    const queue = new EventQueue<Event>();
    const events = queue[Symbol.asyncIterator]();
    queue.pushLatest({ t: "snapshot", version: 1 }, isSnapshot);
    expect(await take(events, 1)).toEqual([{ t: "snapshot", version: 1 }]);
    queue.pushLatest({ t: "snapshot", version: 2 }, isSnapshot);
    queue.pushLatest({ t: "tick" }, (e) => e.t === "tick");
    queue.pushLatest({ t: "tick" }, (e) => e.t === "tick");
    expect(await take(events, 2)).toEqual([{ t: "snapshot", version: 2 }, { t: "tick" }]);
    expect(queue.size).toBe(0);
  });

  it("room waits while `limit` counted events are queued, and resolves as the consumer takes one", async () => {
    const queue = new EventQueue<Event>();
    const isRequest = (e: Event) => e.t === "request";
    queue.push({ t: "request", n: 1 });
    queue.push({ t: "snapshot", version: 1 });
    queue.push({ t: "request", n: 2 });
    // Uncounted events do not take room.
    expect(await settled(queue.room(3, isRequest))).toBe(true);
    const waiting = queue.room(2, isRequest);
    expect(await settled(waiting)).toBe(false);
    const events = queue[Symbol.asyncIterator]();
    await take(events, 1);
    expect(await settled(waiting)).toBe(true);
  });

  it("room resolves when the queue ends, so a waiting producer is never left behind", async () => {
    const closed = new EventQueue<Event>();
    closed.push({ t: "request", n: 1 });
    const onClose = closed.room(1, () => true);
    closed.close();
    expect(await settled(onClose)).toBe(true);

    const failed = new EventQueue<Event>();
    failed.push({ t: "request", n: 1 });
    const onFail = failed.room(1, () => true);
    failed.fail(new Error("the stream failed"));
    expect(await settled(onFail)).toBe(true);
  });

  it("a consumer that stops early ends the queue: a waiting producer is released, later events dropped", async () => {
    const queue = new EventQueue<Event>();
    queue.push({ t: "request", n: 1 });
    const waiting = queue.room(1, () => true);
    expect(await settled(waiting)).toBe(false);
    for await (const event of queue) {
      expect(event).toEqual({ t: "request", n: 1 });
      break;
    }
    expect(await settled(waiting)).toBe(true);
    queue.push({ t: "request", n: 2 });
    expect(queue.size).toBe(0);
  });

  it("fail ends the iteration with the error once the queued events are taken", async () => {
    const queue = new EventQueue<Event>();
    queue.push({ t: "tick" });
    queue.fail(new Error("malformed request"));
    const events = queue[Symbol.asyncIterator]();
    expect(await take(events, 1)).toEqual([{ t: "tick" }]);
    await expect(events.next()).rejects.toThrow("malformed request");
  });
});
