/**
 * `switchyard node ID --at TIME` and `switchyard nodes --at TIME` on a real gRPC xDS client:
 * it ACKs the first version and NACKs the second; at a time between the two it held the first,
 * after the NACK it still holds the first and shows the NACK's text (node history, issue 46).
 */
import { LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import { NodeTypeStatus } from "@switchyard/proto/switchyard/v1/status_pb";
import {
  bearer,
  GRPC_LB_NACK,
  type Harness,
  openShop,
  type StatusClient,
  shopCluster,
  startHarness,
  statusClient,
  TYPE,
  typeStatusOf,
  until,
} from "@switchyard/server/testing";
import { type EchoBackend, startEchoBackend, type XdsEchoClient } from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const NODE_ID = "history-client";

describe("switchyard node / nodes --at, with a real gRPC xDS client that ACKed v1 and NACKed v2", () => {
  let harness: Harness;
  let status: StatusClient;
  let backend: EchoBackend;
  let client: XdsEchoClient;
  /** A time after the first version's ACK and before the second's publish. */
  let between: string;
  /** The version_info the client ACKed for CDS on the first version. */
  let firstCds: string;

  beforeAll(async () => {
    backend = await startEchoBackend("blue");
    harness = await startHarness();
    status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    client = await openShop(harness, backend, NODE_ID);
    const synced = await until(
      async () => (await status.listNodes({})).nodes.find((n) => n.id === NODE_ID),
      (n) => typeStatusOf(n, TYPE.CDS) === NodeTypeStatus.SYNCED,
      "the node never showed CDS SYNCED",
    );
    firstCds = synced?.types.find((t) => t.typeUrl === TYPE.CDS)?.ackedVersion ?? "";
    expect(firstCds).not.toBe("");
    // The ACK is in the database (listNodes read it): now is at or after it (history reads are
    // inclusive), and before the next publish sends anything.
    between = new Date().toISOString();
    await harness
      .api()
      .updateCluster(shopCluster("blue", backend, { lbPolicy: LbPolicy.LEAST_REQUEST }));
    await harness.api().publish({ message: "blue on LEAST_REQUEST", acceptWarnings: true });
    await until(
      async () => (await status.listNodes({})).nodes.find((n) => n.id === NODE_ID),
      (n) => typeStatusOf(n, TYPE.CDS) === NodeTypeStatus.NACKED,
      "the node never showed CDS NACKED",
    );
  });

  afterAll(async () => {
    client?.close();
    await harness?.stop();
    await backend?.stop();
  });

  const cli = async (...args: string[]) => runCli(harness.baseUrl, await harness.token(), ...args);

  it("node --at a time between the two versions answers the first version, ACKed and connected", async () => {
    const then = await cli("node", NODE_ID, "--at", between);
    expect(then.stderr).toBe("");
    expect(then.code).toBe(0);
    expect(then.stdout).toMatch(new RegExp(`^node ${NODE_ID} at `));
    expect(then.stdout).toMatch(/connected\s+yes, since /);
    expect(then.stdout).toMatch(new RegExp(`^CDS\\s+ACKED\\s+${firstCds}\\s`, "m"));
    expect(then.stdout).not.toMatch(GRPC_LB_NACK);
  });

  it("node --at now answers the NACK with its text, the first version still held", async () => {
    const now = await cli("node", NODE_ID, "--at", "now");
    expect(now.code).toBe(0);
    expect(now.stdout).toMatch(new RegExp(`^CDS\\s+NACKED\\s+${firstCds}\\s`, "m"));
    expect(now.stdout).toMatch(/CDS NACK of version \S+ at /);
    expect(now.stdout).toMatch(GRPC_LB_NACK);
    const json = await cli("node", NODE_ID, "--at", "now", "-o", "json");
    const held = JSON.parse(json.stdout) as {
      connected?: boolean;
      types: Array<{ typeUrl: string; state: string; nackErrorDetail?: string }>;
    };
    expect(held.connected).toBe(true);
    const cds = held.types.find((t) => t.typeUrl === TYPE.CDS);
    expect(cds?.state).toBe("NACKED");
    expect(cds?.nackErrorDetail).toMatch(GRPC_LB_NACK);
  });

  it("nodes --at lists the node with the CDS version it held then, and the NACK after", async () => {
    const then = await cli("nodes", "--at", between);
    expect(then.code).toBe(0);
    expect(then.stdout).toMatch(/ID\s+CONNECTED\s+CDS\s+EDS\s+LDS\s+RDS/);
    expect(then.stdout).toMatch(new RegExp(`^${NODE_ID}\\s+yes\\s+${firstCds}\\s`, "m"));
    const now = await cli("nodes", "--at", "now");
    expect(now.stdout).toMatch(new RegExp(`^${NODE_ID}\\s+yes\\s+${firstCds} \\(NACKED\\)`, "m"));
  });

  it("a time before the node connected answers that nothing is known; a bad time is refused", async () => {
    const before = await cli("node", NODE_ID, "--at", "2020-01-01T00:00:00Z");
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/connected\s+unknown/);
    expect(before.stdout).toMatch(/no history of this node's types before then/);
    const bad = await cli("node", NODE_ID, "--at", "yesterday");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/invalid time "yesterday"/);
  });
});
