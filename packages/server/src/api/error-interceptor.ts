import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { isDatabaseUnavailable } from "@switchyard/db";
import type { Logger } from "pino";

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

/**
 * Outermost around every API method: a call that fails because the database is unreachable gets
 * UNAVAILABLE saying so (clients retry it), not Internal. The xDS port does not need the
 * database: proxies keep being served from memory meanwhile. Any other unexpected error (not a
 * ConnectError: a bug) is logged with its method before Connect answers "internal error".
 */
export const errorInterceptor =
  (logger: Logger): Interceptor =>
  (next) =>
  async (request) => {
    const translate = (error: unknown): unknown => {
      if (error instanceof ConnectError) return error;
      if (isDatabaseUnavailable(error)) return databaseUnavailable(error);
      logger.error(
        { err: error, method: `${request.service.typeName}/${request.method.name}` },
        "an API call failed unexpectedly",
      );
      return error;
    };
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
