/**
 * `switchyard nodes` and `switchyard node` on a real gRPC xDS client that NACKed a cluster: the
 * table, the JSON and the detail say what the StatusService says (status.e2e in
 * @switchyard/server).
 */
import { LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import { NodeTypeStatus } from "@switchyard/proto/switchyard/v1/status_pb";
import {
  bearer,
  type Harness,
  GRPC_LB_NACK as NACK_TEXT,
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
import { node, nodes } from "../src/status-commands.js";
import { runCli } from "./run-cli.js";

const NODE_ID = "status-client";

describe("switchyard nodes / node, with a real gRPC xDS client that NACKed a cluster", () => {
  let harness: Harness;
  let status: StatusClient;
  let backend: EchoBackend;
  let client: XdsEchoClient;

  beforeAll(async () => {
    backend = await startEchoBackend("blue");
    harness = await startHarness();
    status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    client = await openShop(harness, backend, NODE_ID);
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

  it("prints the node and the NACK through the nodes / node commands", async () => {
    let text = "";
    const output = {
      out: (chunk: string) => {
        text += chunk;
      },
    };
    // Status reaches the database in batches: poll until the table shows the settled state.
    const expected =
      /yes, since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+NACKED\s+SYNCED\s+SYNCED\s+SYNCED/;
    const lineOf = (table: string) => table.split("\n").find((l) => l.startsWith(NODE_ID)) ?? "";
    await until(
      async () => {
        text = "";
        await nodes(status, output, {});
        return text;
      },
      (table) => expected.test(lineOf(table)),
      "`switchyard nodes` never showed CDS NACKED and the other types SYNCED",
    );
    const header = text.split("\n")[0] ?? "";
    expect(header).toMatch(/ID\s+CONNECTED\s+CDS\s+EDS\s+LDS\s+RDS/);
    expect(lineOf(text)).toMatch(expected);

    text = "";
    await nodes(status, output, { output: "json" });
    const json = JSON.parse(text) as {
      nodes: Array<{ id: string; types: Array<{ status: string }> }>;
    };
    expect(json.nodes.find((n) => n.id === NODE_ID)?.types.map((t) => t.status)).toContain(
      "NODE_TYPE_STATUS_NACKED",
    );

    text = "";
    await node(status, output, NODE_ID);
    expect(text).toMatch(new RegExp(`^node ${NODE_ID}\\n`));
    expect(text).toMatch(/^CDS\s+NACKED/m);
    expect(text).toMatch(/CDS NACK of version \S+ at /);
    expect(text).toMatch(NACK_TEXT);
    expect(text).toMatch(/ {2}rejected: blue\n/);
    expect(text).toMatch(
      /held back \(not sent because of NACKs[^\n]*\n.*\nCDS\s+blue\s+\S+\s+rejected by the node/,
    );
    expect(text).toMatch(/held resources:\n[\s\S]*CDS \(1\)\n\s+blue/);
    expect(text).toMatch(/recent events:[\s\S]*nack\s+CDS/);
  });

  it("prints the node and the NACK through the switchyard command", async () => {
    const cli = async (...args: string[]) =>
      runCli(harness.baseUrl, await harness.token(), ...args);
    const list = await cli("nodes");
    expect(list.stderr).toBe("");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${NODE_ID}\\s+yes.*NACKED`));
    const one = await cli("node", NODE_ID);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(NACK_TEXT);
    const missing = await cli("node", "nobody");
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/node "nobody" is unknown/);
  });
});
