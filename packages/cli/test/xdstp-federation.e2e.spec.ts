/**
 * xdstp:// names with both real proxyless gRPC clients (federation, gRFC A47; C-core 1.51 with
 * GRPC_EXPERIMENTAL_XDS_FEDERATION):
 * its bootstrap maps Switchyard's authority to Switchyard and names listeners by an xdstp://
 * template; every resource after the listener is fetched by the xdstp:// names the server puts
 * in the resources it sends. RPCs reach real backends; a publish moves them; node status reads
 * SYNCED with what the node holds under xdstp:// names.
 */
import { NodeTypeStatus } from "@switchyard/proto/switchyard/v1/status_pb";
import {
  bearer,
  type Harness,
  REAL_CLIENTS,
  type StatusClient,
  shopCluster,
  shopListener,
  shopRoutes,
  startHarness,
  statusClient,
  TYPE,
  typeStatusOf,
  until,
  untilAnswerIs,
} from "@switchyard/server/testing";
import {
  callUntilReady,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grpcBootstrap } from "../src/bootstrap.js";

const AUTHORITY = "xds.switchyard.test";
const LISTENER_TEMPLATE = `xdstp://${AUTHORITY}/envoy.config.listener.v3.Listener/%s`;

describe.each(REAL_CLIENTS)("xdstp:// federation with a real gRPC client (%s)", (_name, real) => {
  let harness: Harness;
  let status: StatusClient;
  let blue: EchoBackend;
  let green: EchoBackend;
  const clients: XdsEchoClient[] = [];
  const logLines: string[] = [];

  /** A gRPC client whose bootstrap sends `authority` (and, by default, xds:///) to Switchyard. */
  const federated = async (nodeId: string, authority = AUTHORITY, targetAuthority?: string) => {
    const server = `127.0.0.1:${harness.app.xdsPort}`;
    const client = await real.connect("shop", {
      server,
      nodeId,
      ...(targetAuthority === undefined ? {} : { targetAuthority }),
      // As `switchyard bootstrap --grpc --xdstp-authority AUTHORITY` prints it.
      bootstrap: grpcBootstrap({ nodeId, xdsAddress: server, xdstpAuthority: authority }),
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    [blue, green] = await Promise.all([startEchoBackend("blue"), startEchoBackend("green")]);
    harness = await startHarness({
      app: { xdsAuthorities: [AUTHORITY] },
      logger: pino({ level: "warn" }, { write: (line: string) => void logLines.push(line) }),
    });
    status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    const api = harness.api();
    await api.createCluster(shopCluster("blue", blue));
    await api.createCluster(shopCluster("green", green));
    await api.createRouteConfiguration(shopRoutes("blue"));
    await api.createListener(shopListener());
    await api.publish({ message: "shop on blue" });
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await harness?.stop();
    await Promise.all([blue?.stop(), green?.stop()]);
  });

  it("routes RPCs through xdstp:// names, follows a publish, and reads SYNCED holding them", async () => {
    const client = await federated("federated-client");
    expect(await callUntilReady(client)).toBe("blue");

    await harness.api().updateRouteConfiguration(shopRoutes("green"));
    await harness.api().publish({ message: "shop on green" });
    await untilAnswerIs(client, "green");

    const green = {
      [TYPE.CDS]: `xdstp://${AUTHORITY}/envoy.config.cluster.v3.Cluster/green`,
      [TYPE.EDS]: `xdstp://${AUTHORITY}/envoy.config.endpoint.v3.ClusterLoadAssignment/green`,
    };
    const holdsGreen = (held: { typeUrl: string; resources: { [name: string]: string } }[]) =>
      Object.entries(green).every(([typeUrl, name]) =>
        held.some((h) => h.typeUrl === typeUrl && name in h.resources),
      );
    // Status reaches the database in batches: wait for the record of the client on green.
    const detail = await until(
      () => status.getNode({ id: "federated-client" }),
      (d) =>
        holdsGreen(d.held) &&
        Object.values(TYPE).every(
          (typeUrl) => typeStatusOf(d.summary, typeUrl) === NodeTypeStatus.SYNCED,
        ),
      "the federated client never read SYNCED on every type, holding green",
    );
    const held = Object.fromEntries(
      detail.held.map((h) => [h.typeUrl, Object.keys(h.resources).sort()]),
    );
    expect(held[TYPE.LDS]).toEqual([LISTENER_TEMPLATE.replace("%s", "shop")]);
    expect(held[TYPE.RDS]).toEqual([
      `xdstp://${AUTHORITY}/envoy.config.route.v3.RouteConfiguration/shop-routes`,
    ]);
    // What it should hold is read through the same names.
    for (const entry of detail.held) expect(entry.intended).toEqual(entry.resources);
  });

  it("dials xds://AUTHORITY/shop by that authority's listener template", async () => {
    const client = await federated("authority-target-client", AUTHORITY, AUTHORITY);
    expect(await callUntilReady(client)).toBe("green");
  });

  it("an authority the server does not serve gets no listener, and the server logs why", async () => {
    const client = await federated("foreign-client", "elsewhere.test");
    const error = await client.call(3000).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/does not exist|UNAVAILABLE|Deadline/i);
    await until(
      async () => logLines.join("\n"),
      (log) => log.includes('authority \\"elsewhere.test\\" is not served here'),
      "the server never logged why the foreign authority was not served",
    );
  });
});
