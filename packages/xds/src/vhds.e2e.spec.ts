/**
 * VHDS (on-demand virtual hosts) over real gRPC Delta streams, as Envoy's "Virtual Host Discovery
 * Service (VHDS)" page (and the VHDS section of the xDS protocol page's v2-era editions) describes
 * it and Envoy asks: names `<route configuration>/<host>`, answered by the virtual host serving the
 * host under its own name with the requested names as aliases; an unknown host answered with name
 * and aliases and no body; VHDS after RDS; an RDS update resets the virtual hosts; no SotW variant.
 */
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { registry } from "@switchyard/proto";
import type { VirtualHost } from "@switchyard/proto/envoy/config/route/v3/route_components_pb";
import type {
  DeltaDiscoveryResponse,
  Resource,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { type ConfigSpec, TypeUrl } from "@switchyard/snapshot";
import { routeSpec, vhdsSpec, virtualHostSpec } from "@switchyard/snapshot/fixtures";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./test-client.js";

const VHDS = TypeUrl.VirtualHost;
const RDS = TypeUrl.RouteConfiguration;
const CDS = TypeUrl.Cluster;
const node = { id: "vhds-node", cluster: "edge" };

/** Each Resource as [name, aliases, has a body]. */
function entries(response: DeltaDiscoveryResponse): [string, string[], boolean][] {
  return response.resources.map((r) => [r.name, [...r.aliases], r.resource !== undefined]);
}

function virtualHostOf(resource: Resource | undefined): VirtualHost {
  const body = resource?.resource && anyUnpack(resource.resource, registry);
  if (body?.$typeName !== "envoy.config.route.v3.VirtualHost") throw new Error("not a VirtualHost");
  return body as VirtualHost;
}

/** vhdsSpec with the shop virtual host routing to `cluster`, and no fallback unless asked. */
function shopTo(cluster: string, options: { fallback?: boolean; extra?: object } = {}): ConfigSpec {
  const spec = vhdsSpec([
    virtualHostSpec("shop", ["shop.example.com", "www.shop.example.com"], [routeSpec(cluster)]),
    virtualHostSpec("wild", ["*.example.com"], [routeSpec("wild")]),
    ...(options.fallback ? [virtualHostSpec("fallback", ["*"], [routeSpec("fallback")])] : []),
  ]);
  const [rc] = spec.routeConfigurations;
  if (!rc || !options.extra) return spec;
  return { ...spec, routeConfigurations: [{ ...rc, extra: { ...options.extra } }] };
}

describe("VHDS over real Delta streams", () => {
  let xds: TestServer;

  beforeEach(async () => {
    xds = await startTestServer(vhdsSpec());
  });

  afterEach(async () => {
    await xds.close();
  });

  it("a host is answered with the virtual host serving it, under its own name <route configuration>/<virtual host>, aliased by the requested name", async () => {
    const stream = xds.client.openDelta("ads", { node });
    stream.request(VHDS, ["edge-routes/shop.example.com"]);
    const response = await stream.next();
    expect(response.typeUrl).toBe(VHDS);
    expect(entries(response)).toEqual([
      ["edge-routes/shop", ["edge-routes/shop.example.com"], true],
    ]);
    const vhost = virtualHostOf(response.resources[0]);
    expect(vhost.name).toBe("edge-routes/shop");
    expect(vhost.domains).toEqual(["shop.example.com", "www.shop.example.com"]);
    expect(response.removedResources).toEqual([]);
    stream.ack(response);
    await stream.expectNoResponse(200);
    stream.close();
  });

  it("resolves hosts as Envoy matches them: exact, suffix wildcard, prefix wildcard, then *", async () => {
    const stream = xds.client.openDelta("ads", { node });
    stream.request(VHDS, [
      "edge-routes/SHOP.example.com",
      "edge-routes/cart.example.com",
      "edge-routes/api.internal",
      "edge-routes/other.org",
    ]);
    const response = await stream.next();
    expect(entries(response)).toEqual([
      ["edge-routes/api", ["edge-routes/api.internal"], true],
      ["edge-routes/fallback", ["edge-routes/other.org"], true],
      ["edge-routes/shop", ["edge-routes/SHOP.example.com"], true],
      ["edge-routes/wild", ["edge-routes/cart.example.com"], true],
    ]);
    stream.ack(response);
    stream.close();
  });

  it("two hosts served by one virtual host get one resource with both aliases", async () => {
    const stream = xds.client.openDelta("ads", { node });
    stream.request(VHDS, ["edge-routes/shop.example.com", "edge-routes/www.shop.example.com"]);
    const response = await stream.next();
    expect(entries(response)).toEqual([
      [
        "edge-routes/shop",
        ["edge-routes/shop.example.com", "edge-routes/www.shop.example.com"],
        true,
      ],
    ]);
    stream.ack(response);

    // A second host asked later: the virtual host again, with every alias it now serves.
    stream.request(VHDS, ["edge-routes/a.example.com"]);
    const later = await stream.next();
    expect(entries(later)).toEqual([["edge-routes/wild", ["edge-routes/a.example.com"], true]]);
    stream.ack(later);
    stream.close();
  });

  it("an unknown host is answered with a resource whose name and aliases are the requested name and whose body is unset, and is sent once a virtual host serves it", async () => {
    xds.publish(shopTo("shop"));
    const stream = xds.client.openDelta("ads", { node });
    stream.request(VHDS, ["edge-routes/nowhere.org", "missing-routes/shop.example.com"]);
    const response = await stream.next();
    expect(entries(response)).toEqual([
      ["edge-routes/nowhere.org", ["edge-routes/nowhere.org"], false],
      ["missing-routes/shop.example.com", ["missing-routes/shop.example.com"], false],
    ]);
    expect(response.removedResources).toEqual([]);
    stream.ack(response);
    await stream.expectNoResponse(200);

    xds.publish(shopTo("shop", { fallback: true }));
    const arrived = await stream.next();
    expect(entries(arrived)).toEqual([["edge-routes/fallback", ["edge-routes/nowhere.org"], true]]);
    stream.ack(arrived);
    stream.close();
  });

  it("a change to a subscribed virtual host is pushed; a change to another is not", async () => {
    xds.publish(shopTo("shop"));
    const stream = xds.client.openDelta("ads", { node });
    stream.request(VHDS, ["edge-routes/shop.example.com"]);
    const first = await stream.next();
    stream.ack(first);

    const spec = shopTo("shop");
    const [rc] = spec.routeConfigurations;
    if (!rc) throw new Error("no route configuration");
    const [shop, wild] = rc.virtualHosts;
    if (!shop || !wild) throw new Error("no virtual hosts");
    // Only wild changes: nothing to send.
    xds.publish({
      ...spec,
      routeConfigurations: [
        { ...rc, virtualHosts: [shop, { ...wild, extra: { includeRequestAttemptCount: true } }] },
      ],
    });
    await stream.expectNoResponse(250);

    xds.publish({
      ...spec,
      routeConfigurations: [
        { ...rc, virtualHosts: [{ ...shop, extra: { includeRequestAttemptCount: true } }, wild] },
      ],
    });
    const update = await stream.next();
    expect(entries(update)).toEqual([["edge-routes/shop", ["edge-routes/shop.example.com"], true]]);
    expect(update.resources[0]?.version).not.toBe(first.resources[0]?.version);
    expect(virtualHostOf(update.resources[0]).includeRequestAttemptCount).toBe(true);
    stream.ack(update);
    stream.close();
  });

  it("a deleted virtual host is removed by its name; a host it served is then answered by the one that serves it now, or with no body", async () => {
    xds.publish(shopTo("shop", { fallback: true }));
    const stream = xds.client.openDelta("ads", { node });
    stream.request(VHDS, ["edge-routes/shop.example.com", "edge-routes/b.example.com"]);
    const first = await stream.next();
    expect(entries(first).map(([name]) => name)).toEqual(["edge-routes/shop", "edge-routes/wild"]);
    stream.ack(first);

    // shop goes: its host falls to the longest wildcard, which also serves b.example.com.
    const spec = shopTo("shop", { fallback: true });
    const [rc] = spec.routeConfigurations;
    if (!rc) throw new Error("no route configuration");
    xds.publish({
      ...spec,
      routeConfigurations: [
        { ...rc, virtualHosts: rc.virtualHosts.filter((v) => v.name !== "shop") },
      ],
    });
    const moved = await stream.next();
    expect(entries(moved)).toEqual([
      ["edge-routes/wild", ["edge-routes/b.example.com", "edge-routes/shop.example.com"], true],
    ]);
    expect(moved.removedResources).toEqual(["edge-routes/shop"]);
    stream.ack(moved);

    // wild goes too: both hosts fall to the fallback.
    xds.publish({
      ...spec,
      routeConfigurations: [
        { ...rc, virtualHosts: rc.virtualHosts.filter((v) => v.name === "fallback") },
      ],
    });
    const fallback = await stream.next();
    expect(entries(fallback)).toEqual([
      ["edge-routes/fallback", ["edge-routes/b.example.com", "edge-routes/shop.example.com"], true],
    ]);
    expect(fallback.removedResources).toEqual(["edge-routes/wild"]);
    stream.ack(fallback);

    xds.publish({ ...spec, routeConfigurations: [{ ...rc, virtualHosts: [] }] });
    const none = await stream.next();
    expect(entries(none)).toEqual([
      ["edge-routes/b.example.com", ["edge-routes/b.example.com"], false],
      ["edge-routes/shop.example.com", ["edge-routes/shop.example.com"], false],
    ]);
    expect(none.removedResources).toEqual(["edge-routes/fallback"]);
    stream.ack(none);
    stream.close();
  });

  it("an unsubscribed host needs no answer", async () => {
    const stream = xds.client.openDelta("ads", { node });
    stream.request(VHDS, ["edge-routes/shop.example.com"]);
    stream.ack(await stream.next());
    stream.request(VHDS, [], ["edge-routes/shop.example.com"]);
    await stream.expectNoResponse(250);
    stream.close();
  });

  it("Envoy's first request, the bare route configuration name, is answered at once: no base virtual hosts, the name removed", async () => {
    const stream = xds.client.openDelta("ads", { node });
    stream.request(VHDS, ["edge-routes"]);
    const response = await stream.next();
    expect(response.resources).toEqual([]);
    expect(response.removedResources).toEqual(["edge-routes"]);
    stream.ack(response);

    stream.request(VHDS, ["edge-routes/shop.example.com"]);
    expect(entries(await stream.next())).toEqual([
      ["edge-routes/shop", ["edge-routes/shop.example.com"], true],
    ]);
    stream.close();
  });

  it("VHDS after RDS: a client asking for both gets the route configuration first and its virtual hosts only after the RDS ACK", async () => {
    const stream = xds.client.openDelta("ads", { node });
    stream.request(RDS, ["edge-routes"]);
    stream.request(VHDS, ["edge-routes/shop.example.com"]);
    const rds = await stream.next();
    expect(rds.typeUrl).toBe(RDS);
    await stream.expectNoResponse(250);
    stream.ack(rds);
    const vhds = await stream.next();
    expect(vhds.typeUrl).toBe(VHDS);
    expect(entries(vhds)).toEqual([["edge-routes/shop", ["edge-routes/shop.example.com"], true]]);
    stream.ack(vhds);
    stream.close();
  });

  it("a route configuration update resets the node's virtual hosts of it: after the RDS ACK, each is sent again with its aliases", async () => {
    xds.publish(shopTo("shop"));
    const stream = xds.client.openDelta("ads", { node });
    stream.request(RDS, ["edge-routes"]);
    stream.ack(await stream.next());
    stream.request(VHDS, ["edge-routes/shop.example.com", "edge-routes/a.example.com"]);
    const first = await stream.next();
    stream.ack(first);

    xds.publish(shopTo("shop", { extra: { maxDirectResponseBodySizeBytes: 2048 } }));
    const rds = await stream.next();
    expect(rds.typeUrl).toBe(RDS);
    await stream.expectNoResponse(250);
    stream.ack(rds);
    const again = await stream.next();
    expect(again.typeUrl).toBe(VHDS);
    expect(entries(again)).toEqual(entries(first));
    expect(again.resources.map((r) => r.version)).toEqual(first.resources.map((r) => r.version));
    stream.ack(again);
    await stream.expectNoResponse(200);
    stream.close();
  });

  it("make before break: a virtual host moved to a new cluster comes after that cluster's ACK, and the old cluster goes only after the virtual host's ACK", async () => {
    xds.publish(shopTo("shop"));
    const stream = xds.client.openDelta("ads", { node });
    stream.request(CDS, ["*"]);
    stream.ack(await stream.next());
    stream.request(VHDS, ["edge-routes/shop.example.com"]);
    stream.ack(await stream.next());

    xds.publish(shopTo("shop-v2"));
    const make = await stream.next();
    expect(make.typeUrl).toBe(CDS);
    expect(make.resources.map((r) => r.name)).toEqual(["shop-v2"]);
    expect(make.removedResources).toEqual([]);
    await stream.expectNoResponse(250);
    stream.ack(make);

    const moved = await stream.next();
    expect(moved.typeUrl).toBe(VHDS);
    expect(entries(moved)).toEqual([["edge-routes/shop", ["edge-routes/shop.example.com"], true]]);
    await stream.expectNoResponse(250);
    stream.ack(moved);

    const dropped = await stream.next();
    expect(dropped.typeUrl).toBe(CDS);
    expect(dropped.removedResources).toEqual(["shop"]);
    stream.ack(dropped);
    stream.close();
  });

  it("the per-type VirtualHostDiscoveryService.DeltaVirtualHosts serves the same", async () => {
    const stream = xds.client.openDelta(VHDS, { node });
    stream.request(VHDS, ["edge-routes/x.example.com"]);
    const response = await stream.next();
    expect(entries(response)).toEqual([["edge-routes/wild", ["edge-routes/x.example.com"], true]]);
    stream.ack(response);
    stream.close();
  });

  it("VHDS has no SotW variant: a SotW ADS request for it ends the stream with INVALID_ARGUMENT saying to use Delta", async () => {
    const stream = xds.client.open("ads", { node });
    stream.request(VHDS, ["edge-routes/shop.example.com"]);
    const error = await stream.ended();
    expect(error?.code).toBe(Code.InvalidArgument);
    expect(error?.rawMessage).toContain("Delta xDS only");
  });
});
