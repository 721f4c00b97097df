import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { isDatabaseUnavailable } from "@switchyard/db";

/** The error a call gets when the database went away under it. */
export function databaseUnavailable(error: unknown): ConnectError {
  const detail = error instanceof Error ? error.message.trim().split("\n").at(-1) : String(error);
  return new ConnectError(
    `the database is unreachable (${detail}): the request was not completed; once the database is back, check (switchyard history, switchyard diff) and try again`,
    Code.Unavailable,
    undefined,
    undefined,
    error,
  );
}

function translate(error: unknown): unknown {
  return !(error instanceof ConnectError) && isDatabaseUnavailable(error)
    ? databaseUnavailable(error)
    : error;
}

/**
 * Outermost around every API method: a call that fails because the database is unreachable gets
 * UNAVAILABLE saying so (clients retry it), not Internal. The xDS port does not need the
 * database: proxies keep being served from memory meanwhile.
 */
export const unavailableInterceptor: Interceptor = (next) => async (request) => {
  try {
    const response = await next(request);
    if (!response.stream) return response;
    const messages = response.message;
    return {
      ...response,
      message: (async function* () {
        try {
          yield* messages;
        } catch (error) {
          throw translate(error);
        }
      })(),
    };
  } catch (error) {
    throw translate(error);
  }
};
