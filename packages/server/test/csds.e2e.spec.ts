/**
 * Client Status Discovery (CSDS) on the xDS port, over real gRPC streams: what a standard CSDS
 * client reads of the fleet agrees with what the StatusService says of the same nodes, node
 * matchers select nodes as Envoy defines them, and only an API token allowed status:read gets an
 * answer.
 */
import { create } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ClientResourceStatus } from "@switchyard/proto/envoy/admin/v3/config_dump_shared_pb";
import {
  type ClientConfig,
  ClientStatusDiscoveryService,
  ClientStatusRequestSchema,
  ConfigStatus,
} from "@switchyard/proto/envoy/service/status/v3/csds_pb";
import { createTestClient, type TestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster } from "../src/testing/api-objects.js";
import {
  ADMIN_PASSWORD,
  bearer,
  refusal,
  type StatusClient,
  statusClient,
  tokenFor,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { TYPE, until } from "../src/testing/shop.js";

const { CDS, EDS } = TYPE;
const NACK_TEXT = "cluster blue: lb_policy not supported";

describe("Client Status Discovery on the xDS port", () => {
  let harness: Harness;
  let status: StatusClient;
  let xds: TestClient;
  let csds: ReturnType<typeof csdsClient>;

  const csdsClient = (token?: string) =>
    createClient(
      ClientStatusDiscoveryService,
      createGrpcTransport({
        baseUrl: `http://127.0.0.1:${harness.app.xdsPort}`,
        interceptors: token === undefined ? [] : [bearer(token)],
      }),
    );

  /** The node's ClientConfig once the status it settled in reached the database. */
  const configOf = async (nodeId: string, settled: (c: ClientConfig) => boolean) =>
    until(
      async () =>
        (
          await csds.fetchClientStatus({
            nodeMatchers: [{ nodeId: { matchPattern: { case: "exact", value: nodeId } } }],
          })
        ).config[0],
      (c) => c !== undefined && settled(c),
      `node ${nodeId} never settled in CSDS`,
    );
  const resource = (config: ClientConfig | undefined, typeUrl: string, name: string) =>
    config?.genericXdsConfigs.find((r) => r.typeUrl === typeUrl && r.name === name);

  beforeAll(async () => {
    harness = await startHarness();
    const api = harness.api();
    await api.createCluster(edsCluster("blue", "127.0.0.1:9001"));
    await api.createCluster(edsCluster("green", "127.0.0.1:9002"));
    await api.publish({ message: "blue and green" });
    const token = await harness.token();
    status = statusClient(harness.baseUrl, [bearer(token)]);
    csds = csdsClient(token);
    xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);

    // envoy-1 holds every cluster, and asks EDS for blue and for a cluster that does not exist.
    const envoy = xds.open("ads", {
      node: { id: "envoy-1", cluster: "edge", metadata: { team: "shop", zone: "eu-1" } },
    });
    envoy.request(CDS, []);
    envoy.ack(await envoy.next(), []);
    envoy.request(EDS, ["blue", "missing"]);
    envoy.ack(await envoy.next(), ["blue", "missing"]);
    // envoy-2 rejects the clusters; it asks EDS for green and never answers that response.
    const nacking = xds.open("ads", {
      node: { id: "envoy-2", cluster: "edge", metadata: { team: "cart" } },
    });
    nacking.request(CDS, []);
    nacking.nack(await nacking.next(), [], NACK_TEXT);
    nacking.request(EDS, ["green"]);
    await nacking.next();
  });

  afterAll(async () => {
    xds?.close();
    await harness?.stop();
  });

  it("reports each resource a node holds as ACKED at the version the StatusService shows it holds, SYNCED with what the server has", async () => {
    // Its ACK of blue's endpoints stored, not only the request for them (REQUESTED, below).
    const config = await configOf(
      "envoy-1",
      (c) => resource(c, EDS, "blue")?.clientStatus === ClientResourceStatus.ACKED,
    );
    const node = await status.getNode({ id: "envoy-1" });
    expect(config?.node?.id).toBe("envoy-1");
    expect(config?.node?.cluster).toBe("edge");
    expect(config?.node?.metadata).toEqual({ team: "shop", zone: "eu-1" });
    for (const typeUrl of [CDS, EDS]) {
      const held = node.held.find((h) => h.typeUrl === typeUrl)?.resources ?? {};
      expect(Object.keys(held).length).toBeGreaterThan(0);
      for (const [name, version] of Object.entries(held)) {
        const r = resource(config, typeUrl, name);
        expect(r?.clientStatus).toBe(ClientResourceStatus.ACKED);
        expect(r?.versionInfo).toBe(version);
        expect(r?.configStatus).toBe(ConfigStatus.SYNCED);
        expect(r?.lastUpdated && timestampMs(r.lastUpdated)).toBeGreaterThan(0);
        expect(r?.errorState).toBeUndefined();
      }
    }
    expect(resource(config, CDS, "green")?.clientStatus).toBe(ClientResourceStatus.ACKED);
  });

  it("a name asked for that the node's snapshot does not have is DOES_NOT_EXIST", async () => {
    const config = await configOf("envoy-1", (c) => resource(c, EDS, "missing") !== undefined);
    expect(resource(config, EDS, "missing")).toMatchObject({
      clientStatus: ClientResourceStatus.DOES_NOT_EXIST,
      versionInfo: "",
    });
  });

  it("a NACK marks what it rejected NACKED with the client's text in error_state; a name sent and not yet ACKed is REQUESTED", async () => {
    const config = await configOf(
      "envoy-2",
      (c) =>
        resource(c, CDS, "blue")?.clientStatus === ClientResourceStatus.NACKED &&
        resource(c, EDS, "green") !== undefined,
    );
    const blue = resource(config, CDS, "blue");
    expect(blue?.configStatus).toBe(ConfigStatus.ERROR);
    expect(blue?.errorState?.details).toBe(NACK_TEXT);
    expect(blue?.errorState?.versionInfo).not.toBe("");
    expect(blue?.errorState?.lastUpdateAttempt).toBeDefined();
    const node = await status.getNode({ id: "envoy-2" });
    expect(node.summary?.types.find((t) => t.typeUrl === CDS)?.nackMessage).toBe(NACK_TEXT);
    expect(resource(config, EDS, "green")).toMatchObject({
      clientStatus: ClientResourceStatus.REQUESTED,
      configStatus: ConfigStatus.STALE,
    });
  });

  it("node matchers select by id and by metadata, matchers OR'd; none selects every node, by id", async () => {
    const ids = async (request: Parameters<typeof csds.fetchClientStatus>[0]) =>
      (await csds.fetchClientStatus(request)).config.map((c) => c.node?.id);
    await configOf("envoy-2", () => true);
    expect(await ids({})).toEqual(["envoy-1", "envoy-2"]);
    expect(
      await ids({
        nodeMatchers: [
          { nodeId: { matchPattern: { case: "safeRegex", value: { regex: "envoy-[2-9]" } } } },
        ],
      }),
    ).toEqual(["envoy-2"]);
    const team = (value: string) => ({
      nodeMetadatas: [
        {
          path: [{ segment: { case: "key" as const, value: "team" } }],
          value: {
            matchPattern: {
              case: "stringMatch" as const,
              value: { matchPattern: { case: "exact" as const, value } },
            },
          },
        },
      ],
    });
    expect(await ids({ nodeMatchers: [team("shop")] })).toEqual(["envoy-1"]);
    expect(await ids({ nodeMatchers: [team("shop"), team("cart")] })).toEqual([
      "envoy-1",
      "envoy-2",
    ]);
    expect(await ids({ nodeMatchers: [team("nobody")] })).toEqual([]);
  });

  it("refuses a matcher it cannot evaluate with InvalidArgument naming the field", async () => {
    const error = await refusal(
      csds.fetchClientStatus({
        nodeMatchers: [{ nodeId: { matchPattern: { case: "safeRegex", value: { regex: "(" } } } }],
      }),
    );
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toMatch(/^node_matchers\[0\]\.node_id\.safe_regex\.regex: not an RE2/);
  });

  it("StreamClientStatus answers every request on the stream with the state at that moment", async () => {
    const request = (id: string) =>
      create(ClientStatusRequestSchema, {
        nodeMatchers: [{ nodeId: { matchPattern: { case: "exact", value: id } } }],
      });
    async function* requests() {
      yield request("envoy-1");
      yield request("envoy-2");
    }
    const answers: (string | undefined)[][] = [];
    for await (const response of csds.streamClientStatus(requests()))
      answers.push(response.config.map((c) => c.node?.id));
    expect(answers).toEqual([["envoy-1"], ["envoy-2"]]);
  });

  it("answers only an API token allowed status:read: none is Unauthenticated, one without the scope PermissionDenied", async () => {
    const anonymous = await refusal(csdsClient().fetchClientStatus({}));
    expect(anonymous.code).toBe(Code.Unauthenticated);
    const configOnly = await tokenFor(harness.baseUrl, "admin", ADMIN_PASSWORD, ["config:read"]);
    const scoped = await refusal(csdsClient(configOnly).fetchClientStatus({}));
    expect(scoped.code).toBe(Code.PermissionDenied);
    const stream = await refusal(
      (async () => {
        for await (const _ of csdsClient().streamClientStatus(
          (async function* () {
            yield create(ClientStatusRequestSchema, {});
          })(),
        ));
      })(),
    );
    expect(stream.code).toBe(Code.Unauthenticated);
  });
});
