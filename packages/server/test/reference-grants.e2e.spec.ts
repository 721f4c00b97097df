/**
 * Issue 44, points 1 and 2: references are authorized, not only objects, and ownership follows
 * the published state. A member's object may name only what their team may use (its own
 * clusters and secrets, and what an admin shared with it), checked on every write and again at
 * publish from the one reference table compile reads; SDS serves a secret only for an object
 * entitled to it; a name the latest version holds stays its owner's until a published version
 * deletes it. Real API, real PostgreSQL, real SDS over ADS.
 */
import { randomBytes } from "node:crypto";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { type Client, Code, type Interceptor } from "@connectrpc/connect";
import { registry } from "@switchyard/proto";
import type { Secret as EnvoySecret } from "@switchyard/proto/envoy/extensions/transport_sockets/tls/v3/secret_pb";
import type { AccessService } from "@switchyard/proto/switchyard/v1/access_pb";
import {
  ResourceKind,
  RouteActionKind,
  SecretType,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { createTestCa } from "@switchyard/testing";
import { createTestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster, routeConfiguration, virtualHost } from "../src/testing/api-objects.js";
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
import { type Harness, startHarness, xdsTokenAuth } from "../src/testing/harness.js";

const ca = createTestCa("reference grants e2e CA");
const edge = ca.issueServer({ commonName: "edge.example", dns: ["edge.example"] });
const UPSTREAM_TLS =
  "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext";

/** A cluster presenting `certificate` (an SDS secret over ADS) to its upstream. */
const presenting = (name: string, certificate: string) =>
  edsCluster(name, "10.0.0.9:443", {
    extra: {
      transportSocket: {
        name: "envoy.transport_sockets.tls",
        typedConfig: {
          "@type": UPSTREAM_TLS,
          commonTlsContext: {
            tlsCertificateSdsSecretConfigs: [
              { name: certificate, sdsConfig: { ads: {}, resourceApiVersion: "V3" } },
            ],
          },
        },
      },
    },
  });

describe("references are authorized, not only objects", () => {
  let harness: Harness;
  let admin: Interceptor[];
  let shop: Interceptor[];
  let pay: Interceptor[];
  let shopTeam: string;
  let payTeam: string;
  let xdsHeaders: Readonly<Record<string, string>>;
  const api = (interceptors: Interceptor[]) => configClient(harness.baseUrl, interceptors);
  let access: () => Client<typeof AccessService>;
  const clusterNames = async () => (await api(admin).listClusters({})).clusters.map((c) => c.name);
  const teamOf = async (id: string) =>
    (await access().listTeams({})).teams.find((t) => t.id === id);

  beforeAll(async () => {
    const { xdsSecurity, headers } = xdsTokenAuth();
    xdsHeaders = headers;
    harness = await startHarness({
      app: {
        secretsKey: { t: "key", key: new Uint8Array(randomBytes(32)), source: "env" },
        xdsSecurity,
      },
    });
    const token = await harness.token();
    admin = [bearer(token)];
    // Owners and sharing are privileged: an admin's session with a fresh password.
    const privileged = await privilegedAccess(harness.baseUrl);
    access = () => privileged;
    shopTeam = (await access().createTeam({ name: "shop", domains: ["*.shop.example.com"] })).id;
    payTeam = (await access().createTeam({ name: "pay", domains: ["*.pay.example.com"] })).id;
    await createAccount(harness.baseUrl, "shopper", Role.MEMBER, shopTeam);
    await createAccount(harness.baseUrl, "payer", Role.MEMBER, payTeam);
    shop = [bearer(await tokenFor(harness.baseUrl, "shopper", USER_PASSWORD))];
    pay = [bearer(await tokenFor(harness.baseUrl, "payer", USER_PASSWORD))];
    await api(admin).createSecret({
      name: "edge-cert",
      type: SecretType.TLS_CERTIFICATE,
      certificateChain: edge.cert,
      privateKey: edge.key,
    });
    await api(admin).createSecret({
      name: "shop-ca",
      type: SecretType.VALIDATION_CONTEXT,
      trustedCa: ca.cert,
    });
    await access().setSecretOwner({ secret: "shop-ca", teamId: shopTeam });
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("refuses a member's cluster that names an admin's TLS secret, in its Envoy JSON or its modelled field, at that field, and stores nothing", async () => {
    const inJson = await refusal(api(shop).createCluster(presenting("shop-api", "edge-cert")));
    expect(inJson.code).toBe(Code.PermissionDenied);
    expect(inJson.rawMessage).toContain(
      'cluster shop-api (clusters["shop-api"].extra.transportSocket.typedConfig.commonTlsContext.tlsCertificateSdsSecretConfigs[0].name) names secret edge-cert, which is an admin\'s and not shared with team shop',
    );
    expect(inJson.rawMessage).toContain("switchyard share secret edge-cert --team shop");
    const modelled = await refusal(
      api(shop).createCluster(
        edsCluster("shop-api", "10.0.0.9:443", { tlsSecretName: "edge-cert" }),
      ),
    );
    expect(modelled.rawMessage).toContain(
      '(clusters["shop-api"].tlsSecretName) names secret edge-cert',
    );
    expect(await clusterNames()).not.toContain("shop-api");
    // Its own team's secret it may name.
    await api(shop).createCluster(
      edsCluster("shop-api", "10.0.0.9:443", { tlsSecretName: "shop-ca" }),
    );
    expect(await clusterNames()).toContain("shop-api");
  });

  it("serves a secret over SDS only for an object that may use it: a team's cluster an admin made name another's secret gets its node group nothing, until the secret is shared", async () => {
    // An admin may write anything: the team's cluster names the admin's certificate.
    await api(admin).createCluster(presenting("shop-mtls", "edge-cert"));
    await access().setClusterOwner({ cluster: "shop-mtls", teamId: shopTeam });
    await api(admin).createNodeGroup({
      name: "shop-proxies",
      priority: 1,
      nodeIds: ["shop-node"],
      clusters: ["shop-api", "shop-mtls"],
    });
    const published = await api(admin).publish({ message: "shop clusters" });
    expect(published.warnings.map((w) => [w.code, w.path])).toContainEqual([
      "secret-not-entitled",
      'clusters["shop-mtls"]',
    ]);
    const served = async () => {
      const xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`, {
        headers: xdsHeaders,
      });
      try {
        const stream = xds.open("ads", { node: { id: "shop-node", cluster: "shop" } });
        stream.request(TypeUrl.Secret, ["edge-cert", "shop-ca"]);
        const response = await stream.next(10_000);
        stream.close();
        return response.resources
          .map((r) => (anyUnpack(r as never, registry) as EnvoySecret).name)
          .sort();
      } finally {
        xds.close();
      }
    };
    expect(await served()).toEqual(["shop-ca"]);

    await access().setSharing({
      kind: ResourceKind.SECRET,
      name: "edge-cert",
      teamIds: [shopTeam],
    });
    await api(admin).publish({ message: "edge-cert shared with shop" });
    expect(await served()).toEqual(["edge-cert", "shop-ca"]);
    expect((await teamOf(shopTeam))?.shared.map((o) => [o.kind, o.name])).toEqual([
      [ResourceKind.SECRET, "edge-cert"],
    ]);
  });

  it("refuses a member's route to a cluster that is neither the team's nor shared with it, or that does not exist, and takes one shared with it", async () => {
    await api(admin).createCluster(edsCluster("search", "10.0.0.7:80"));
    await api(pay).createCluster(edsCluster("pay-ledger", "10.0.0.8:80"));
    const routes = (target: string) =>
      routeConfiguration("shop-routes", [virtualHost("shop", ["www.shop.example.com"], target)]);
    const admins = await refusal(api(shop).createRouteConfiguration(routes("search")));
    expect(admins.code).toBe(Code.PermissionDenied);
    expect(admins.rawMessage).toContain(
      'route configuration shop-routes (routeConfigurations["shop-routes"].virtualHosts["shop"].routes[0].cluster) names cluster search, which is an admin\'s and not shared with team shop',
    );
    const payOwned = await refusal(api(shop).createRouteConfiguration(routes("pay-ledger")));
    expect(payOwned.rawMessage).toContain("names cluster pay-ledger, which is team pay's");
    const missing = await refusal(api(shop).createRouteConfiguration(routes("not-yet")));
    expect(missing.rawMessage).toContain("names cluster not-yet, which does not exist");
    expect((await api(admin).listRouteConfigurations({})).routeConfigurations).toEqual([]);

    await access().setSharing({ kind: ResourceKind.CLUSTER, name: "search", teamIds: [shopTeam] });
    await api(shop).createRouteConfiguration(routes("search"));
    // A request-chosen cluster could be any cluster of the proxy: only an admin writes one.
    const header = await refusal(
      api(shop).updateRouteConfiguration(
        routeConfiguration("shop-routes", [
          virtualHost("shop", ["www.shop.example.com"], "search", {
            extra: { route: { clusterHeader: "x-cluster" } },
            cluster: "",
            actionKind: RouteActionKind.CLUSTER_HEADER,
          }),
        ]),
      ),
    );
    expect(header.code).toBe(Code.PermissionDenied);
    expect(header.rawMessage).toContain("the request picks the cluster here");
  });

  it("refuses a member's publish of what the team may no longer use: unsharing after the write is caught at publish", async () => {
    await api(admin).createCluster(edsCluster("catalog", "10.0.0.6:80"));
    await access().setSharing({ kind: ResourceKind.CLUSTER, name: "catalog", teamIds: [shopTeam] });
    await api(admin).publish({ message: "catalog" });
    await api(shop).updateRouteConfiguration(
      routeConfiguration("shop-routes", [virtualHost("shop", ["www.shop.example.com"], "catalog")]),
    );
    await access().setSharing({ kind: ResourceKind.CLUSTER, name: "catalog", teamIds: [] });
    const before = (await api(admin).listSnapshots({ limit: 1 })).snapshots[0]?.version;
    const refused = await refusal(api(shop).publish({ message: "route to catalog" }));
    expect(refused.code).toBe(Code.PermissionDenied);
    expect(refused.rawMessage).toContain(
      "names cluster catalog, which is an admin's and not shared with team shop",
    );
    expect((await api(admin).listSnapshots({ limit: 1 })).snapshots[0]?.version).toBe(before);
    await api(admin).discardDraft({});
  });

  it("keeps a name its owner's while only the draft deleted it: another team cannot re-create it, the owner can", async () => {
    await api(pay).createCluster(edsCluster("pay-backend", "10.0.0.5:80"));
    await api(pay).publish({ message: "pay-backend" });
    await api(pay).deleteCluster({ name: "pay-backend" });

    const taken = await refusal(api(shop).createCluster(edsCluster("pay-backend", "10.9.9.9:80")));
    expect(taken.code).toBe(Code.PermissionDenied);
    expect(taken.rawMessage).toContain(
      "cluster pay-backend was added by another team, not team shop",
    );
    expect(await clusterNames()).not.toContain("pay-backend");
    // Through an import into the draft too, the name is not the importer's.
    const applied = await refusal(
      api(shop).import({
        filename: "pay-backend.yaml",
        content: JSON.stringify([
          {
            "@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster",
            name: "pay-backend",
            type: "EDS",
            connect_timeout: "1s",
            eds_cluster_config: { eds_config: { ads: {} } },
          },
        ]),
      }),
    );
    expect(applied.rawMessage).toContain("cluster pay-backend was added by another team");
    expect(applied.code).toBe(Code.PermissionDenied);

    await api(pay).createCluster(edsCluster("pay-backend", "10.0.0.5:8080"));
    expect((await teamOf(payTeam))?.clusters).toContain("pay-backend");
    expect((await teamOf(shopTeam))?.clusters).not.toContain("pay-backend");
  });

  it("ends an object's shares when a published version deletes it, so the next object of that name is shared with no one", async () => {
    await api(admin).createCluster(edsCluster("common", "10.0.0.4:80"));
    await access().setSharing({
      kind: ResourceKind.CLUSTER,
      name: "common",
      teamIds: [shopTeam, payTeam],
    });
    await api(admin).publish({ message: "common" });
    await api(admin).deleteCluster({ name: "common" });
    // A draft deletion keeps them.
    expect((await teamOf(payTeam))?.shared.map((o) => o.name)).toContain("common");
    await api(admin).publish({ message: "common gone" });
    await api(admin).createCluster(edsCluster("common", "10.0.0.4:80"));
    expect((await teamOf(payTeam))?.shared.map((o) => o.name)).not.toContain("common");
    expect((await teamOf(shopTeam))?.shared.map((o) => o.name)).not.toContain("common");
    const audit = await access().listAuditEvents({ action: "share.set" });
    expect(audit.events.map((e) => e.target)).toContain("cluster/common");
  });

  it("validates the draft by the grants of the moment: sharing a team's cluster's secret with the team takes back its warning at once, unsharing brings it back", async () => {
    await api(admin).createSecret({
      name: "vault-cert",
      type: SecretType.TLS_CERTIFICATE,
      certificateChain: edge.cert,
      privateKey: edge.key,
    });
    await api(admin).createCluster(presenting("shop-vault", "vault-cert"));
    await access().setClusterOwner({ cluster: "shop-vault", teamId: shopTeam });
    const withheld = async () =>
      (await api(admin).validate({})).issues
        .filter((i) => i.code === "secret-not-entitled")
        .map((i) => i.path);
    expect(await withheld()).toContain('clusters["shop-vault"]');
    // The draft is unchanged: only the sharing is, and the answer follows it.
    const share = (teamIds: string[]) =>
      access().setSharing({ kind: ResourceKind.SECRET, name: "vault-cert", teamIds });
    await share([shopTeam]);
    expect(await withheld()).not.toContain('clusters["shop-vault"]');
    await share([]);
    expect(await withheld()).toContain('clusters["shop-vault"]');
  });
});
