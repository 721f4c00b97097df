import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenForNotifications, type NotificationListener } from "./notifications.js";
import { createTestDatabase, type TestDatabase } from "./testing/index.js";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

async function notify(channel: string, payload: string): Promise<void> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query("SELECT pg_notify($1, $2)", [channel, payload]);
  } finally {
    await client.end();
  }
}

/** Polls in real time: what is awaited comes from PostgreSQL, over a real connection. */
async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("listenForNotifications", () => {
  let listener: NotificationListener | undefined;
  afterAll(() => listener?.close());

  it("delivers NOTIFY payloads on the channels it listens to, and only those", async () => {
    const received: Array<[string, string]> = [];
    listener = await listenForNotifications({
      url: database.url,
      channels: ["switchyard_a", "switchyard_b"],
      onNotification: (channel, payload) => received.push([channel, payload]),
    });
    await notify("switchyard_other", "x");
    await notify("switchyard_a", "1");
    await notify("switchyard_b", "2");
    await until(() => received.length === 2, "two notifications");
    expect(received).toEqual([
      ["switchyard_a", "1"],
      ["switchyard_b", "2"],
    ]);
    await listener.close();
  });

  it("reconnects after its connection is killed, asks for a resync, then delivers again", async () => {
    const received: string[] = [];
    let resyncs = 0;
    const errors: unknown[] = [];
    listener = await listenForNotifications({
      url: database.url,
      channels: ["switchyard_a"],
      onNotification: (_channel, payload) => received.push(payload),
      onResync: () => resyncs++,
      onError: (error) => errors.push(error),
      retryMs: 20,
    });
    expect(resyncs).toBe(0);
    // What a database restart or a failover does to the session.
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`,
    );
    await admin.end();
    await until(() => resyncs === 1, "the resync after reconnecting");
    expect(listener.connected).toBe(true);
    expect(errors.length).toBeGreaterThan(0);
    await notify("switchyard_a", "after");
    await until(() => received.includes("after"), "a notification after reconnecting");
    await listener.close();
    expect(listener.connected).toBe(false);
  });

  it("refuses a channel name that is not a plain identifier", async () => {
    await expect(
      listenForNotifications({
        url: database.url,
        channels: ["bad; DROP TABLE x"],
        onNotification: () => {},
      }),
    ).rejects.toThrow(/invalid notification channel name/);
  });
});
