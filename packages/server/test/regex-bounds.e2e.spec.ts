/**
 * A caller's regular expression is refused before it is compiled when its RE2 program is larger
 * than Envoy's limit (snapshot's match/regex-limit.ts): the issue-44 attack, a route test file of
 * header regexes of counted repeats, answers InvalidArgument naming the field, and the API keeps
 * answering while it is read.
 */
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ValidationErrorsSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessClient, bearer } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/** The other calls answer within this while the large request is handled (a loaded machine). */
const RESPONSIVE_MS = 2_000;

/** ~10 KB: alternatives of `[a-z]{0,1000}`, 1.4 million RE2 instructions. */
const ATTACK = Array.from({ length: 700 }, (_, i) => `${i}[a-z]{0,1000}`).join("|");

/** The issues an InvalidArgument carries, as "path: message". */
const issuesOf = (error: unknown) =>
  error instanceof ConnectError
    ? error
        .findDetails(ValidationErrorsSchema)
        .flatMap((d) => d.issues.map((i) => `${i.path}: ${i.message}`))
    : [];

const routeTests = (regexes: readonly string[]) =>
  JSON.stringify({
    tests: [
      {
        test_name: "pinned",
        input: { authority: "shop.example.com", path: "/", method: "GET" },
        validate: {
          request_header_matches: regexes.map((regex) => ({
            name: "x-user",
            safe_regex_match: { regex },
          })),
        },
      },
    ],
  });

describe("a caller's regex is bounded by its RE2 program size before it is compiled", () => {
  let harness: Harness;
  let routing: ReturnType<typeof createClient<typeof RoutingService>>;

  beforeAll(async () => {
    harness = await startHarness();
    const token = await harness.token();
    routing = createClient(
      RoutingService,
      createConnectTransport({
        baseUrl: harness.baseUrl,
        httpVersion: "1.1",
        interceptors: [bearer(token)],
      }),
    );
  });

  afterAll(async () => {
    await harness?.stop();
  });

  it("CheckRouteTests with ~20 KB of header regexes past the limit is InvalidArgument naming the field, and WhoAmI answers meanwhile", async () => {
    const access = accessClient(harness.baseUrl, [bearer(await harness.token())]);
    const checking = routing
      .checkRouteTests({ content: routeTests([ATTACK, ATTACK]), filename: "attack.json" })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    const started = performance.now();
    const me = await access.whoAmI({});
    const whoAmIMs = performance.now() - started;
    const error = await checking;

    expect(me.user?.username).toBe("admin");
    expect(whoAmIMs).toBeLessThan(RESPONSIVE_MS);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
    expect(issuesOf(error)).toEqual([
      expect.stringMatching(
        /^attack\.json: tests\[0\]\.validate\.request_header_matches\[0\]\.safe_regex_match\.regex: compiles to an RE2 program of more than 100 instructions/,
      ),
      expect.stringMatching(/request_header_matches\[1\]\.safe_regex_match\.regex: compiles to/),
    ]);
  });

  it("a malformed regex in a route test is InvalidArgument naming the field, not Internal", async () => {
    const error = await routing
      .checkRouteTests({ content: routeTests(["(a"]), filename: "bad.json" })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
    expect(issuesOf(error)).toEqual([
      expect.stringMatching(
        /request_header_matches\[0\]\.safe_regex_match\.regex: not an RE2 regular expression/,
      ),
    ]);
  });
});
