import { Code, ConnectError } from "@connectrpc/connect";

/**
 * Why a call to the Switchyard API failed, from the point of view of what the operator should do.
 *
 * - `unreachable`: nothing answered (the server is down, or the network failed), or a proxy said
 *   the upstream is unavailable.
 * - `not-served`: something answered, but this origin does not serve the Connect API (an HTTP 404,
 *   e.g. the console opened through `next start` instead of `switchyard serve`).
 * - `unexpected-response`: an answer that is not the Connect protocol (an error page from a proxy,
 *   often because the server behind it is down).
 * - `timeout`: the API did not answer in time.
 * - `server`: the API answered with an error of its own; its message says what went wrong.
 */
export type ErrorClass =
  | "unreachable"
  | "not-served"
  | "unexpected-response"
  | "timeout"
  | "server";

export function classifyError(error: unknown): ErrorClass {
  const e = ConnectError.from(error);
  switch (e.code) {
    case Code.Unavailable:
      return "unreachable";
    case Code.Unimplemented:
      // Connect maps a bare HTTP 404 to unimplemented; the API's own unimplemented has a message.
      return e.rawMessage === "HTTP 404" ? "not-served" : "server";
    case Code.DeadlineExceeded:
      return "timeout";
    case Code.Unknown:
      // fetch() rejects with a TypeError ("Failed to fetch", "Load failed", "NetworkError ...")
      // when no HTTP response came back at all.
      if (e.cause instanceof TypeError) return "unreachable";
      // A bare status ("HTTP 500") or a body that is not Connect's: a proxy or another web server
      // answered, not the API, which always sends a Connect error body.
      if (
        /^HTTP \d{3}$/.test(e.rawMessage) ||
        e.rawMessage.startsWith("unsupported content type")
      ) {
        return "unexpected-response";
      }
      return "server";
    default:
      return "server";
  }
}

/** True when the API itself answered, whatever it said. */
export function apiAnswered(error: unknown): boolean {
  return classifyError(error) === "server";
}

/** "unavailable", "not_found", ...: the Connect protocol's name for the error's code. */
export function codeName(error: unknown): string {
  const name = Code[ConnectError.from(error).code] ?? "unknown";
  return name.replace(/(?<=[a-z])(?=[A-Z])/g, "_").toLowerCase();
}
