import { Code, ConnectError } from "@connectrpc/connect";
import { LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import { NodeTypeStatus } from "@switchyard/proto/switchyard/v1/status_pb";
import { type EchoBackend, startEchoBackend, type XdsEchoClient } from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, type StatusClient, statusClient } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import {
  GRPC_LB_NACK as NACK_TEXT,
  openShop,
  shopCluster,
  TYPE,
  typeStatusOf,
  until,
} from "../src/testing/shop.js";

const { CDS, EDS, LDS, RDS } = TYPE;
const NODE_ID = "status-client";

describe("node status through the StatusService, with a real gRPC xDS client", () => {
  let harness: Harness;
  let status: StatusClient;
  let backend: EchoBackend;
  let client: XdsEchoClient;

  const findNode = async () => (await status.listNodes({})).nodes.find((n) => n.id === NODE_ID);

  beforeAll(async () => {
    backend = await startEchoBackend("blue");
    harness = await startHarness();
    status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    client = await openShop(harness, backend, NODE_ID);
  });

  afterAll(async () => {
    client?.close();
    await harness?.stop();
    await backend?.stop();
  });

  it("lists the connected node with every type SYNCED", async () => {
    const summary = await until(
      findNode,
      (n) => [CDS, EDS, LDS, RDS].every((t) => typeStatusOf(n, t) === NodeTypeStatus.SYNCED),
      "the node never showed SYNCED for CDS, EDS, LDS and RDS",
    );
    expect(summary?.connected).toBe(true);
    expect(summary?.connectedSince).toBeDefined();
    expect(summary?.disconnectedAt).toBeUndefined();
    expect(summary?.replica).not.toBe("");
    expect(summary?.userAgentName).not.toBe("");
    const cds = summary?.types.find((t) => t.typeUrl === CDS);
    expect(cds?.ackedVersion).toBe(cds?.sentVersion);
    expect(cds?.ackedTime).toBeDefined();

    // Filters.
    const ids = async (request: Parameters<StatusClient["listNodes"]>[0]) =>
      (await status.listNodes(request)).nodes.map((n) => n.id);
    expect(await ids({ idContains: "status-cli" })).toEqual([NODE_ID]);
    expect(await ids({ idContains: "no-such-node" })).toEqual([]);
    expect(await ids({ connectedOnly: true })).toContain(NODE_ID);
    expect(await ids({ status: NodeTypeStatus.SYNCED })).toContain(NODE_ID);
    expect(await ids({ status: NodeTypeStatus.NACKED })).toEqual([]);
  });

  it("shows what the node holds per type, and its connect event", async () => {
    const detail = await status.getNode({ id: NODE_ID });
    expect(detail.summary?.id).toBe(NODE_ID);
    const held = (typeUrl: string) =>
      Object.keys(detail.held.find((h) => h.typeUrl === typeUrl)?.resources ?? {});
    expect(held(CDS)).toEqual(["blue"]);
    expect(held(LDS)).toEqual(["shop"]);
    expect(held(RDS)).toEqual(["shop-routes"]);
    expect(held(EDS)).toEqual(["blue"]);
    expect(detail.events.map((e) => e.kind)).toContain("connect");
    // In sync: what it holds is, resource by resource, what the latest version gives its group.
    expect(detail.intendedVersion).toBeGreaterThan(0n);
    expect(detail.intendedGroup).toBe("default");
    for (const type of detail.held) expect(type.intended).toEqual(type.resources);
    // Its identity as it reported it.
    expect(detail.clientFeatures.length).toBeGreaterThan(0);
    expect(detail.locality).toBeDefined();
  });

  it("answers NotFound, with the id, for an unknown node", async () => {
    const error = await status.getNode({ id: "nobody" }).catch((e: unknown) => e);
    expect(ConnectError.from(error).code).toBe(Code.NotFound);
    expect(ConnectError.from(error).rawMessage).toMatch(/node "nobody" is unknown/);
  });

  it("shows CDS NACKED with the client's error text after a LEAST_REQUEST publish", async () => {
    await harness
      .api()
      .updateCluster(shopCluster("blue", backend, { lbPolicy: LbPolicy.LEAST_REQUEST }));
    await harness.api().publish({ message: "blue on LEAST_REQUEST", acceptWarnings: true });
    const summary = await until(
      findNode,
      (n) => typeStatusOf(n, CDS) === NodeTypeStatus.NACKED,
      "the node never showed CDS NACKED",
    );
    const cds = summary?.types.find((t) => t.typeUrl === CDS);
    expect(cds?.nackMessage).toMatch(NACK_TEXT);
    // grpc-js-xds names the rejected resource by its index in the response: read as blue.
    expect(cds?.nackRejected).toEqual(["blue"]);
    expect(cds?.nackVersion).toBe(cds?.sentVersion);
    expect(cds?.ackedVersion).not.toBe(cds?.nackVersion);
    expect(typeStatusOf(summary, LDS)).toBe(NodeTypeStatus.SYNCED);
    expect(
      (await status.listNodes({ status: NodeTypeStatus.NACKED })).nodes.map((n) => n.id),
    ).toEqual([NODE_ID]);
    const detail = await until(
      () => status.getNode({ id: NODE_ID }),
      (d) => d.events.some((e) => e.kind === "nack"),
      "no nack event",
    );
    const nack = detail.events.find((e) => e.kind === "nack");
    expect(nack?.typeUrl).toBe(CDS);
    expect(nack?.detail).toMatch(NACK_TEXT);
    // Held back: the rejected blue only (nothing else of the publish needs it).
    const heldBack = await until(
      findNode,
      (n) => (n?.types.find((t) => t.typeUrl === CDS)?.heldBack.length ?? 0) > 0,
      "blue never showed as held back",
    );
    expect(
      heldBack?.types.flatMap((t) => t.heldBack.map((r) => [t.typeUrl, r.name, r.reason.case])),
    ).toEqual([[CDS, "blue", "rejected"]]);
  });
});
