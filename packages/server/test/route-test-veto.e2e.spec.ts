import { Code, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { LbPolicy, Severity } from "@switchyard/proto/switchyard/v1/config_pb";
import { RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiListener,
  edsCluster,
  routeConfiguration,
  virtualHost,
} from "../src/testing/api-objects.js";
import {
  accessClient,
  bearer,
  configClient,
  createAccount,
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
    const access = accessClient(harness.baseUrl, admin);
    const shopTeam = await access.createTeam({ name: "shop", domains: ["shop.example.com"] });
    const checkoutTeam = await access.createTeam({
      name: "checkout",
      domains: ["checkout.example.com"],
    });
    await createAccount(harness.baseUrl, token, "sam", Role.MEMBER, shopTeam.id);
    await createAccount(harness.baseUrl, token, "carol", Role.MEMBER, checkoutTeam.id);
    shop = [bearer(await tokenFor(harness.baseUrl, "sam", USER_PASSWORD))];
    checkout = [bearer(await tokenFor(harness.baseUrl, "carol", USER_PASSWORD))];
    for (const name of ["shop-v1", "shop-v2", "checkout-v1", "checkout-v2", "checkout-v3"])
      await api(admin).createCluster(
        edsCluster(name, "127.0.0.1:50051", { lbPolicy: LbPolicy.ROUND_ROBIN }),
      );
    await api(admin).createRouteConfiguration(edgeRoutes("shop-v1", "checkout-v1"));
    await api(admin).createListener(apiListener("edge", "edge-routes"));
    await api(admin).publish({ message: "the edge" });
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("a member's test that already fails on the published version refuses no other team's publish: it goes through, with a warning naming the case", async () => {
    // The attack: shop pins an answer the published version does not give.
    await routing(shop).putRouteTest({
      name: "shop-veto",
      content: pins("shop.example.com", "shop-v2"),
      listener: "edge",
    });
    await api(checkout).updateRouteConfiguration(edgeRoutes("shop-v1", "checkout-v2"));
    const published = await api(checkout).publish({ message: "checkout on v2" });
    expect(published.snapshot?.version).toBe(2n);
    expect(
      published.warnings
        .filter((w) => w.code === "route-test-already-failing")
        .map((w) => [w.severity, w.message]),
    ).toEqual([
      [
        Severity.WARNING,
        'route test "shop-veto" (team shop), case "shop.example.com goes to shop-v2": GET http://shop.example.com/: fails on version 1 too, so it does not refuse this change: cluster_name: expected "shop-v2", got "shop-v1"',
      ],
    ]);
    await routing(admin).deleteRouteTest({ name: "shop-veto" });
  });

  it("a test its own team's change broke, published past it by an admin, refuses no other team's publish afterwards", async () => {
    await routing(shop).putRouteTest({
      name: "shop-pins",
      content: pins("shop.example.com", "shop-v1"),
      listener: "edge",
    });
    // Shop moves its own traffic: the test it relies on refuses that, as it should.
    await api(shop).updateRouteConfiguration(edgeRoutes("shop-v2", "checkout-v2"));
    const refused = await refusal(api(shop).publish({ message: "shop on v2" }));
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage).toMatch(
      /^this change breaks 1 route test case\(s\) that pass on version 2; .*\n {2}route test "shop-pins" \(team shop\)/,
    );
    expect(await versions()).toBe(2);
    await api(admin).publish({ message: "shop on v2", routeTestOverride: "shop asked, INC-7" });

    // shop-pins now fails on the published version: checkout's next change is not shop's to stop.
    await api(checkout).updateRouteConfiguration(edgeRoutes("shop-v2", "checkout-v3"));
    const published = await api(checkout).publish({ message: "checkout on v3" });
    expect(published.snapshot?.version).toBe(4n);
    expect(published.warnings.map((w) => w.code)).toContain("route-test-already-failing");
  });

  it("a change that breaks another team's case that passes on the published version is still refused, naming it, as is its review request", async () => {
    await routing(checkout).putRouteTest({
      name: "checkout-pins",
      content: pins("checkout.example.com", "checkout-v3"),
      listener: "edge",
    });
    await api(admin).updateRouteConfiguration(edgeRoutes("shop-v2", "checkout-v1"));
    const refused = await refusal(api(admin).publish({ message: "checkout back to v1" }));
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage.split("\n")).toEqual([
      "this change breaks 1 route test case(s) that pass on version 4; fix the change or the tests (an admin may publish anyway with a reason):",
      '  route test "checkout-pins" (team checkout), case "checkout.example.com goes to checkout-v3": GET http://checkout.example.com/',
      '    cluster_name: expected "checkout-v3", got "checkout-v1"',
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
    expect(await versions()).toBe(4);
    await api(admin).discardDraft({});
  });
});
