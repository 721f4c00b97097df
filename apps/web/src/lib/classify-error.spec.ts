import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { apiAnswered, classifyError, codeName } from "./classify-error";

describe("classifyError", () => {
  it.each([
    [
      "fetch() rejected: no response at all",
      ConnectError.from(new TypeError("Failed to fetch")),
      "unreachable",
    ],
    ["a proxy's 502/503", new ConnectError("HTTP 503", Code.Unavailable), "unreachable"],
    [
      "HTTP 404: the API is not served here",
      new ConnectError("HTTP 404", Code.Unimplemented),
      "not-served",
    ],
    [
      "an HTML page instead of Connect",
      new ConnectError("unsupported content type text/html", Code.Unknown),
      "unexpected-response",
    ],
    [
      "the API's own unimplemented",
      new ConnectError("not in this version", Code.Unimplemented),
      "server",
    ],
    ["a proxy's own 500 page", new ConnectError("HTTP 500", Code.Unknown), "unexpected-response"],
    ["a deadline", new ConnectError("timed out", Code.DeadlineExceeded), "timeout"],
    ["an error the API reported", new ConnectError("database is down", Code.Internal), "server"],
    ["an unknown error the API reported", new ConnectError("boom", Code.Unknown), "server"],
  ] as const)("%s is %s", (_, error, expected) => {
    expect(classifyError(error)).toBe(expected);
  });

  it("counts only errors the API itself returned as the API having answered", () => {
    expect(apiAnswered(new ConnectError("x", Code.Internal))).toBe(true);
    expect(apiAnswered(new ConnectError("x", Code.Unavailable))).toBe(false);
  });
});

describe("codeName", () => {
  it("uses the Connect protocol's snake_case code names", () => {
    expect(codeName(new ConnectError("x", Code.DeadlineExceeded))).toBe("deadline_exceeded");
    expect(codeName(new ConnectError("x", Code.Unavailable))).toBe("unavailable");
  });
});
