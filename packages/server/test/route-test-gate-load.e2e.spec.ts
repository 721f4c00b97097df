/**
 * The publish gate runs the stored route tests in the route test worker thread
 * (src/routing/route-test-runner.ts), not on the event loop that serves the API and xDS: while a
 * publish is checked against stored tests whose cases are costly (large headers matched against
 * many regex routes), every other call answers within a bound (issue 44, point 4).
 */
import { Code, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import { RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiListener,
  edsCluster,
  type RouteInit,
  routeConfiguration,
} from "../src/testing/api-objects.js";
import { accessClient, bearer, configClient, refusal } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/** The other calls answer within this while the publish is checked (a loaded machine). */
const RESPONSIVE_MS = 2_000;

/** Routes that each match a request's `x-big` header against a regex that scans all of it. */
const REGEX_ROUTES = 50;
/** Stored tests, cases in each, and the bytes of each case's `x-big` header. */
const TESTS = 4;
const CASES = 30;
const HEADER_BYTES = 4_096;

/** `heavy`: REGEX_ROUTES routes none of the cases match, then every request to `cluster`. */
const heavyRoutes = (cluster: string, extra: readonly RouteInit[] = []) =>
  routeConfiguration("heavy", [
    {
      name: "shop",
      domains: ["shop.example.com"],
      routes: [
        ...Array.from(
          { length: REGEX_ROUTES },
          (_, i): RouteInit => ({
            name: `regex-${i}`,
            matchValue: "/",
            cluster: "blue",
            headers: [{ name: "x-big", stringMatch: { safeRegex: { regex: `[a-y]*${i}z` } } }],
          }),
        ),
        ...extra,
        { name: "all", matchValue: "/", cluster },
      ],
    },
  ]);

/** A stored test of CASES cases that pin `cluster`, each with a large `x-big` header. */
function heavyTest(t: number, cluster: string): string {
  const header = "x".repeat(HEADER_BYTES);
  const cases = Array.from(
    { length: CASES },
    (_, c) =>
      `- test_name: case ${t}-${c}\n  input: { authority: shop.example.com, path: /${c}, method: GET, additional_request_headers: [{ key: x-big, value: ${header} }] }\n  validate: { cluster_name: ${cluster} }\n`,
  );
  return `tests:\n${cases.join("")}`;
}

describe("the publish gate checks the stored route tests off the event loop", () => {
  let harness: Harness;
  let admin: Interceptor[];
  const api = () => configClient(harness.baseUrl, admin);

  /**
   * `publish` started, WhoAmI called over and over until it is done: how many calls answered
   * while it was in flight, the slowest of them, how long the publish took and how it ended.
   */
  async function whileInFlight<T>(publish: () => Promise<T>) {
    const access = accessClient(harness.baseUrl, admin);
    let done = false;
    const started = performance.now();
    const ending = publish().then(
      (value) => ({ t: "answered" as const, value }),
      (error: unknown) => ({ t: "refused" as const, error }),
    );
    let publishMs = 0;
    void ending.then(() => {
      publishMs = performance.now() - started;
      done = true;
    });
    let calls = 0;
    let slowestMs = 0;
    while (!done) {
      const called = performance.now();
      await access.whoAmI({});
      slowestMs = Math.max(slowestMs, performance.now() - called);
      calls += 1;
    }
    return { calls, slowestMs, publishMs, ending: await ending };
  }

  /**
   * Other calls answered all the while: within RESPONSIVE_MS, and never after waiting out most of
   * the publish, as one does when the cases run on the event loop (the gate is most of it), on a
   * machine of any speed.
   */
  const expectResponsive = (run: { calls: number; slowestMs: number; publishMs: number }) => {
    expect(run.calls).toBeGreaterThan(1);
    expect(run.slowestMs).toBeLessThan(RESPONSIVE_MS);
    expect(run.slowestMs).toBeLessThan(run.publishMs / 2);
  };

  beforeAll(async () => {
    harness = await startHarness();
    admin = [bearer(await harness.token())];
    for (const name of ["blue", "green"])
      await api().createCluster(
        edsCluster(name, "127.0.0.1:50051", { lbPolicy: LbPolicy.ROUND_ROBIN }),
      );
    await api().createRouteConfiguration(heavyRoutes("blue"));
    await api().createListener(apiListener("edge", "heavy"));
    await api().publish({ message: "the heavy routes" });
    const routing = createClient(
      RoutingService,
      createConnectTransport({ baseUrl: harness.baseUrl, httpVersion: "1.1", interceptors: admin }),
    );
    for (let t = 0; t < TESTS; t += 1)
      await routing.putRouteTest({
        name: `heavy-${t}`,
        content: heavyTest(t, "blue"),
        listener: "edge",
      });
  }, 300_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it(`WhoAmI answers within ${RESPONSIVE_MS} ms all the while a publish runs ${TESTS * CASES} costly cases, and the publish goes through`, async () => {
    // A route the cases do not reach: the change can move requests, so the gate runs them all.
    await api().updateRouteConfiguration(
      heavyRoutes("blue", [{ name: "admin", matchValue: "/admin", cluster: "green" }]),
    );
    const run = await whileInFlight(() => api().publish({ message: "an admin route" }));
    expect(run.ending.t).toBe("answered");
    expectResponsive(run);
  }, 300_000);

  it("a publish that breaks the costly cases is refused, naming them as ever, and WhoAmI answers all the while", async () => {
    await api().updateRouteConfiguration(heavyRoutes("green"));
    const run = await whileInFlight(() =>
      refusal(api().publish({ message: "everything to green" })),
    );
    expect(run.ending.t).toBe("answered");
    const refused = run.ending.t === "answered" ? run.ending.value : undefined;
    expect(refused?.code).toBe(Code.FailedPrecondition);
    expect(refused?.rawMessage).toMatch(
      new RegExp(
        `^this change breaks ${TESTS * CASES} route test case\\(s\\) that pass on version 2;`,
      ),
    );
    expect(refused?.rawMessage).toContain(
      'route test "heavy-0", case "case 0-0": GET http://shop.example.com/0\n    cluster_name: expected "blue", got "green"',
    );
    expectResponsive(run);
  }, 300_000);
});
