import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  ADMIN_PASSWORD,
  accessClient,
  bearer,
  edsCluster,
  type Harness,
  signIn,
  startHarness,
  tokenFor,
  USER_PASSWORD,
} from "@switchyard/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli as runInProcess } from "./run-cli.js";

describe("switchyard user and switchyard team", () => {
  let harness: Harness;
  let adminToken = "";

  /**
   * The real CLI acting with `token` (SWITCHYARD_TOKEN), its user's password in
   * SWITCHYARD_PASSWORD for the commands that sign in with it; `stdin` is piped in.
   */
  const cli = (args: string[], stdin = "", token = adminToken, password = ADMIN_PASSWORD) =>
    runInProcess(["--server", harness.baseUrl, ...args], {
      env: { SWITCHYARD_TOKEN: token, SWITCHYARD_PASSWORD: password },
      stdin,
    });

  beforeAll(async () => {
    harness = await startHarness();
    adminToken = await harness.token();
  });

  afterAll(async () => {
    await harness?.stop();
  });

  it("an admin creates a team owning domains and a member of it; a bad pattern and a short password are refused with the server's reason", async () => {
    const created = await cli(["team", "create", "shop", "--domain", "*.shop.example.com"]);
    expect(created.output).toBe("Created team shop owning *.shop.example.com.\n");
    expect(created.code).toBe(0);

    const bad = await cli(["team", "add-domain", "shop", "not a domain"]);
    expect(bad.code).not.toBe(0);
    expect(bad.output).toContain("is neither a host name");
    const added = await cli(["team", "add-domain", "shop", "api.shop.example.com"]);
    expect(added.output).toBe("Team shop owns: *.shop.example.com, api.shop.example.com.\n");

    const short = await cli(
      ["user", "create", "sam", "--role", "member", "--team", "shop", "--password-stdin"],
      "too short\n",
    );
    expect(short.code).not.toBe(0);
    expect(short.output).toContain("the password is 9 characters long; use at least 12");
    const sam = await cli(
      ["user", "create", "sam", "--role", "member", "--team", "shop", "--password-stdin"],
      `${USER_PASSWORD}\n`,
    );
    expect(sam.output).toBe("Created sam (member, team shop).\n");
    expect(await signIn(harness.baseUrl, "sam", USER_PASSWORD)).toMatch(/=/);

    const users = (await cli(["user", "list"])).output;
    expect(users).toMatch(/sam\s+member\s+shop\s+active\s+\d{4}-/);
    expect(users).toMatch(/admin\s+admin\s+-\s+active/);
    const teams = (await cli(["team", "list"])).output;
    expect(teams).toMatch(
      /shop\s+\*\.shop\.example\.com,api\.shop\.example\.com\s+-\s+-\s+-\s+1\s+-/,
    );
  }, 60_000);

  it("team remove-domain and team delete sign in with the admin's password as well: a host a team gives up may fall to another team's wildcard", async () => {
    await cli(["team", "create", "scratch", "--domain", "www.shop.example.com"]);

    const removed = await cli(["team", "remove-domain", "scratch", "www.shop.example.com"]);
    const noPassword = await cli(["team", "delete", "scratch"], "", adminToken, "");
    const deleted = await cli(["team", "delete", "scratch"]);

    expect(removed.output).toBe("Team scratch owns: no domain.\n");
    expect(noPassword.code).not.toBe(0);
    expect(noPassword.output).toContain("no password for admin");
    expect(deleted.output).toBe(
      "Deleted team scratch: 0 member(s) left without a team, 0 cluster(s) unowned.\n",
    );
    const teams = await accessClient(harness.baseUrl, [bearer(adminToken)]).listTeams({});
    expect(teams.teams.map((t) => t.name)).not.toContain("scratch");
  }, 60_000);

  it("team update renames and requires review; user update changes a role, and --disable stops the account from signing in", async () => {
    const updated = await cli([
      "team",
      "update",
      "shop",
      "--rename",
      "shop-eu",
      "--require-review",
    ]);
    expect(updated.output).toBe("Updated team shop-eu: requires review.\n");
    const access = accessClient(harness.baseUrl, [bearer(adminToken)]);
    expect((await access.listTeams({})).teams).toMatchObject([
      { name: "shop-eu", requireReview: true },
    ]);
    expect((await cli(["team", "update", "shop-eu", "--no-require-review"])).output).toBe(
      "Updated team shop-eu: members publish.\n",
    );

    expect((await cli(["user", "update", "sam", "--role", "viewer"])).output).toBe(
      "Updated sam: viewer.\n",
    );
    const disabled = await cli(["user", "update", "sam", "--disable"]);
    expect(disabled.output).toBe("Updated sam: viewer, disabled.\n");
    await expect(signIn(harness.baseUrl, "sam", USER_PASSWORD)).rejects.toThrow();

    const unknown = await cli(["user", "update", "nobody", "--enable"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.output).toContain('no user is named "nobody"');
    const badRole = await cli(["user", "update", "sam", "--role", "owner"]);
    expect(badRole.output).toContain('--role "owner": use admin, member or viewer');
  }, 60_000);

  it("a member's token cannot list or change accounts or teams' domains: the server's refusal is shown", async () => {
    await cli(
      ["user", "create", "mia", "--role", "member", "--team", "shop-eu", "--password-stdin"],
      `${USER_PASSWORD}\n`,
    );
    const member = await tokenFor(harness.baseUrl, "mia", USER_PASSWORD);
    const list = await cli(["user", "list"], "", member);
    expect(list.code).not.toBe(0);
    expect(list.output).toContain("only an admin may see other accounts");
    const add = await cli(
      ["team", "add-domain", "shop-eu", "www.example.com"],
      "",
      member,
      USER_PASSWORD,
    );
    expect(add.code).not.toBe(0);
    expect(add.output).toContain("only an admin may assign clusters and domains to teams");
  }, 60_000);

  it("the commands that change who may do what sign in with the admin's password, and out again; without it they say how to give it, and change nothing", async () => {
    const sessions = () => harness.database.prisma.session.count();
    const before = await sessions();

    const noPassword = await cli(
      ["user", "create", "ned", "--role", "viewer", "--password-stdin"],
      `${USER_PASSWORD}\n`,
      adminToken,
      "",
    );
    const wrong = await cli(
      ["team", "set-owner", "shop-backend", "shop-eu"],
      "",
      adminToken,
      "not the password",
    );
    const created = await cli(
      ["user", "create", "ned", "--role", "viewer", "--password-stdin"],
      `${USER_PASSWORD}\n`,
    );

    expect(noPassword.code).not.toBe(0);
    expect(noPassword.output).toContain(
      "no password for admin: this command signs in with it (an API token may not do this); set SWITCHYARD_PASSWORD, or run the command in a terminal",
    );
    expect(wrong.code).not.toBe(0);
    expect(wrong.output).toContain("wrong username or password");
    expect(created.output).toBe("Created ned (viewer).\n");
    const users = await accessClient(harness.baseUrl, [bearer(adminToken)]).listUsers({});
    expect(users.users.filter((u) => u.username === "ned")).toHaveLength(1);
    // Each signed out after: no session is left behind.
    expect(await sessions()).toBe(before);
  }, 60_000);

  it("a member of a team that requires review requests one with switchyard review request; the admin lists, shows and approves it, and the version goes out as theirs", async () => {
    await cli(["team", "update", "shop-eu", "--require-review"]);
    const member = await tokenFor(harness.baseUrl, "mia", USER_PASSWORD);
    await createClient(
      ConfigService,
      createConnectTransport({
        baseUrl: harness.baseUrl,
        httpVersion: "1.1",
        interceptors: [bearer(member)],
      }),
    ).createCluster(edsCluster("shop-backend", "127.0.0.1:50051"));
    const refused = await cli(["publish", "-m", "shop backend"], "", member);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain("switchyard review request");

    const asked = await cli(["review", "request", "-m", "shop backend"], "", member);
    expect(asked.code, asked.output).toBe(0);
    const id = asked.output.match(/requested review #(\d+) of 1 added, 0 modified, 0 removed/)?.[1];
    expect(id, asked.output).toBeDefined();
    expect(asked.output).toContain("added    cluster shop-backend");

    const list = await cli(["review", "list"]);
    expect(list.output).toMatch(new RegExp(`${id}\\s+open\\s+\\d{4}-.*mia\\s+shop-eu\\s+1 added`));
    const shown = await cli(["review", "show", `#${id}`]);
    expect(shown.output).toContain(`review #${id}: open`);
    expect(shown.output).toContain("requested by mia (team shop-eu)");
    const byMember = await cli(["review", "approve", String(id)], "", member);
    expect(byMember.code).not.toBe(0);

    const approved = await cli(["review", "approve", String(id), "--comment", "ok"]);
    expect(approved.code, approved.output).toBe(0);
    expect(approved.output).toMatch(
      new RegExp(`approved review #${id}: published version 1 \\(1 added`),
    );
    const history = await cli(["history"]);
    expect(history.output).toMatch(
      /1\s+\d{4}-.*mia\s+\+1 ~0 -0\s+shop backend \(review #\d+, approved by admin\)/,
    );
    expect((await cli(["review", "list"])).output).toBe("no open review requests\n");
    const bad = await cli(["review", "show", "abc"]);
    expect(bad.output).toContain('"abc" is not a review id');
  }, 60_000);

  it("an admin makes a secret a team's and shares a cluster with it; team list shows both, and a bad kind or a missing choice is refused", async () => {
    const config = createClient(
      ConfigService,
      createConnectTransport({
        baseUrl: harness.baseUrl,
        httpVersion: "1.1",
        interceptors: [bearer(adminToken)],
      }),
    );
    await config.createCluster(edsCluster("search", "127.0.0.1:50052"));
    const shared = await cli(["share", "cluster", "search", "--team", "shop-eu"]);
    expect(shared.output, shared.output).toBe("cluster search is shared with team shop-eu.\n");
    expect((await cli(["team", "list"])).output).toMatch(/shop-eu\s+.*cluster\/search/);
    const owner = await cli(["team", "set-secret-owner", "no-such-secret", "shop-eu"]);
    expect(owner.code).not.toBe(0);
    expect(owner.output).toContain('secret "no-such-secret" does not exist in the draft');
    const kind = await cli(["share", "pods", "search", "--team", "shop-eu"]);
    expect(kind.output).toContain(
      '"pods" is not something a team can name: use cluster, secret, listener, route-configuration',
    );
    const neither = await cli(["share", "cluster", "search"]);
    expect(neither.output).toContain("--none to share it with no team");
    const none = await cli(["share", "cluster", "search", "--none"]);
    expect(none.output).toBe(
      "cluster search is shared with no team: only its owner's objects may name it.\n",
    );
  }, 60_000);
});
