import pg from "pg";

/**
 * Postgres LISTEN on one dedicated connection, reconnecting for as long as it is open.
 *
 * NOTIFY is delivered only to sessions listening when the notifying transaction commits: while
 * the connection is down, notifications are lost. So every (re)connection after the first calls
 * `onResync`, and listeners must then re-read whatever they derive from the notifications
 * (replicas re-read the latest snapshot, live views re-read node status). The first connection
 * does not: the caller reads its initial state after `listenForNotifications` resolves.
 */
export interface NotificationListenerOptions {
  readonly url: string;
  /** Channel names: lowercase identifiers (they are interpolated into LISTEN). */
  readonly channels: readonly string[];
  readonly onNotification: (channel: string, payload: string) => void;
  /** The connection was re-established: notifications may have been missed. */
  readonly onResync?: () => void;
  /** A lost connection or failed reconnect; the listener keeps retrying. Default: ignored. */
  readonly onError?: (error: unknown) => void;
  /** Reconnect back-off: the first delay, doubled per failure up to `maxRetryMs`. */
  readonly retryMs?: number;
  readonly maxRetryMs?: number;
}

export interface NotificationListener {
  /** Whether the LISTEN connection is currently up. */
  readonly connected: boolean;
  /** Stops listening and closes the connection. Idempotent. */
  close(): Promise<void>;
}

const CHANNEL = /^[a-z_][a-z0-9_]*$/;

/**
 * Connects and LISTENs on `channels`; rejects if the first connection fails (the database is
 * unreachable at startup), afterwards reconnects by itself.
 */
export async function listenForNotifications(
  options: NotificationListenerOptions,
): Promise<NotificationListener> {
  for (const channel of options.channels) {
    if (!CHANNEL.test(channel)) throw new Error(`invalid notification channel name "${channel}"`);
  }
  const retryMs = options.retryMs ?? 200;
  const maxRetryMs = options.maxRetryMs ?? 5_000;
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let delay = retryMs;

  const connect = async (): Promise<pg.Client> => {
    const next = new pg.Client({ connectionString: options.url });
    next.on("notification", (message) => {
      options.onNotification(message.channel, message.payload ?? "");
    });
    try {
      await next.connect();
      for (const channel of options.channels) await next.query(`LISTEN ${channel}`);
    } catch (error) {
      next.end().catch(() => {});
      throw error;
    }
    // A dropped connection ("error", then "end") schedules a reconnect; a closed listener does not.
    let lost = false;
    const onLost = (error?: unknown) => {
      if (lost) return;
      lost = true;
      if (client === next) client = undefined;
      if (error !== undefined) options.onError?.(error);
      next.end().catch(() => {});
      if (!closed) schedule();
    };
    next.on("error", onLost);
    next.on("end", () => onLost());
    return next;
  };

  const schedule = () => {
    timer = setTimeout(async () => {
      timer = undefined;
      try {
        const next = await connect();
        if (closed) {
          await next.end().catch(() => {});
          return;
        }
        client = next;
        delay = retryMs;
        options.onResync?.();
      } catch (error) {
        options.onError?.(error);
        delay = Math.min(delay * 2, maxRetryMs);
        if (!closed) schedule();
      }
    }, delay);
    timer.unref();
  };

  client = await connect();
  return {
    get connected() {
      return client !== undefined;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}
