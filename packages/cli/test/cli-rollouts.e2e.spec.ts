/**
 * Rollouts from the command line (README, "Rollouts"): `publish --waves ...` and `--rollout PLAN`
 * start one, `rollout status`/`list` show it, `wait` ends with its outcome, `rollout
 * pause|resume|promote|abort` steer it, and publishing commands show the server's refusal during
 * one (and `--abort-rollout` supersedes it). Run in process against a real server, with two nodes
 * on real ADS streams that ACK and NACK what they are sent.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Client, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import {
  type Rollout,
  RolloutPhase,
  RolloutService,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import { hashOrder } from "@switchyard/rollout";
import {
  bearer,
  clusterYaml,
  edsCluster,
  type Harness,
  startHarness,
  TYPE,
  until,
} from "@switchyard/server/testing";
import {
  createTestClient,
  namesOf,
  type TestClient,
  type TestStream,
} from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli as runInProcess } from "./run-cli.js";

const NODES = ["edge-a", "edge-b"];
/** Wave 1 of a one-node first wave (the hash order), and the node only wave 2 reaches. */
const [FIRST, SECOND] = hashOrder(NODES) as [string, string];
/** One node, then both: short bakes, ACKs alone decide. */
const QUICK = ["--waves", "1,100%", "--bake", "1s", "--ack-timeout", "20s"];
/** A stored plan whose first wave bakes for longer than any test: it ends only when told. */
const SLOW = 'bake: 1h\nwaves: [1, "100%"]\n';

describe("switchyard rollouts from the command line", () => {
  let harness: Harness;
  let token = "";
  let folder = "";
  let xds: TestClient;
  let rollouts: Client<typeof RolloutService>;
  const streams = new Map<string, TestStream>();

  const cli = (args: string[], stdin = "") =>
    runInProcess(["--server", harness.baseUrl, ...args], {
      env: { SWITCHYARD_TOKEN: token },
      stdin,
    });

  /** Reads the next response `id` is sent, ACKs it, and answers the clusters it names. */
  const ackNext = async (id: string) => {
    const stream = streams.get(id);
    if (!stream) throw new Error(`no stream for ${id}`);
    const response = await stream.next(15_000);
    stream.ack(response, []);
    return namesOf(response);
  };
  /** ACKs what `id` is sent until it holds `cluster` (or, with `held` false, no longer does). */
  const ackUntil = async (id: string, cluster: string, held = true) => {
    while ((await ackNext(id)).includes(cluster) !== held);
  };
  const rolloutUntil = (id: bigint, done: (r: Rollout) => boolean, what: string) =>
    until(() => rollouts.getRollout({ id }), done, `rollout ${id} ${what}`, 30_000);
  const idOf = (output: string) => BigInt(/started rollout (\d+)/.exec(output)?.[1] ?? "0");
  const latestVersion = async () =>
    (await harness.api().listSnapshots({ limit: 1 })).snapshots[0]?.version ?? 0n;

  beforeAll(async () => {
    harness = await startHarness();
    token = await harness.token();
    folder = mkdtempSync(join(tmpdir(), "switchyard-cli-rollouts-"));
    rollouts = createClient(
      RolloutService,
      createConnectTransport({
        baseUrl: harness.baseUrl,
        httpVersion: "1.1",
        interceptors: [bearer(token)],
      }),
    );
    await rollouts.putRolloutPlan({ name: "slow", document: SLOW });
    await harness.api().createCluster(edsCluster("blue", "127.0.0.1:9001"));
    await harness.api().publish({ message: "blue" });
    xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);
    for (const id of NODES) {
      const stream = xds.open("ads", { node: { id } });
      stream.request(TYPE.CDS, []);
      stream.ack(await stream.next(), []);
      streams.set(id, stream);
    }
    await until(
      () => harness.app.prisma.xdsNode.count({ where: { disconnectedAt: null } }),
      (count) => count === NODES.length,
      "both nodes listed connected",
    );
  });

  afterAll(async () => {
    xds?.close();
    await harness?.stop();
    if (folder !== "") rmSync(folder, { recursive: true, force: true });
  });

  it("rollout flags that do not make a plan are refused naming the flag, and nothing is published", async () => {
    await harness.api().createCluster(edsCluster("green", "127.0.0.1:9002"));
    const before = await latestVersion();
    const refusals: Array<[string[], string]> = [
      [
        ["--waves", "10,5,100%"],
        'switchyard: --waves item 2 ("5"): waves must grow: 5 is not more than 10\n',
      ],
      [["--waves", "1,100%", "--bake", "soon"], "switchyard: --bake: "],
      [["--waves", "1,100%", "--on-failure", "later"], "switchyard: --on-failure: "],
      [
        ["--waves", "1,100%", "--min-requests", "50"],
        "switchyard: --min-requests: needs --max-error-increase (the traffic gate it sets up)\n",
      ],
      [["--bake", "1s"], "switchyard: --bake: goes with --waves"],
      [["--rollout", "careful", "--waves", "1,100%"], "switchyard: --rollout names a stored plan"],
      [["--skip-rollout", "hotfix", "--waves", "1,100%"], "switchyard: --skip-rollout publishes"],
    ];
    for (const [flags, error] of refusals) {
      const refused = await cli(["publish", "-m", "green", ...flags]);
      expect(refused.code, flags.join(" ")).toBe(1);
      expect(refused.stderr.startsWith(error), `${flags.join(" ")}: ${refused.stderr}`).toBe(true);
    }
    expect(await latestVersion()).toBe(before);
  });

  it("publish --waves starts a rollout and prints it; status -o json shows it; wait and status --watch end 0 once it completes", async () => {
    const published = await cli(["publish", "-m", "green", ...QUICK]);
    expect(published.code).toBe(0);
    const id = idOf(published.stdout);
    const version = await latestVersion();
    expect(published.stdout).toMatch(
      new RegExp(
        `\nstarted rollout ${id} in node group "default": wave 1 of 2 applying, [01] of 2 connected nodes on version ${version}\n`,
      ),
    );
    expect(published.stdout).toContain(`switchyard rollout status --id ${id} --watch`);

    const json = await cli(["rollout", "status", "-o", "json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      id: String(id),
      group: "default",
      toVersion: String(version),
      phase: "ROLLOUT_PHASE_APPLYING",
      wave: 1,
      plan: { summary: expect.stringMatching(/^waves 1, 100%; bake 1s, ACKs within 20s, /) },
    });

    const waited = cli(["wait"]);
    const watched = cli(["rollout", "status", "--watch"]);
    expect(await ackNext(FIRST)).toContain("green");
    expect(await ackNext(SECOND)).toContain("green");
    const [wait, watch] = await Promise.all([waited, watched]);
    expect(wait.code).toBe(0);
    expect(wait.stdout).toMatch(
      new RegExp(
        `rollout ${id} \\(node group "default", version \\d+ → ${version}\\): completed: every node of group "default" runs version ${version}\\n$`,
      ),
    );
    expect(watch.code).toBe(0);
    expect(watch.stdout).toContain("  phase     completed, wave 2 of 2");

    const status = await cli(["rollout", "status", "--id", String(id)]);
    expect(status.stdout).toMatch(/\n1\s+1 node\s+1\s+\S+ \S+\s+passed \d\d:\d\d:\d\d\n/);
    expect(status.stdout).toMatch(/\n2\s+100%\s+1\s+\S+ \S+\s+passed \d\d:\d\d:\d\d\n/);
    expect(status.stdout).toMatch(new RegExp(`\\n${FIRST}\\s+yes\\s+${version}\\s+1\\s+acked\\n`));
    const list = await cli(["rollout", "list"]);
    expect(list.stdout.split("\n")[0]).toMatch(/^ID\s+GROUP\s+VERSION\s+PHASE\s+WAVE\s+/);
    expect(list.stdout).toMatch(
      new RegExp(`\\n${id}\\s+default\\s+\\d+ → ${version}\\s+completed\\s+2/2\\s`),
    );
  });

  it("wait exits 1 with the NACK's text when the rollout is rolled back, and says so again once the change was taken back", async () => {
    await harness.api().createCluster(edsCluster("red", "127.0.0.1:9003"));
    const published = await cli(["publish", "-m", "red", ...QUICK]);
    const id = idOf(published.stdout);
    const waited = cli(["wait"]);
    const canary = streams.get(FIRST);
    if (!canary) throw new Error("no canary stream");
    const response = await canary.next(15_000);
    expect(namesOf(response)).toContain("red");
    canary.nack(response, [], "cluster red: rejected by the test proxy");
    await ackUntil(FIRST, "red", false);

    const wait = await waited;
    expect(wait.code).toBe(1);
    expect(wait.stderr).toMatch(
      new RegExp(
        `^switchyard: rollout ${id} failed and rolled back to version \\d+: .*rejected by the test proxy`,
      ),
    );
    await rolloutUntil(id, (r) => r.phase === RolloutPhase.FAILED, "failed");
    const again = await cli(["wait"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("rejected by the test proxy");
    const status = await cli(["rollout", "status"]);
    expect(status.stdout).toMatch(/\n {2}failure {3}.*rejected by the test proxy/);
    // The draft still holds the change; the node that never had it was told nothing.
    expect((await harness.api().diff({})).changes.map((c) => c.name)).toEqual(["red"]);
    await harness.api().deleteCluster({ name: "red" });
    await streams.get(SECOND)?.expectNoResponse(200);
  });

  it("a publish or apply during a rollout is refused naming it, an endpoint registration too; apply --abort-rollout supersedes it", async () => {
    await harness.api().createCluster(edsCluster("violet", "127.0.0.1:9005"));
    const id = idOf((await cli(["publish", "-m", "violet", "--rollout", "slow"])).stdout);
    await ackUntil(FIRST, "violet");
    await rolloutUntil(id, (r) => r.phase === RolloutPhase.BAKING, "baking");

    await harness.api().createCluster(edsCluster("yellow", "127.0.0.1:9006"));
    const refused = await cli(["publish", "-m", "yellow"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^switchyard: node group "default" has rollout ${id} \\(.*\\): .*--abort-rollout\\n$`,
      ),
    );
    const file = join(folder, "orange.yaml");
    writeFileSync(file, clusterYaml("orange", 9007));
    const apply = await cli(["apply", "-f", file]);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(`rollout ${id} (`);
    const endpoints = await cli(["endpoints", "add", "blue", "127.0.0.1:9100"]);
    expect(endpoints.code).toBe(1);
    expect(endpoints.stderr).toContain(
      "endpoints add cannot abort a rollout: run it again once the rollout has ended",
    );

    const superseding = await cli(["apply", "-f", file, "--abort-rollout"]);
    expect(superseding.code).toBe(0);
    const version = await latestVersion();
    expect(superseding.stdout).toContain(`published version ${version}\n`);
    const ended = await cli(["rollout", "status", "--id", String(id)]);
    expect(ended.stdout).toContain("  phase     aborted, wave 1 of 2");
    expect(ended.stdout).toContain(`  superseded by version ${version}\n`);
    for (const node of NODES) await ackUntil(node, "orange");
  });

  it("pause, resume, promote and abort steer the running rollout; a command that does not apply prints the reason and exits 1", async () => {
    await harness.api().createCluster(edsCluster("indigo", "127.0.0.1:9008"));
    const published = await cli(["publish", "-m", "indigo", "--rollout", "slow"]);
    const id = idOf(published.stdout);
    await ackUntil(FIRST, "indigo");
    await rolloutUntil(id, (r) => r.phase === RolloutPhase.BAKING, "baking");

    const paused = await cli(["rollout", "pause"]);
    expect(paused.stdout).toMatch(new RegExp(`^rollout ${id} paused: wave 1 of 2 paused by admin`));
    const twice = await cli(["rollout", "pause", "--id", String(id)]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(
      new RegExp(`^switchyard: rollout ${id} cannot pause: .*paused already`),
    );
    expect((await cli(["rollout", "resume"])).stdout).toMatch(
      new RegExp(`^rollout ${id} resumed: `),
    );
    await rolloutUntil(id, (r) => r.phase === RolloutPhase.BAKING, "baking again");

    const promoted = await cli(["rollout", "promote"]);
    expect(promoted.stdout).toMatch(new RegExp(`^rollout ${id} promoted: wave 2 of 2 `));
    await ackUntil(SECOND, "indigo");
    const noReason = await cli(["rollout", "promote", "--all"]);
    expect(noReason.stderr).toBe(
      "switchyard: --all skips the rollout's plan: give --reason TEXT (recorded in the audit log)\n",
    );

    const aborted = await cli(["rollout", "abort"]);
    expect(aborted.stdout).toMatch(new RegExp(`^rollout ${id} aborted: `));
    for (const node of NODES) await ackUntil(node, "indigo", false);
    const watch = await cli(["rollout", "status", "--watch", "--id", String(id)]);
    expect(watch.code).toBe(1);
    expect(watch.stdout).toContain("  summary   aborted by admin and rolled back to version");
    const wait = await cli(["wait", "--rollout", String(id)]);
    expect(wait.code).toBe(1);
    expect(wait.stderr).toMatch(new RegExp(`^switchyard: rollout ${id} aborted by admin`));
  });

  it("an admin's promote --all --reason takes every remaining wave at once", async () => {
    await harness.api().createCluster(edsCluster("teal", "127.0.0.1:9009"));
    const id = idOf((await cli(["publish", "-m", "teal", "--rollout", "slow"])).stdout);
    await ackUntil(FIRST, "teal");
    const all = await cli(["rollout", "promote", "--all", "--reason", "incident 42"]);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(
      new RegExp(`^rollout ${id} promoted past its plan \\(every remaining wave\\): `),
    );
    await ackUntil(SECOND, "teal");
    const wait = await cli(["wait", "--rollout", String(id), "--timeout", "20s"]);
    expect(wait.code).toBe(0);
    expect(wait.stdout).toContain("completed: every node");
  });
});
