/**
 * /metrics behind a bearer token (SWITCHYARD_METRICS_TOKEN). Metric labels name clusters, node
 * groups, secrets and resource types: enough to map a deployment. With the token set, a scrape
 * must send `Authorization: Bearer <token>` (Prometheus: `authorization: { credentials_file }`
 * in the scrape config); without it, /metrics stays open, for a monitoring network users do not
 * reach. The token is checked in the process, with no database: metrics are most wanted when
 * the database is away.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { bearerToken } from "./auth/tokens.js";
import type { RequestHandler } from "./http-server.js";

/** The shortest token accepted: a guessable one would protect nothing. */
export const MIN_METRICS_TOKEN_LENGTH = 16;

/**
 * Why `token` cannot protect /metrics, or undefined when it can: at least
 * MIN_METRICS_TOKEN_LENGTH visible ASCII characters (what an HTTP header carries as is). The
 * message never quotes the token.
 */
export function metricsTokenProblem(token: string): string | undefined {
  if (token.length < MIN_METRICS_TOKEN_LENGTH)
    return `is ${token.length} characters long; use at least ${MIN_METRICS_TOKEN_LENGTH} (e.g. openssl rand -hex 32)`;
  const bad = [...token].findIndex((c) => c < "!" || c > "~");
  if (bad !== -1)
    return `has a character outside visible ASCII at position ${bad + 1}; use letters, digits and punctuation`;
  return undefined;
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** `handler`, answering 401 to any request without `Authorization: Bearer <token>`. */
export function requireMetricsToken(handler: RequestHandler, token: string): RequestHandler {
  // Compared as digests of equal length, in constant time: the time taken says nothing of how
  // much of a guess was right.
  const expected = digest(token);
  return (request, response) => {
    const header = request.headers.authorization ?? "";
    const sent = bearerToken(header);
    if (sent !== null && timingSafeEqual(digest(sent), expected)) {
      handler(request, response);
      return;
    }
    response
      .writeHead(401, {
        "content-type": "text/plain",
        "www-authenticate": 'Bearer realm="switchyard-metrics"',
      })
      .end(
        header === ""
          ? "/metrics needs Authorization: Bearer with the token set in SWITCHYARD_METRICS_TOKEN\n"
          : "/metrics: the bearer token is not SWITCHYARD_METRICS_TOKEN's\n",
      );
  };
}
