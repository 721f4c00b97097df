import { ClientResourceStatus } from "@switchyard/proto/envoy/admin/v3/config_dump_shared_pb";
import { ConfigStatus } from "@switchyard/proto/envoy/service/status/v3/csds_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { describe, expect, it } from "vitest";
import { clientConfigOf } from "./client-status.js";
import { nodeRecord, typeRecord } from "./record-fixtures.js";
import type { NodeTypeRecord } from "./status-reader.js";

const CDS = TypeUrl.Cluster;
const EDS = TypeUrl.ClusterLoadAssignment;

const type = (typeUrl: string, fields: Partial<NodeTypeRecord>): NodeTypeRecord => ({
  ...typeRecord("SYNCED"),
  typeUrl,
  acked: { version: "v1", nonce: "n1", at: 1_000 },
  ...fields,
});

const served = (byType: Record<string, Record<string, string>>) => (typeUrl: string) =>
  byType[typeUrl] === undefined ? undefined : new Map(Object.entries(byType[typeUrl]));

const statuses = (config: ReturnType<typeof clientConfigOf>) =>
  config.genericXdsConfigs.map((r) => [
    r.typeUrl,
    r.name,
    r.clientStatus,
    r.configStatus,
    r.versionInfo,
  ]);

describe("a node's status as Client Status Discovery reports it", () => {
  it("a NACK naming resources fails those only, at the version still held; the rest stays ACKED", () => {
    const node = nodeRecord("n", [
      type(CDS, {
        status: "NACKED",
        held: { blue: "b1", green: "g1" },
        lastNack: {
          errorDetail: "bad blue",
          version: "v2",
          nonce: "n2",
          at: 2_000,
          rejected: ["blue"],
        },
      }),
    ]);
    const config = clientConfigOf(node, served({ [CDS]: { blue: "b2", green: "g1" } }));
    expect(statuses(config)).toEqual([
      [CDS, "blue", ClientResourceStatus.NACKED, ConfigStatus.ERROR, "b1"],
      [CDS, "green", ClientResourceStatus.ACKED, ConfigStatus.SYNCED, "g1"],
    ]);
    expect(config.genericXdsConfigs[0]?.errorState).toMatchObject({
      details: "bad blue",
      versionInfo: "v2",
    });
  });

  it("a NACK naming nothing fails every resource of the response; an ACK after it clears it", () => {
    const nack = { errorDetail: "bad", version: "v2", nonce: "n2", at: 2_000, rejected: [] };
    const nacked = clientConfigOf(
      nodeRecord("n", [type(CDS, { held: { blue: "b1" }, lastNack: nack })]),
      undefined,
    );
    expect(nacked.genericXdsConfigs[0]?.clientStatus).toBe(ClientResourceStatus.NACKED);
    const recovered = clientConfigOf(
      nodeRecord("n", [
        type(CDS, {
          held: { blue: "b2" },
          lastNack: nack,
          acked: { version: "v3", nonce: "n3", at: 3_000 },
        }),
      ]),
      undefined,
    );
    expect(recovered.genericXdsConfigs[0]?.clientStatus).toBe(ClientResourceStatus.ACKED);
    expect(recovered.genericXdsConfigs[0]?.errorState).toBeUndefined();
  });

  it("a name asked for and not held is REQUESTED when the snapshot has it, DOES_NOT_EXIST when not, REQUESTED when the server cannot tell", () => {
    const node = nodeRecord("n", [
      type(EDS, {
        status: "PENDING",
        wildcard: false,
        requested: [
          "blue",
          "gone",
          "xdstp://sy/envoy.config.endpoint.v3.ClusterLoadAssignment/green",
        ],
      }),
    ]);
    const config = clientConfigOf(node, served({ [EDS]: { blue: "b1", green: "g1" } }));
    expect(statuses(config)).toEqual([
      [EDS, "blue", ClientResourceStatus.REQUESTED, ConfigStatus.STALE, ""],
      [EDS, "gone", ClientResourceStatus.DOES_NOT_EXIST, ConfigStatus.UNKNOWN, ""],
      [
        EDS,
        "xdstp://sy/envoy.config.endpoint.v3.ClusterLoadAssignment/green",
        ClientResourceStatus.REQUESTED,
        ConfigStatus.STALE,
        "",
      ],
    ]);
    expect(statuses(clientConfigOf(node, undefined)).map((s) => s[2])).toEqual([
      ClientResourceStatus.REQUESTED,
      ClientResourceStatus.REQUESTED,
      ClientResourceStatus.REQUESTED,
    ]);
  });

  it("a resource held at a version the server no longer has is STALE; one held without a known version is UNKNOWN", () => {
    const node = nodeRecord("n", [
      type(CDS, { held: { blue: "b1", old: "o1" } }),
      type(EDS, { held: { blue: null } }),
    ]);
    const config = clientConfigOf(node, served({ [CDS]: { blue: "b2" }, [EDS]: { blue: "e1" } }));
    expect(statuses(config)).toEqual([
      [CDS, "blue", ClientResourceStatus.ACKED, ConfigStatus.STALE, "b1"],
      [CDS, "old", ClientResourceStatus.ACKED, ConfigStatus.STALE, "o1"],
      [EDS, "blue", ClientResourceStatus.ACKED, ConfigStatus.UNKNOWN, ""],
    ]);
  });
});
