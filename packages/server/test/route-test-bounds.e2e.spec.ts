/**
 * Stored route tests are bounded in size as in cases (src/api/route-test-handlers.ts,
 * ROUTE_TEST_CONTENT_LIMITS): ListRouteTests answers every stored test and every publish that
 * touches routing reads them all, so one content over 768 KiB is refused, and puts stop when the
 * stored contents would pass 8 MiB; the API keeps answering while the largest put is read.
 */
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTE_TEST_CONTENT_LIMITS } from "../src/api/route-test-handlers.js";
import { accessClient, bearer } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/** The other calls answer within this while the large request is handled (a loaded machine). */
const RESPONSIVE_MS = 2_000;

/** One case (failing on the empty configuration, so stored as known failing), padded with YAML
 * comments to `bytes` in all. */
function padded(bytes: number): string {
  const head =
    "tests:\n- test_name: pinned\n  input: { authority: shop.example.com, path: /, method: GET }\n  validate: { cluster_name: blue }\n";
  const line = `# ${"x".repeat(1021)}\n`;
  // At least 2 bytes left for the last line ("#…\n").
  const lines = Math.floor((bytes - head.length - 2) / line.length);
  return `${head}${line.repeat(lines)}${"#".padEnd(bytes - head.length - lines * line.length - 1, "x")}\n`;
}

const refusal = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (e: unknown) => ConnectError.from(e),
  );

describe("stored route tests are bounded in size", () => {
  let harness: Harness;
  let routing: ReturnType<typeof createClient<typeof RoutingService>>;

  beforeAll(async () => {
    harness = await startHarness();
    routing = createClient(
      RoutingService,
      createConnectTransport({
        baseUrl: harness.baseUrl,
        httpVersion: "1.1",
        interceptors: [bearer(await harness.token())],
      }),
    );
  });

  afterAll(async () => {
    await harness?.stop();
  });

  it("a content over 768 KiB is InvalidArgument naming content, and WhoAmI answers while it is read", async () => {
    const watcher = accessClient(harness.baseUrl, [bearer(await harness.token())]);
    const put = refusal(
      routing.putRouteTest({
        name: "too-long",
        content: padded(ROUTE_TEST_CONTENT_LIMITS.bytes + 1),
      }),
    );
    const started = performance.now();
    await watcher.whoAmI({});
    expect(performance.now() - started).toBeLessThan(RESPONSIVE_MS);
    const error = await put;
    expect(error?.code).toBe(Code.InvalidArgument);
    expect(error?.rawMessage).toMatch(/^content: 786433 bytes, more than the 786432/);
    expect((await routing.listRouteTests({})).tests).toEqual([]);
  });

  it("puts stop, ResourceExhausted naming content, when the stored contents would pass 8 MiB; a rewrite counts its new size only", async () => {
    const size = ROUTE_TEST_CONTENT_LIMITS.bytes;
    const fit = Math.floor(ROUTE_TEST_CONTENT_LIMITS.totalBytes / size);
    for (let i = 0; i < fit; i += 1)
      await routing.putRouteTest({ name: `big-${i}`, content: padded(size), knownFailing: true });
    const over = await refusal(
      routing.putRouteTest({ name: "one-more", content: padded(size), knownFailing: true }),
    );
    expect(over?.code).toBe(Code.ResourceExhausted);
    expect(over?.rawMessage).toMatch(
      /^content: the stored route tests would hold \d+ bytes, more than the 8388608 allowed/,
    );
    await routing.putRouteTest({ name: "big-0", content: padded(size), knownFailing: true });
    const { tests } = await routing.listRouteTests({});
    expect(tests).toHaveLength(fit);
  }, 120_000);
});
