import { Code, ConnectError } from "@connectrpc/connect";

/**
 * A live view's server stream, as a tagged union:
 * - `connecting`: the stream was opened; nothing arrived yet.
 * - `live`: the stream delivers.
 * - `reconnecting`: the stream failed or the server closed it (a restart); it is opened again at
 *   `retryAt` (ms since the epoch). `attempt` counts the failures in a row.
 * - `ended`: the server refused the stream for good (an unknown node, a bad request, a server
 *   without the call): reconnecting would only fail again.
 */
export type LiveStreamState =
  | { readonly t: "connecting" }
  | { readonly t: "live" }
  | {
      readonly t: "reconnecting";
      readonly attempt: number;
      readonly error: ConnectError;
      readonly retryAt: number;
    }
  | { readonly t: "ended"; readonly error: ConnectError };

/** Refusals that the same request will meet again: no point reconnecting. */
const finalCodes: ReadonlySet<Code> = new Set([
  Code.NotFound,
  Code.InvalidArgument,
  Code.Unimplemented,
  Code.PermissionDenied,
  Code.Unauthenticated,
  Code.FailedPrecondition,
]);

/** Whether a stream that failed with `error` is worth opening again. */
export function isRetryable(error: unknown): boolean {
  return !finalCodes.has(ConnectError.from(error).code);
}

/**
 * How long to wait before reconnecting after `attempt` failures in a row (1-based): 0.5 s, 1 s,
 * 2 s, ... up to 15 s, with ±20 % jitter (`random` in [0, 1)) so a restarted server is not hit by
 * every open console at the same instant.
 */
export function reconnectDelayMs(attempt: number, random: number = Math.random()): number {
  const base = Math.min(500 * 2 ** Math.max(0, attempt - 1), 15_000);
  return Math.round(base * (0.8 + 0.4 * random));
}
