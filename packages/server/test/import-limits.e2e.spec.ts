import { Code, type Interceptor } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
 * Issue 22, point 2: one member's import must not take the server down. 40 KB of brackets used
 * to overflow the stack (and the second such request ended the process); a document's size and
 * nesting are now bounded before it is parsed, and it is read in a worker thread.
 */
describe("imports a hostile member sends", () => {
  let harness: Harness;
  let member: Interceptor[];
  const api = (interceptors: Interceptor[]) => configClient(harness.baseUrl, interceptors);
  const draft = async () => {
    const [clusters, routes] = await Promise.all([
      api(member).listClusters({}),
      api(member).listRouteConfigurations({}),
    ]);
    return { clusters: clusters.clusters.length, routes: routes.routeConfigurations.length };
  };

  beforeAll(async () => {
    harness = await startHarness();
    const token = await harness.token();
    const access = accessClient(harness.baseUrl, [bearer(token)]);
    const team = await access.createTeam({ name: "team-a", domains: ["*.a.example.com"] });
    await createAccount(harness.baseUrl, "member-a", Role.MEMBER, team.id);
    member = [bearer(await tokenFor(harness.baseUrl, "member-a", USER_PASSWORD))];
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("refuses 40 KB of nested brackets, again and again, with where and how deep, and the server keeps answering", async () => {
    const before = await draft();
    const content = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;

    for (let attempt = 0; attempt < 3; attempt++) {
      const error = await refusal(api(member).import({ content, filename: "deep.yaml" }));
      expect(error.code).toBe(Code.InvalidArgument);
      expect(error.rawMessage).toContain("nests maps and lists more than 200 deep");
      expect(error.rawMessage).toContain("line 1, column 202");
    }

    expect(await draft()).toEqual(before);
  });

  it("refuses a document over 8 MiB, saying how large it is, and changes nothing", async () => {
    const before = await draft();
    const content = `# ${"x".repeat(9 * 1024 * 1024)}\nclusters: []\n`;

    const error = await refusal(api(member).import({ content, filename: "huge.yaml" }));

    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toContain(
      `${content.length} bytes, more than the 8388608 bytes (8 MiB)`,
    );
    expect(await draft()).toEqual(before);
  });

  it("still imports a member's ordinary document after the refusals", async () => {
    const result = await api(member).import({
      filename: "routes.yaml",
      content: `- "@type": type.googleapis.com/envoy.config.route.v3.RouteConfiguration
  name: a-routes
  virtual_hosts:
  - name: a
    domains: ["shop.a.example.com"]
    routes:
    - match: { prefix: "/" }
      direct_response: { status: 200, body: { inline_string: "ok" } }
`,
    });

    expect(result.changes.map((change) => change.name)).toEqual(["a-routes"]);
  });
});
