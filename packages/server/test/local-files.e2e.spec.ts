import { create } from "@bufbuild/protobuf";
import { Code, type Interceptor } from "@connectrpc/connect";
import {
  RouteActionKind,
  RouteConfigurationSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster } from "../src/testing/api-objects.js";
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
 * Issue 22, point 3: a member must not make proxies read their own host. A direct response read
 * from `/etc/envoy/envoy.yaml` would serve the proxy's bootstrap (its xDS token, its client key)
 * to whoever asks. Refused through every write a member can make (an update, an import), at the
 * field, changing nothing; an admin may; members may name files under the directories an admin
 * allows (SWITCHYARD_MEMBER_FILE_DIRS), never an environment variable.
 */
describe("members and the files proxies read", () => {
  let harness: Harness;
  let admin: Interceptor[];
  let member: Interceptor[];
  const api = (interceptors: Interceptor[]) => configClient(harness.baseUrl, interceptors);
  const routes = (body: Record<string, string>, typedPerFilterConfig = {}) =>
    create(RouteConfigurationSchema, {
      name: "shop-routes",
      virtualHosts: [
        {
          name: "shop",
          domains: ["shop.a.example.com"],
          routes: [
            {
              matchValue: "/",
              actionKind: RouteActionKind.DIRECT_RESPONSE,
              directResponse: { status: 200, body },
              extra: { typedPerFilterConfig },
            },
          ],
        },
      ],
    });

  beforeAll(async () => {
    harness = await startHarness({ app: { memberFileDirs: ["/srv/envoy/pages"] } });
    const token = await harness.token();
    admin = [bearer(token)];
    const access = accessClient(harness.baseUrl, admin);
    const team = await access.createTeam({ name: "team-a", domains: ["*.a.example.com"] });
    await createAccount(harness.baseUrl, "member-a", Role.MEMBER, team.id);
    member = [bearer(await tokenFor(harness.baseUrl, "member-a", USER_PASSWORD))];
    await api(admin).createCluster(edsCluster("a-backend", "127.0.0.1:50051"));
    await api(member).createRouteConfiguration(routes({ inlineString: "hello" }));
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("refuses a member's route serving a file of the proxy's host, at the field, and changes nothing", async () => {
    const error = await refusal(
      api(member).updateRouteConfiguration(routes({ filename: "/etc/envoy/envoy.yaml" })),
    );
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toBe(
      'routeConfigurations["shop-routes"].virtualHosts["shop"].routes[0].directResponse.body makes proxies read the file "/etc/envoy/envoy.yaml" on their own host, and members may name files under /srv/envoy/pages only (SWITCHYARD_MEMBER_FILE_DIRS): ask an admin, or give the data inline',
    );
    const stored = await api(admin).getRouteConfiguration({ name: "shop-routes" });
    expect(stored.virtualHosts[0]?.routes[0]?.directResponse).toEqual({
      status: 200,
      body: { inlineString: "hello" },
    });
  });

  it("refuses it through an import too, and a file reached by .. out of the allowed directory", async () => {
    const yaml = `- "@type": type.googleapis.com/envoy.config.route.v3.RouteConfiguration
  name: shop-routes
  virtual_hosts:
  - name: shop
    domains: [shop.a.example.com]
    routes:
    - match: { prefix: / }
      direct_response: { status: 200, body: { filename: /srv/envoy/pages/../../../etc/envoy/envoy.yaml } }
`;
    const error = await refusal(api(member).import({ content: yaml, filename: "shop.yaml" }));
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toContain("/srv/envoy/pages/../../../etc/envoy/envoy.yaml");
  });

  it("refuses an environment variable in a filter's per-route config", async () => {
    const error = await refusal(
      api(member).updateRouteConfiguration(
        routes(
          { inlineString: "hello" },
          {
            "envoy.filters.http.lua": {
              "@type": "type.googleapis.com/envoy.extensions.filters.http.lua.v3.LuaPerRoute",
              sourceCode: { environmentVariable: "XDS_TOKEN" },
            },
          },
        ),
      ),
    );
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toContain('the environment variable "XDS_TOKEN"');
  });

  it("takes a member's file under an allowed directory, and any file from an admin", async () => {
    await api(member).updateRouteConfiguration(routes({ filename: "/srv/envoy/pages/index.html" }));
    await api(admin).updateRouteConfiguration(routes({ filename: "/etc/envoy/maintenance.html" }));
    const stored = await api(admin).getRouteConfiguration({ name: "shop-routes" });
    expect(stored.virtualHosts[0]?.routes[0]?.directResponse?.body).toEqual({
      filename: "/etc/envoy/maintenance.html",
    });
  });
});
