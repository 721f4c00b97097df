import { Code, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import {
  LbPolicy,
  Severity,
  ValidationErrorsSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putRouteTest } from "../src/store/route-tests.js";
import {
  apiListener,
  edsCluster,
  routeConfiguration,
  virtualHost,
} from "../src/testing/api-objects.js";
import {
  bearer,
  configClient,
  createAccount,
  privilegedAccess,
  Role,
  refusal,
  tokenFor,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/**
 * Issue 44, point 5: route tests protect, they don't veto. A stored test that fails on the
 * published version (stored so, or broken since) used to refuse every other team's publish that
 * touched routing ("breaks 1 route test case … team shop") until an admin overrode it. A publish
 * is now refused only for a case it turns from passing (on the latest version) to failing.
 */
describe("route tests protect, they don't veto", () => {
  let harness: Harness;
  let admin: Interceptor[];
  let shop: Interceptor[];
  let checkout: Interceptor[];
  const api = (as: Interceptor[]) => configClient(harness.baseUrl, as);
  const routing = (as: Interceptor[]) =>
    createClient(
      RoutingService,
      createConnectTransport({ baseUrl: harness.baseUrl, httpVersion: "1.1", interceptors: as }),
    );
  /** `edge-routes`: each team's virtual host on its domain, to the cluster named. */
  const edgeRoutes = (shopCluster: string, checkoutCluster: string) =>
    routeConfiguration("edge-routes", [
      virtualHost("shop", ["shop.example.com"], shopCluster),
      virtualHost("checkout", ["checkout.example.com"], checkoutCluster),
    ]);
  const pins = (host: string, cluster: string) => `
tests:
- test_name: ${host} goes to ${cluster}
  input: { authority: ${host}, path: /, method: GET }
  validate: { cluster_name: ${cluster} }
`;
  const versions = async () => (await api(admin).listSnapshots({})).snapshots.length;

  beforeAll(async () => {
    harness = await startHarness();
    const token = await harness.token();
    admin = [bearer(token)];
    const access = await privilegedAccess(harness.baseUrl);
    const shopTeam = await access.createTeam({ name: "shop", domains: ["shop.example.com"] });
    const checkoutTeam = await access.createTeam({
      name: "checkout",
      domains: ["checkout.example.com"],
    });
    await createAccount(harness.baseUrl, "sam", Role.MEMBER, shopTeam.id);
    await createAccount(harness.baseUrl, "carol", Role.MEMBER, checkoutTeam.id);
    shop = [bearer(await tokenFor(harness.baseUrl, "sam", USER_PASSWORD))];
    checkout = [bearer(await tokenFor(harness.baseUrl, "carol", USER_PASSWORD))];
    for (const name of ["shop-v1", "shop-v2", "checkout-v1", "checkout-v2", "checkout-v3"])
      await api(admin).createCluster(
        edsCluster(name, "127.0.0.1:50051", { lbPolicy: LbPolicy.ROUND_ROBIN }),
      );
    // Each team's clusters are its own, so its member's routes may name them.
    for (const [name, team] of [
      ["shop-v1", shopTeam],
      ["shop-v2", shopTeam],
      ["checkout-v1", checkoutTeam],
      ["checkout-v2", checkoutTeam],
      ["checkout-v3", checkoutTeam],
    ] as const)
      await access.setClusterOwner({ cluster: name, teamId: team.id });
    await api(admin).createRouteConfiguration(edgeRoutes("shop-v1", "checkout-v1"));
    await api(admin).createListener(apiListener("edge", "edge-routes"));
    await api(admin).publish({ message: "the edge" });
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("a member cannot store a test that already fails on the published version unannounced: the put is refused, naming each failing case and what differs, and stores nothing", async () => {
    // The attack: shop pins an answer the published version does not give.
    const refused = await refusal(
      routing(shop).putRouteTest({
        name: "shop-veto",
        content: pins("shop.example.com", "shop-v2"),
        listener: "edge",
      }),
    );
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage).toMatch(
      /^content: 1 case\(s\) fail on version 1, the latest published version, where a stored test must pass: fix them, or store them as known failing/,
    );
    expect(
      refused
        .findDetails(ValidationErrorsSchema)
        .flatMap((d) => d.issues.map((issue) => `${issue.path}: ${issue.message}`)),
    ).toEqual([
      'content: tests[0]: case "shop.example.com goes to shop-v2": GET http://shop.example.com/: cluster_name: expected "shop-v2", got "shop-v1"',
    ]);
    expect((await routing(admin).listRouteTests({})).tests).toEqual([]);
  });

  it("stored as known failing, a test gates nothing: another team's publish goes through, and the test says which case is known failing", async () => {
    const put = await routing(shop).putRouteTest({
      name: "shop-veto",
      content: pins("shop.example.com", "shop-v2"),
      listener: "edge",
      knownFailing: true,
    });
    expect(put).toMatchObject({
      team: "shop",
      knownFailing: true,
      knownFailingCases: ["shop.example.com goes to shop-v2"],
    });
    await api(checkout).updateRouteConfiguration(edgeRoutes("shop-v1", "checkout-v2"));
    const published = await api(checkout).publish({ message: "checkout on v2" });
    expect(published.snapshot?.version).toBe(2n);
    expect(published.warnings.filter((w) => w.code.startsWith("route-test"))).toEqual([]);
  });

  it("a failing test stored before this rule refuses no other team's publish either: it goes through, with a warning naming the case", async () => {
    await putRouteTest(harness.database.prisma, {
      name: "shop-legacy",
      teamId: null,
      content: pins("shop.example.com", "shop-v2"),
      listener: "edge",
      routeConfiguration: "",
      author: "sam",
    });
    await api(checkout).updateRouteConfiguration(edgeRoutes("shop-v1", "checkout-v3"));
    const published = await api(checkout).publish({ message: "checkout on v3" });
    expect(published.snapshot?.version).toBe(3n);
    expect(
      published.warnings
        .filter((w) => w.code === "route-test-already-failing")
        .map((w) => [w.severity, w.message]),
    ).toEqual([
      [
        Severity.WARNING,
        'route test "shop-legacy", case "shop.example.com goes to shop-v2": GET http://shop.example.com/: fails on version 2 too, so it does not refuse this change: cluster_name: expected "shop-v2", got "shop-v1"',
      ],
    ]);
    await routing(admin).deleteRouteTest({ name: "shop-legacy" });
  });

  it("a test its own team's change broke, published past it by an admin, refuses no other team's publish afterwards", async () => {
    await routing(shop).putRouteTest({
      name: "shop-pins",
      content: pins("shop.example.com", "shop-v1"),
      listener: "edge",
    });
    // Shop moves its own traffic: the test it relies on refuses that, as it should.
    await api(shop).updateRouteConfiguration(edgeRoutes("shop-v2", "checkout-v3"));
    const refused = await refusal(api(shop).publish({ message: "shop on v2" }));
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage).toMatch(
      /^this change breaks 1 route test case\(s\) that pass on version 3; .*\n {2}route test "shop-pins" \(team shop\)/,
    );
    expect(await versions()).toBe(3);
    await api(admin).publish({ message: "shop on v2", routeTestOverride: "shop asked, INC-7" });

    // shop-pins now fails on the published version: checkout's next change is not shop's to stop.
    await api(checkout).updateRouteConfiguration(edgeRoutes("shop-v2", "checkout-v2"));
    const published = await api(checkout).publish({ message: "checkout back on v2" });
    expect(published.snapshot?.version).toBe(5n);
    expect(published.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(
        /^route test "shop-pins" \(team shop\), case .*: fails on version 4 too/,
      ),
    ]);
    // Edited, it must pass on the latest version too: as it stands it is refused, and kept as it was.
    const edited = await refusal(
      routing(shop).putRouteTest({
        name: "shop-pins",
        content: pins("shop.example.com", "shop-v1"),
        listener: "edge",
      }),
    );
    expect(edited.code).toBe(Code.FailedPrecondition);
    const kept = (await routing(shop).listRouteTests({})).tests.find((t) => t.name === "shop-pins");
    expect(kept?.knownFailing).toBe(false);
  });

  it("a known-failing case that passes now says so when run, and gates again once its test is stored again without known failing", async () => {
    const run = await routing(shop).runRouteTests({ version: 5n });
    const veto = run.tests.find((t) => t.name === "shop-veto");
    expect(veto?.results.map((r) => [r.name, r.passed, r.knownFailing])).toEqual([
      ["shop.example.com goes to shop-v2", true, true],
    ]);
    expect([run.failed, run.knownFailing]).toEqual([1, 0]);
    const promoted = await routing(shop).putRouteTest({
      name: "shop-veto",
      content: pins("shop.example.com", "shop-v2"),
      listener: "edge",
    });
    expect([promoted.knownFailing, promoted.knownFailingCases]).toEqual([false, []]);
    // Now it protects shop's answer: a change sending shop back to v1 is refused for it alone
    // (shop-pins, which fails on version 5, refuses nothing).
    await api(admin).updateRouteConfiguration(edgeRoutes("shop-v1", "checkout-v2"));
    const refused = await refusal(api(admin).publish({ message: "shop back to v1" }));
    expect(refused.rawMessage).toMatch(
      /^this change breaks 1 route test case\(s\) that pass on version 5; .*\n {2}route test "shop-veto" \(team shop\), case "shop.example.com goes to shop-v2"/,
    );
    await api(admin).discardDraft({});
  });

  it("a change that breaks another team's case that passes on the published version is still refused, naming it, as is its review request", async () => {
    await routing(checkout).putRouteTest({
      name: "checkout-pins",
      content: pins("checkout.example.com", "checkout-v2"),
      listener: "edge",
    });
    await api(admin).updateRouteConfiguration(edgeRoutes("shop-v2", "checkout-v1"));
    const refused = await refusal(api(admin).publish({ message: "checkout back to v1" }));
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage.split("\n")).toEqual([
      "this change breaks 1 route test case(s) that pass on version 5; fix the change or the tests (an admin may publish anyway with a reason):",
      '  route test "checkout-pins" (team checkout), case "checkout.example.com goes to checkout-v2": GET http://checkout.example.com/',
      '    cluster_name: expected "checkout-v2", got "checkout-v1"',
    ]);
    const diff = await api(admin).diff({});
    const asked = await refusal(
      api(admin).requestReview({
        message: "checkout back to v1",
        draftRevision: diff.draftRevision,
        baseVersion: diff.fromVersion,
      }),
    );
    expect(asked.rawMessage).toBe(refused.rawMessage);
    expect(await versions()).toBe(5);
    await api(admin).discardDraft({});
  });
});
