/**
 * `switchyard discard [KIND NAME]...` (ConfigService.DiscardDraft) through the real CLI process:
 * the draft's unpublished changes undone, back to the latest published version, whole or object
 * by object; a member only what they may edit; audited; nothing published.
 */

import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { DiscardDraftRequestSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  accessClient,
  bearer,
  configClient,
  createAccount,
  edsCluster,
  type Harness,
  Role,
  refusal,
  startHarness,
  tokenFor,
  USER_PASSWORD,
} from "@switchyard/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

describe("discarding the draft's unpublished changes", () => {
  let harness: Harness;
  let adminToken: string;
  let memberToken: string;
  const cluster = (name: string, connectTimeoutMs = 1000) =>
    edsCluster(name, "127.0.0.1:50051", { connectTimeoutMs });
  const admin = () => configClient(harness.baseUrl, [bearer(adminToken)]);
  const cli = (token: string, ...args: string[]) => runCli(harness.baseUrl, token, ...args);
  const pending = async () =>
    (await admin().diff({})).changes.map((c) => `${c.name}:${c.change}`).sort();

  beforeAll(async () => {
    harness = await startHarness();
    adminToken = await harness.token();
    const team = await accessClient(harness.baseUrl, [bearer(adminToken)]).createTeam({
      name: "payments",
      domains: ["*.payments.example.com"],
    });
    await createAccount(harness.baseUrl, "pat", Role.MEMBER, team.id);
    memberToken = await tokenFor(harness.baseUrl, "pat", USER_PASSWORD);
    const api = admin();
    await api.createCluster(cluster("kept"));
    await api.createCluster(cluster("changed"));
    await api.createCluster(cluster("deleted"));
    await api.publish({ message: "three clusters" });
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("undoes the objects named, and leaves the draft's other changes", async () => {
    const api = admin();
    await api.createCluster(cluster("added"));
    await api.updateCluster(cluster("changed", 5000));
    await api.deleteCluster({ name: "deleted" });
    expect(await pending()).toEqual(["added:1", "changed:2", "deleted:3"]);

    const result = await cli(adminToken, "discard", "cluster", "added", "cluster", "deleted");

    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("discarded: cluster added (added in the draft, now gone)");
    expect(result.stdout).toContain("discarded: cluster deleted (deleted in the draft, now back)");
    expect(await pending()).toEqual(["changed:2"]);
    expect((await api.getCluster({ name: "deleted" })).connectTimeoutMs).toBe(1000);
  });

  it("undoes every change with no object named; a second discard has nothing to do", async () => {
    const result = await cli(adminToken, "discard");

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "discarded: cluster changed (modified in the draft, now as published)",
    );
    expect(result.stdout).toMatch(/the draft is back to version 1/);
    expect(await pending()).toEqual([]);
    expect((await admin().getCluster({ name: "changed" })).connectTimeoutMs).toBe(1000);
    const again = await cli(adminToken, "discard");
    expect(again.stdout).toBe("nothing to discard: the draft is version 1\n");
    // Nothing was published.
    expect((await admin().listSnapshots({ limit: 5 })).snapshots).toHaveLength(1);
  });

  it("names an object that has no change to discard, and an argument without a name", async () => {
    const unchanged = await cli(adminToken, "discard", "cluster", "kept");
    expect(unchanged.code).not.toBe(0);
    expect(unchanged.stderr).toContain('cluster "kept" has no unpublished change to discard');
    const odd = await cli(adminToken, "discard", "cluster");
    expect(odd.code).not.toBe(0);
    expect(odd.stderr).toContain('"cluster" has no name');
  });

  it("refuses a member discarding a change to a cluster their team does not own, changing nothing", async () => {
    await admin().updateCluster(cluster("kept", 3000));
    const refused = await cli(memberToken, "discard", "cluster", "kept");

    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/kept/);
    expect(await pending()).toEqual(["kept:2"]);
    // The API says the same, as PermissionDenied.
    const error = await refusal(
      configClient(harness.baseUrl, [bearer(memberToken)]).discardDraft(
        create(DiscardDraftRequestSchema, {}),
      ),
    );
    expect(error.code).toBe(Code.PermissionDenied);
    expect(await pending()).toEqual(["kept:2"]);
    await cli(adminToken, "discard");
  });

  it("records each object undone in the audit log, as the caller's edit", async () => {
    await admin().updateCluster(cluster("kept", 4000));
    await cli(adminToken, "discard", "cluster", "kept");

    const { events } = await accessClient(harness.baseUrl, [bearer(adminToken)]).listAuditEvents({
      target: "cluster/kept",
    });
    const undo = events.find(
      (e) => e.action === "cluster.update" && JSON.stringify(e.detail ?? {}).includes("discarded"),
    );
    expect(undo?.actor).toBe("admin");
  });
});
