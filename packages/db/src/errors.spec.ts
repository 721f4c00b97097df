import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "./errors.js";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("isDatabaseUnavailable", () => {
  it("recognises dropped and refused connections, Postgres shutting down and Prisma's connection errors, also as a cause", () => {
    for (const error of [
      new Error("Connection terminated unexpectedly"),
      withCode("Invalid `prisma.cluster.findMany()` invocation: ...", "P1001"),
      withCode(
        "Raw query failed. Message: `Can't reach database server at 127.0.0.1:5432`",
        "P2010",
      ),
      withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"),
      withCode("terminating connection due to administrator command", "57P01"),
      withCode("connection failure", "08006"),
      new Error("publish failed", { cause: new Error("Connection terminated") }),
    ])
      expect(isDatabaseUnavailable(error), error.message).toBe(true);
  });

  it("leaves query errors alone: a constraint, a syntax error, a missing row", () => {
    for (const error of [
      withCode("Unique constraint failed on the fields: (`name`)", "P2002"),
      withCode('syntax error at or near "SELEC"', "42601"),
      withCode("An operation failed because it depends on records that were not found", "P2025"),
      new Error("something else"),
      "not an error",
    ])
      expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
