/**
 * `switchyard rollout plans ...` and `switchyard team update --[no-]require-rollout`, run in
 * process against a real server: what each prints, and the server's refusals as the CLI shows
 * them.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ADMIN_PASSWORD,
  accessClient,
  bearer,
  createAccount,
  type Harness,
  privilegedAccess,
  Role,
  startHarness,
  tokenFor,
  USER_PASSWORD,
} from "@switchyard/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { cli as runInProcess } from "./run-cli.js";

const CAREFUL = `# Canaries first, then half, then everyone.
onFailure: pause
bake: 2m
ackTimeout: 30s
traffic: { maxErrorIncrease: 2 }
waves:
  - nodes: { ids: ["edge-canary-*"] }
  - 10%
  - { share: 50%, bake: 10m }
  - 100%
`;

describe("switchyard rollout plans", () => {
  let harness: Harness;
  let adminToken = "";
  let folder = "";

  /** The CLI with `token` (SWITCHYARD_TOKEN) and its user's password (SWITCHYARD_PASSWORD). */
  const cli = (args: string[], options: { token?: string; stdin?: string } = {}) =>
    runInProcess(["--server", harness.baseUrl, ...args], {
      env: { SWITCHYARD_TOKEN: options.token ?? adminToken, SWITCHYARD_PASSWORD: ADMIN_PASSWORD },
      stdin: options.stdin ?? "",
    });
  const file = (name: string, content: string) => {
    const path = join(folder, name);
    writeFileSync(path, content);
    return path;
  };

  beforeAll(async () => {
    harness = await startHarness();
    adminToken = await harness.token();
    folder = mkdtempSync(join(tmpdir(), "switchyard-rollout-plans-"));
  });

  afterAll(async () => {
    await harness?.stop();
    if (folder !== "") rmSync(folder, { recursive: true, force: true });
  });

  it("put stores a plan from a file and prints it in a line; plans lists NAME, WAVES and DEFAULT; get prints its document as YAML or JSON, which put reads back", async () => {
    expect((await cli(["rollout", "plans"])).output).toBe(
      "no rollout plans (switchyard rollout plans put NAME -f FILE stores one)\n",
    );

    const put = await cli([
      "rollout",
      "plans",
      "put",
      "careful",
      "-f",
      file("careful.yaml", CAREFUL),
    ]);
    expect(put.code).toBe(0);
    expect(put.output).toBe(
      "stored rollout plan careful: waves selected nodes, 10%, 50%, 100%; bake 2m, ACKs within 30s, errors at most 2 points above the previous version's over 100 requests (passes without them); on failure pause; wave 3: bake 10m\n",
    );
    const quick = await cli(["rollout", "plans", "put", "quick", "-f", "-"], {
      stdin: '{"waves": [1, "100%"], "bake": "30s"}',
    });
    expect(quick.output).toMatch(/^stored rollout plan quick: waves 1, 100%; bake 30s, /);

    const list = await cli(["rollout", "plans"]);
    expect(list.code).toBe(0);
    expect(list.output.split("\n")[0]).toMatch(/^NAME\s+WAVES\s+DEFAULT\s*$/);
    expect(list.output).toMatch(/\ncareful\s+waves selected nodes, 10%, 50%, 100%; .*\s+-\s*\n/);
    expect(list.output).toMatch(/\nquick\s+waves 1, 100%; .*\s+-\s*\n/);
    expect((await cli(["rollout", "plans", "list"])).output).toBe(list.output);

    const yaml = await cli(["rollout", "plans", "get", "careful"]);
    expect(yaml.code).toBe(0);
    expect(parseYaml(yaml.stdout)).toMatchObject({
      name: "careful",
      onFailure: "pause",
      bake: "2m",
      waves: [{ nodes: { ids: ["edge-canary-*"] } }, "10%", { share: "50%", bake: "10m" }, "100%"],
    });
    const json = await cli(["rollout", "plans", "get", "careful", "-o", "json"]);
    expect(JSON.parse(json.stdout)).toEqual(parseYaml(yaml.stdout));
    const again = await cli([
      "rollout",
      "plans",
      "put",
      "careful",
      "-f",
      file("again.json", json.stdout),
    ]);
    expect(again.output).toBe(put.output);
    expect((await cli(["rollout", "plans", "get", "careful"])).stdout).toBe(yaml.stdout);

    const format = await cli(["rollout", "plans", "get", "careful", "-o", "table"]);
    expect(format.code).toBe(1);
    expect(format.stderr).toContain('unknown output format "table": use yaml or json');
  });

  it("a plan that does not read is refused with each problem at its place in the document, and nothing is stored", async () => {
    const refused = await cli([
      "rollout",
      "plans",
      "put",
      "broken",
      "-f",
      file("broken.yaml", "waves: [10, 5, 50%]\nbake: 2m\n"),
    ]);

    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      [
        "switchyard: document: 2 problem(s) in the rollout plan",
        "  error  document: waves[1].share: waves must grow: 5 is not more than 10",
        "  error  document: waves[2]: the last wave must be 100%: a rollout that completes has reached every node",
        "",
      ].join("\n"),
    );
    const missing = await cli(["rollout", "plans", "get", "broken"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'switchyard: rollout plan "broken" does not exist (switchyard rollout plans lists them)\n',
    );
  });

  it("default NAME marks the default plan, which delete then refuses; --none clears it and delete goes through", async () => {
    const set = await cli(["rollout", "plans", "default", "careful"]);
    expect(set.output).toBe("careful is the default rollout plan now (it was none)\n");
    expect((await cli(["rollout", "plans"])).output).toMatch(/\ncareful\s+waves .*\s+default\s*\n/);

    const refused = await cli(["rollout", "plans", "delete", "careful"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'switchyard: rollout plan "careful" is the default plan: set another default first (switchyard rollout plans default NAME, or --none)\n',
    );
    const both = await cli(["rollout", "plans", "default", "quick", "--none"]);
    expect(both.stderr).toBe(
      "switchyard: a plan's name and --none contradict each other: give one\n",
    );
    const neither = await cli(["rollout", "plans", "default"]);
    expect(neither.stderr).toBe(
      "switchyard: name the default plan, or --none for no default plan\n",
    );

    expect((await cli(["rollout", "plans", "default", "--none"])).output).toBe(
      "no default rollout plan now (it was careful)\n",
    );
    const deleted = await cli(["rollout", "plans", "delete", "careful"]);
    expect(deleted.output).toBe("deleted rollout plan careful\n");
    expect((await cli(["rollout", "plans"])).output).not.toContain("careful");
  });

  it("a member reads the plans; their put is refused with the server's reason", async () => {
    const team = await (await privilegedAccess(harness.baseUrl)).createTeam({ name: "shop" });
    await createAccount(harness.baseUrl, "mia", Role.MEMBER, team.id);
    const member = await tokenFor(harness.baseUrl, "mia", USER_PASSWORD);

    expect((await cli(["rollout", "plans"], { token: member })).output).toMatch(/\nquick\s+/);
    const put = await cli(
      ["rollout", "plans", "put", "mine", "-f", file("mine.yaml", "waves: [100%]\n")],
      { token: member },
    );
    expect(put.code).toBe(1);
    expect(put.stderr).toBe("switchyard: only an admin may change rollout plans\n");
  });

  it("team update --require-rollout and --no-require-rollout sign in with the admin's password; team list shows ROLLOUTS", async () => {
    await (await privilegedAccess(harness.baseUrl)).createTeam({ name: "checkout" });

    const on = await cli(["team", "update", "checkout", "--require-rollout"]);
    expect(on.output).toBe(
      "Updated team checkout: members publish; its changes are to go out as rollouts.\n",
    );
    const teams = accessClient(harness.baseUrl, [bearer(adminToken)]);
    expect((await teams.listTeams({})).teams.find((t) => t.name === "checkout")).toMatchObject({
      requireRollout: true,
    });
    const list = await cli(["team", "list"]);
    expect(list.output.split("\n")[0]).toMatch(/\sREVIEW\s+ROLLOUTS\s*$/);
    expect(list.output).toMatch(/\ncheckout\s.*\s-\s+required\s*\n/);

    const off = await cli(["team", "update", "checkout", "--no-require-rollout"]);
    expect(off.output).toBe("Updated team checkout: members publish.\n");
    const nothing = await cli(["team", "update", "checkout"]);
    expect(nothing.stderr).toBe(
      "switchyard: nothing to change: pass --rename NAME, --[no-]require-review or --[no-]require-rollout\n",
    );
  });
});
