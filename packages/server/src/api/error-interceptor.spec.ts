import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { errorInterceptor } from "./error-interceptor.js";

/** A ConfigService whose ListClusters throws `error`, behind the interceptor. */
function failingWith(error: unknown) {
  const logged: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: "error" },
    { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const transport = createRouterTransport(
    ({ service }) =>
      service(ConfigService, {
        listClusters: () => {
          throw error;
        },
      }),
    { router: { interceptors: [errorInterceptor(logger)] } },
  );
  const call = createClient(ConfigService, transport)
    .listClusters({})
    .then(() => undefined, ConnectError.from);
  return { call, logged };
}

describe("errorInterceptor", () => {
  it("answers UNAVAILABLE saying the database is unreachable when it went away under the call", async () => {
    const { call, logged } = failingWith(new Error("Connection terminated unexpectedly"));
    const error = await call;
    expect(error?.code).toBe(Code.Unavailable);
    expect(error?.rawMessage).toContain("the database is unreachable (Connection terminated");
    expect(logged).toEqual([]);
  });

  it("logs an unexpected error with its method before Connect answers internal error", async () => {
    const { call, logged } = failingWith(new TypeError("x is undefined"));
    expect((await call)?.code).toBe(Code.Internal);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.method).toBe("switchyard.v1.ConfigService/ListClusters");
    expect(JSON.stringify(logged[0]?.err)).toContain("x is undefined");
  });

  it("passes a deliberate refusal through as it is, unlogged", async () => {
    const { call, logged } = failingWith(new ConnectError("no", Code.PermissionDenied));
    expect((await call)?.code).toBe(Code.PermissionDenied);
    expect(logged).toEqual([]);
  });
});
