/**
 * xdstp:// names over real gRPC streams (the "xDS transport next steps" design doc, linked in
 * docs/xdstp.md; xdstp-naming.ts): singleton names on SotW (as gRPC federation asks) and Delta,
 * glob collections over Delta with adds and removals, context parameters matched against the
 * node, names of other authorities and malformed names. The real gRPC client over federation is
 * in packages/server/test.
 */
import { fromBinary } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { ListenerSchema } from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import { HttpConnectionManagerSchema } from "@switchyard/proto/envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager_pb";
import { type ConfigSpec, TypeUrl } from "@switchyard/snapshot";
import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  endpointSpec,
  routeConfigurationSpec,
} from "@switchyard/snapshot/fixtures";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deltaNamesOf, namesOf, startTestServer, type TestServer } from "./test-client.js";

const AUTH = "xds.example.com";
const CDS = TypeUrl.Cluster;
const EDS = TypeUrl.ClusterLoadAssignment;
const LDS = TypeUrl.Listener;
const RDS = TypeUrl.RouteConfiguration;
const node = { id: "edge-1", cluster: "edge", metadata: { node_type: "ingress" } };

const name = (type: string, id: string, query = "") =>
  `xdstp://${AUTH}/${type.slice("type.googleapis.com/".length)}/${id}${query}`;

interface Knobs {
  /** Route configuration "shop" routes to this cluster (default team-a/blue). */
  readonly shopCluster?: string;
  /** Also store cluster team-a/violet. */
  readonly withViolet?: boolean;
  /** Leave out cluster team-a/green. */
  readonly withoutGreen?: boolean;
}

/** Clusters team-a/blue, team-a/green, team-a/sub/deep, team-b/red and plain; listener shop. */
function shop(knobs: Knobs = {}): ConfigSpec {
  const at = (ip: string) => [endpointSpec(ip, 9000)];
  const target = knobs.shopCluster ?? "team-a/blue";
  return configSpec({
    clusters: [
      clusterSpec("team-a/blue", at("10.0.0.1")),
      ...(knobs.withoutGreen ? [] : [clusterSpec("team-a/green", at("10.0.0.2"))]),
      ...(knobs.withViolet ? [clusterSpec("team-a/violet", at("10.0.0.5"))] : []),
      clusterSpec("team-a/sub/deep", at("10.0.0.3")),
      clusterSpec("team-b/red", at("10.0.0.4")),
      clusterSpec("plain", at("10.0.0.6")),
    ],
    routeConfigurations: [routeConfigurationSpec("shop", target)],
    listeners: [apiListenerSpec("shop", "shop")],
  });
}

/** The route configuration name a Listener's HTTP connection manager loads over RDS. */
function rdsNameOf(body: Uint8Array): string {
  const listener = fromBinary(ListenerSchema, body);
  const typed = listener.apiListener?.apiListener;
  if (!typed) throw new Error("not an api listener");
  const manager = fromBinary(HttpConnectionManagerSchema, typed.value);
  if (manager.routeSpecifier.case !== "rds") throw new Error("no RDS");
  return manager.routeSpecifier.value.routeConfigName;
}

describe("xdstp:// names over real streams", () => {
  let xds: TestServer;

  beforeEach(async () => {
    xds = await startTestServer(shop(), { authorities: [AUTH, "old.example.com"] });
  });

  afterEach(async () => {
    await xds.close();
  });

  it("SotW ADS: each resource comes under the xdstp:// name asked for, referring onwards by xdstp:// names (gRPC federation)", async () => {
    const stream = xds.client.open("ads", { node });
    const listener = name(LDS, "shop");
    stream.request(LDS, [listener]);
    const lds = await stream.next();
    expect(namesOf(lds)).toEqual([listener]);
    const routes = rdsNameOf(lds.resources[0]?.value ?? new Uint8Array());
    expect(routes).toBe(name(RDS, "shop"));
    stream.ack(lds, [listener]);

    stream.request(RDS, [routes]);
    const rds = await stream.next();
    expect(namesOf(rds)).toEqual([routes]);
    stream.ack(rds, [routes]);

    stream.request(CDS, [name(CDS, "team-a/blue")]);
    const cds = await stream.next();
    expect(namesOf(cds)).toEqual([name(CDS, "team-a/blue")]);
    stream.ack(cds, [name(CDS, "team-a/blue")]);

    stream.request(EDS, [name(EDS, "team-a/blue")]);
    const eds = await stream.next();
    expect(namesOf(eds)).toEqual([name(EDS, "team-a/blue")]);
    stream.ack(eds, [name(EDS, "team-a/blue")]);
    await stream.expectNoResponse(200);
    stream.close();
  });

  it("a plain name and its xdstp:// name on one stream are two subscriptions to the same resource", async () => {
    const stream = xds.client.open("ads", { node });
    stream.request(CDS, ["plain", name(CDS, "plain")]);
    const cds = await stream.next();
    expect(namesOf(cds).sort()).toEqual([name(CDS, "plain"), "plain"].sort());
    stream.close();
  });

  it("Delta: a glob collection delivers every cluster directly in its directory, then adds and removals as they are published", async () => {
    const stream = xds.client.openDelta("ads", { node });
    const glob = name(CDS, "team-a/*");
    stream.request(CDS, [glob]);
    const first = await stream.next();
    expect(deltaNamesOf(first).sort()).toEqual([
      name(CDS, "team-a/blue"),
      name(CDS, "team-a/green"),
    ]);
    expect(first.removedResources).toEqual([]);
    stream.ack(first);
    // Each member's assignment, by the name the member's eds_cluster_config gives.
    stream.request(EDS, [name(EDS, "team-a/blue"), name(EDS, "team-a/green")]);
    stream.ack(await stream.next());

    xds.publish(shop({ withViolet: true }));
    const added = await stream.next();
    expect(added.typeUrl).toBe(CDS);
    expect(deltaNamesOf(added)).toEqual([name(CDS, "team-a/violet")]);
    stream.ack(added);

    xds.publish(shop({ withViolet: true, withoutGreen: true }));
    // Make before break: nothing refers to team-a/green, so it goes in the break step.
    let removal = await stream.next();
    while (removal.typeUrl !== CDS) {
      stream.ack(removal);
      removal = await stream.next();
    }
    expect(removal.resources).toEqual([]);
    expect(removal.removedResources).toEqual([name(CDS, "team-a/green")]);
    stream.ack(removal);
    // Then its assignment, which only it used.
    const assignment = await stream.next();
    expect(assignment.typeUrl).toBe(EDS);
    expect(assignment.removedResources).toEqual([name(EDS, "team-a/green")]);
    stream.ack(assignment);

    // Unsubscribed: later changes in the directory are not sent.
    stream.request(CDS, [], [glob]);
    await stream.expectNoResponse(200);
    xds.publish(shop());
    let next = await stream.tryNext(300);
    while (next) {
      expect(next.typeUrl).not.toBe(CDS);
      stream.ack(next);
      next = await stream.tryNext(300);
    }
    stream.close();
  });

  it("Delta: glob members carry the glob's context parameters; an empty glob is answered once, empty", async () => {
    const stream = xds.client.openDelta("ads", { node });
    stream.request(CDS, [name(CDS, "team-b/*", "?xds.node.cluster=edge")]);
    const members = await stream.next();
    expect(deltaNamesOf(members)).toEqual([name(CDS, "team-b/red", "?xds.node.cluster=edge")]);
    stream.ack(members);

    stream.request(LDS, [name(LDS, "nobody-here/*")]);
    const empty = await stream.next();
    expect(empty.typeUrl).toBe(LDS);
    expect(empty.resources).toEqual([]);
    expect(empty.removedResources).toEqual([]);
    stream.close();
  });

  it("context parameters must match the node: a name qualified for another node does not exist, and the server says why", async () => {
    const stream = xds.client.openDelta("ads", { node });
    const mine = name(CDS, "plain", "?xds.node.cluster=edge&node_type=ingress");
    const theirs = name(CDS, "team-b/red", "?xds.node.cluster=core");
    stream.request(CDS, [mine, theirs]);
    const response = await stream.next();
    expect(deltaNamesOf(response)).toEqual([mine]);
    expect(response.removedResources).toEqual([theirs]);
    const reported = xds.requests.flatMap((r) => r.unresolved ?? []);
    expect(reported).toEqual([
      {
        name: theirs,
        reason: 'context parameter xds.node.cluster=core: the node\'s cluster is "edge"',
      },
    ]);
    stream.close();
  });

  it("every configured authority is served; another authority's names do not exist here", async () => {
    const stream = xds.client.openDelta("ads", { node });
    const old = name(CDS, "plain").replace(AUTH, "old.example.com");
    const foreign = name(CDS, "plain").replace(AUTH, "elsewhere.example.com");
    stream.request(CDS, [old, foreign]);
    const response = await stream.next();
    expect(deltaNamesOf(response)).toEqual([old]);
    expect(response.removedResources).toEqual([foreign]);
    expect(xds.requests.flatMap((r) => r.unresolved ?? [])[0]?.reason).toMatch(
      /authority "elsewhere.example.com" is not served here/,
    );
    stream.close();
  });

  it("Delta ADS keeps make-before-break under xdstp:// names: the new cluster before the route to it, the old one removed after", async () => {
    const stream = xds.client.openDelta("ads", { node });
    const subscribe = async (typeUrl: string, names: string[]) => {
      stream.request(typeUrl, names);
      const response = await stream.next();
      stream.ack(response);
      return response;
    };
    await subscribe(CDS, [name(CDS, "team-a/*")]);
    await subscribe(EDS, [name(EDS, "team-a/blue"), name(EDS, "team-a/green")]);
    await subscribe(LDS, [name(LDS, "shop")]);
    await subscribe(RDS, [name(RDS, "shop")]);

    xds.publish(shop({ withViolet: true, withoutGreen: true, shopCluster: "team-a/violet" }));
    const order: string[] = [];
    for (;;) {
      const response = await stream.tryNext(400);
      if (!response) break;
      order.push(
        `${response.typeUrl.split(".").at(-1)} +${deltaNamesOf(response).join(",")} -${response.removedResources.join(",")}`,
      );
      stream.ack(response);
      // As Envoy does: a new cluster's assignment is asked for on receiving the cluster.
      if (response.typeUrl === CDS && deltaNamesOf(response).includes(name(CDS, "team-a/violet")))
        stream.request(EDS, [name(EDS, "team-a/violet")]);
    }
    expect(order[0]).toBe(`Cluster +${name(CDS, "team-a/violet")} -`);
    const routeAt = order.findIndex((line) => line.startsWith("RouteConfiguration +"));
    const removedAt = order.indexOf(`Cluster + -${name(CDS, "team-a/green")}`);
    expect(routeAt).toBeGreaterThan(0);
    expect(removedAt).toBeGreaterThan(routeAt);
    stream.close();
  });

  it("REST-JSON resolves xdstp:// names and globs as streams do, and refuses a malformed one with 400", async () => {
    const post = (names: string[]) =>
      fetch(`${xds.baseUrl}/v3/discovery:clusters`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ node, resource_names: names }),
      });
    const answer = await post([name(CDS, "team-b/*"), name(CDS, "plain", "?node_type=ingress")]);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { resources: { name: string }[] };
    expect(body.resources.map((r) => r.name).sort()).toEqual([
      name(CDS, "plain", "?node_type=ingress"),
      name(CDS, "team-b/red"),
    ]);
    const refused = await post([`xdstp://${AUTH}`]);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toMatch(
      /resource_names\[0\] "xdstp:\/\/xds.example.com" is not a valid xdstp:\/\/ name: it has no resource type/,
    );
  });

  it("a malformed xdstp:// name ends the stream with INVALID_ARGUMENT naming the field and the problem", async () => {
    const stream = xds.client.openDelta("ads", { node });
    stream.request(CDS, ["plain", `xdstp://${AUTH}/envoy.config.cluster.v3.Cluster`]);
    const error = await stream.ended();
    expect(error?.code).toBe(Code.InvalidArgument);
    expect(error?.rawMessage).toMatch(
      /DeltaDiscoveryRequest\.resource_names_subscribe\[1\] ".*" is not a valid xdstp:\/\/ name: it has no resource ID/,
    );

    const sotw = xds.client.open("ads", { node });
    sotw.request(CDS, [name(LDS, "shop")]);
    const wrongType = await sotw.ended();
    expect(wrongType?.code).toBe(Code.InvalidArgument);
    expect(wrongType?.rawMessage).toMatch(
      /DiscoveryRequest\.resource_names\[0\] .* names a resource of type envoy\.config\.listener\.v3\.Listener in a request for type\.googleapis\.com\/envoy\.config\.cluster\.v3\.Cluster/,
    );
  });
});

describe("xdstp:// names on a server with no authority", () => {
  it("resolve to nothing, with the reason naming SWITCHYARD_XDS_AUTHORITY", async () => {
    const xds = await startTestServer(shop());
    try {
      const stream = xds.client.openDelta("ads", { node });
      stream.request(CDS, [name(CDS, "plain")]);
      const response = await stream.next();
      expect(response.removedResources).toEqual([name(CDS, "plain")]);
      expect(xds.requests.flatMap((r) => r.unresolved ?? [])[0]?.reason).toMatch(
        /SWITCHYARD_XDS_AUTHORITY/,
      );
      stream.close();
    } finally {
      await xds.close();
    }
  });
});
