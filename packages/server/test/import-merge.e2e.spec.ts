/**
 * An import is a merge the answer shows (ImportRequest.on_clash, choices; ImportResponse.clashes):
 * an object of the document whose name a stored object of its kind has with other content is
 * stored renamed by default, with the document's references following it, so nothing the
 * document does not show changes; replace and skip are chosen per object, and a replace names
 * the stored objects outside the document that use what it replaces. Apply stays declarative and
 * says the same of what it replaces (PublishResponse.outside). Read from Envoy's own examples
 * (front-proxy, then tls-sni: both name a route configuration `local_route`).
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Code, type Interceptor } from "@connectrpc/connect";
import { ImportClashAction, ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bearer, configClient, refusal } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { ENVOY_EXAMPLES, listenerRouting } from "../src/testing/listener-routing.js";

const EXAMPLES = ENVOY_EXAMPLES;
const example = (path: string) => readFileSync(`${EXAMPLES}/${path}`, "utf8");

describe("an import is a merge the answer shows", () => {
  let harness: Harness;
  let admin: Interceptor[];
  const api = () => configClient(harness.baseUrl, admin);
  const frontProxy = () => ({ filename: "envoy.yaml", content: example("front-proxy/envoy.yaml") });
  const tlsSni = () => ({ filename: "envoy.yaml", content: example("tls-sni/envoy.yaml") });
  const routing = () => listenerRouting(api());

  beforeAll(async () => {
    // front-proxy's TLS listener holds its private key inline: stored sealed, under a key.
    harness = await startHarness({
      app: { secretsKey: { t: "key", key: randomBytes(32), source: "env" } },
    });
    admin = [bearer(await harness.token())];
  }, 60_000);
  afterAll(async () => {
    await harness?.stop();
  });
  // Each case starts from a draft holding front-proxy alone: nothing is published until the
  // last case, so discarding the draft empties it.
  beforeEach(async () => {
    await api().discardDraft({});
    await api().import(frontProxy());
  });

  it("stores an incoming object under a free name when a stored one has its name with other content, so the stored listeners route as before", async () => {
    const before = await routing();
    const answer = await api().import(tlsSni());
    const clash = answer.clashes.find(
      (c) => c.object?.kind === ResourceKind.ROUTE_CONFIGURATION && c.object.name === "local_route",
    );
    expect(clash?.action).toBe(ImportClashAction.RENAME);
    expect(clash?.renamedTo).toBe("local_route-2");
    // Nothing outside the document changes: its users are named, and route as they did.
    expect(clash?.dependents.map((d) => d.name).length).toBeGreaterThan(0);
    expect(clash?.existing).toContain("service1-envoy");
    expect(clash?.incoming).toContain("proxy-domain");
    const after = await routing();
    for (const [listener, routes] of Object.entries(before))
      expect(after[listener]).toEqual(routes);
    // The document's own listener loads the renamed configuration.
    const added = Object.entries(after).filter(([name]) => !(name in before));
    expect(added.flatMap(([, routes]) => routes)).toContain("local_route-2");
    expect(answer.changes.map((c) => c.name)).toContain("local_route-2");
  });

  it("replaces on request, naming the stored listeners outside the document that use what it replaces", async () => {
    const users = Object.entries(await routing())
      .filter(([, routes]) => routes.includes("local_route"))
      .map(([name]) => name)
      .sort();
    const answer = await api().import({
      ...tlsSni(),
      dryRun: true,
      choices: [
        {
          object: { kind: ResourceKind.ROUTE_CONFIGURATION, name: "local_route" },
          action: ImportClashAction.REPLACE,
        },
      ],
    });
    const clash = answer.clashes.find((c) => c.object?.name === "local_route");
    expect(clash?.action).toBe(ImportClashAction.REPLACE);
    expect(clash?.dependents.map((d) => [d.kind, d.name])).toEqual(
      users.map((name) => [ResourceKind.LISTENER, name]),
    );
    const modified = answer.changes.find((c) => c.name === "local_route");
    expect(modified?.before).toContain("service1-envoy");
    expect(modified?.after).toContain("proxy-domain");
  });

  it("skips on request: the stored object stays, and the document's references name it", async () => {
    const before = await api().getRouteConfiguration({ name: "local_route" });
    const answer = await api().import({
      ...tlsSni(),
      onClash: ImportClashAction.SKIP,
    });
    expect(answer.clashes.every((c) => c.action === ImportClashAction.SKIP)).toBe(true);
    expect(await api().getRouteConfiguration({ name: "local_route" })).toEqual(before);
    expect(answer.changes.map((c) => c.name)).not.toContain("local_route-2");
  });

  it("finds no clash in a document the draft already holds", async () => {
    const answer = await api().import({ ...frontProxy(), dryRun: true });
    expect(answer.clashes).toEqual([]);
    expect(answer.changes).toEqual([]);
  });

  it("refuses a choice for an object that is no clash, naming it, and changes nothing", async () => {
    const before = await routing();
    const error = await refusal(
      api().import({
        ...tlsSni(),
        choices: [
          {
            object: { kind: ResourceKind.CLUSTER, name: "no-such-cluster" },
            action: ImportClashAction.REPLACE,
          },
        ],
      }),
    );
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toContain('cluster "no-such-cluster"');
    expect(await routing()).toEqual(before);
  });

  it("refuses an action the enum does not have, naming the field", async () => {
    const error = await refusal(api().import({ ...tlsSni(), onClash: 9 as ImportClashAction }));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toContain("ImportRequest.on_clash");
  });

  it("apply replaces by name and says which stored objects outside its files use what it replaced", async () => {
    await api().publish({ message: "front-proxy" });
    const users = Object.entries(await routing())
      .filter(([, routes]) => routes.includes("local_route"))
      .map(([name]) => name)
      .sort();
    const routeConfiguration = `"@type": type.googleapis.com/envoy.config.route.v3.RouteConfiguration
name: local_route
virtual_hosts:
- name: backend
  domains: ["*"]
  routes:
  - match: { prefix: "/" }
    route: { cluster: service2-envoy }
`;
    const answer = await api().apply({
      filename: "routes.yaml",
      content: routeConfiguration,
      message: "everything to service2",
    });
    expect(answer.outside.map((o) => o.object?.name)).toEqual(["local_route"]);
    expect(answer.outside[0]?.dependents.map((d) => d.name)).toEqual(users);
  });
});
