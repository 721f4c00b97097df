import { create, type DescMethod } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  type Client,
  Code,
  ConnectError,
  createClient,
  type Interceptor,
} from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import {
  AccessService,
  ReauthenticationRequiredSchema,
} from "@switchyard/proto/switchyard/v1/access_pb";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classifiedMethods } from "../src/access/privileged-actions.js";
import {
  ADMIN_PASSWORD,
  accessClient,
  bearer,
  privilegedAccess,
  Role,
  refusal,
  sessionOf,
  signIn,
  tokenFor,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/**
 * Issue 44, point 6: privileged actions (creating accounts, changing an account, a team's review
 * or domains, a cluster's owner, creating API tokens: access/privileged-actions.ts) need the
 * caller's password entered within the last 5 minutes, whatever the session; an API token never
 * takes them. The finding this closes: a stolen admin session cookie created an admin account with
 * the cookie alone, and that account minted a 90-day token that outlived the victim's logout.
 */
const MINUTE = 60_000;

/** The refused method named by a refusal's ReauthenticationRequired detail, if it has one. */
const askedFor = (error: ConnectError | undefined) =>
  error?.findDetails(ReauthenticationRequiredSchema)[0]?.method;

const SERVICES = [AccessService, ConfigService, RoutingService, StatusService];

/** How `method`, called with an empty request, is refused; undefined when it is not. */
async function outcome(
  baseUrl: string,
  interceptors: Interceptor[],
  method: DescMethod,
): Promise<ConnectError | undefined> {
  const client = createClient(
    method.parent,
    createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors }),
  ) as unknown as Record<string, (request: unknown) => Promise<unknown>>;
  const call = client[method.localName];
  if (call === undefined) throw new Error(`no client method for ${method.name}`);
  return call(create(method.input)).then(
    () => undefined,
    (error: unknown) => ConnectError.from(error),
  );
}

describe("privileged actions need a password entered in the last 5 minutes", () => {
  let harness: Harness;
  /** A session of the admin's whose password the test ages, and a client on it. */
  let cookie: string;
  let session: Client<typeof AccessService>;

  const usernames = async () =>
    (await (await privilegedAccess(harness.baseUrl)).listUsers({})).users.map((u) => u.username);

  beforeAll(async () => {
    // Generous limits: the guess-limit case below sets its own, and nothing else here guesses.
    harness = await startHarness({
      app: {
        loginLimits: {
          perUserIp: { points: 5, durationS: 900 },
          perIp: { points: 1000, durationS: 900 },
        },
      },
    });
    cookie = await signIn(harness.baseUrl, "admin", ADMIN_PASSWORD);
    session = accessClient(harness.baseUrl, [sessionOf(cookie, harness.baseUrl)]);
  });

  afterAll(async () => {
    await harness?.stop();
  });

  it("a stolen admin session cookie cannot create an admin account or an API token without the password; after the victim's logout nothing of the thief's remains", async () => {
    const admins = await usernames();
    // The cookie is taken a while after its owner signed in (a laptop left open).
    await harness.passwordEnteredAgo(30 * MINUTE);

    const account = await refusal(
      session.createUser({ username: "mallory", password: USER_PASSWORD, role: Role.ADMIN }),
    );
    const token = await refusal(session.createToken({ name: "forever", scopes: ["admin"] }));

    expect(account.code).toBe(Code.PermissionDenied);
    expect(account.rawMessage).toMatch(/^re-enter your password: to create accounts, it must/);
    expect(account.rawMessage).toContain("the console asks for it");
    expect(askedFor(account)).toBe("switchyard.v1.AccessService/CreateUser");
    expect(token.code).toBe(Code.PermissionDenied);
    expect(askedFor(token)).toBe("switchyard.v1.AccessService/CreateToken");
    expect(await usernames()).toEqual(admins);
    expect((await session.listTokens({})).tokens).toEqual([]);

    // The victim signs out: the cookie is dead, and it made nothing that lives on.
    await accessClient(harness.baseUrl, [sessionOf(cookie, harness.baseUrl)]).logout({});
    expect((await refusal(session.whoAmI({}))).code).toBe(Code.Unauthenticated);
    expect(await usernames()).toEqual(admins);
    cookie = await signIn(harness.baseUrl, "admin", ADMIN_PASSWORD);
    session = accessClient(harness.baseUrl, [sessionOf(cookie, harness.baseUrl)]);
  });

  it("an API token of the admin's, with every scope, takes no privileged action: it is no way around the password", async () => {
    const admin = accessClient(harness.baseUrl, [
      bearer(await tokenFor(harness.baseUrl, "admin", ADMIN_PASSWORD)),
    ]);

    const account = await refusal(
      admin.createUser({ username: "mallory", password: USER_PASSWORD, role: Role.ADMIN }),
    );
    const again = await refusal(admin.reauthenticate({ password: ADMIN_PASSWORD }));

    expect(account.code).toBe(Code.PermissionDenied);
    expect(account.rawMessage).toMatch(/^an API token cannot create accounts: that needs/);
    expect(again.code).toBe(Code.PermissionDenied);
    expect(again.rawMessage).toMatch(/^an API token cannot enter a password/);
    expect(await usernames()).not.toContain("mallory");
  });

  it("a password entered 4 minutes ago is enough, 5 minutes ago is not: the stored time decides", async () => {
    await harness.passwordEnteredAgo(4 * MINUTE);
    await session.createUser({
      username: "fresh",
      password: USER_PASSWORD,
      role: Role.VIEWER,
    });

    await harness.passwordEnteredAgo(5 * MINUTE + 1_000);
    const refused = await refusal(
      session.createUser({ username: "stale", password: USER_PASSWORD, role: Role.VIEWER }),
    );

    expect(askedFor(refused)).toBe("switchyard.v1.AccessService/CreateUser");
    expect(await usernames()).toContain("fresh");
    expect(await usernames()).not.toContain("stale");
  });

  it("Reauthenticate with the password allows privileged actions for 5 minutes; a wrong one allows nothing", async () => {
    await harness.passwordEnteredAgo(30 * MINUTE);

    const wrong = await refusal(session.reauthenticate({ password: "not the password" }));
    const stillRefused = await refusal(
      session.createUser({ username: "ida", password: USER_PASSWORD, role: Role.VIEWER }),
    );
    const before = Date.now();
    const { expireTime } = await session.reauthenticate({ password: ADMIN_PASSWORD });
    await session.createUser({ username: "ida", password: USER_PASSWORD, role: Role.VIEWER });

    expect(wrong.code).toBe(Code.PermissionDenied);
    expect(wrong.rawMessage).toBe("your current password is wrong (Reauthenticate)");
    expect(askedFor(stillRefused)).toBeDefined();
    const until = expireTime === undefined ? 0 : timestampDate(expireTime).getTime();
    expect(until).toBeGreaterThanOrEqual(before + 5 * MINUTE - 1_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 5 * MINUTE);
    expect(await usernames()).toContain("ida");
    const audit = await (await privilegedAccess(harness.baseUrl)).listAuditEvents({
      action: "reauthenticate",
    });
    expect(audit.events.map((e) => e.actor)).toContain("admin");
  });

  it("a privileged request carrying the caller's password in its own field counts as entering it; a wrong one is refused and changes nothing", async () => {
    await harness.passwordEnteredAgo(30 * MINUTE);

    const wrong = await refusal(
      session.createToken({ name: "ci", scopes: ["config:read"], password: "not the password" }),
    );
    const created = await session.createToken({
      name: "ci",
      scopes: ["config:read"],
      password: ADMIN_PASSWORD,
    });
    // The session's password now counts as just entered.
    await session.createUser({ username: "jo", password: USER_PASSWORD, role: Role.VIEWER });

    expect(wrong.code).toBe(Code.PermissionDenied);
    expect(wrong.rawMessage).toBe("your current password is wrong (CreateToken)");
    expect(created.secret).toMatch(/^sy_/);
    expect((await session.listTokens({})).tokens.map((t) => t.name)).toContain("ci");
    expect(await usernames()).toContain("jo");
  });

  it("every privileged method refuses a stale session with the detail the console prompts on, before reading the request, and an API token always; a fresh session passes the gate", async () => {
    const privileged = [...classifiedMethods()]
      .filter(([, privilege]) => privilege.t === "privileged")
      .map(([name]) => name);
    const methods = SERVICES.flatMap((s) => s.methods).filter((m) =>
      privileged.includes(`${m.parent.typeName}/${m.name}`),
    );
    const token = [bearer(await tokenFor(harness.baseUrl, "admin", ADMIN_PASSWORD))];
    const cookieOf = [sessionOf(cookie, harness.baseUrl)];
    const wrong: string[] = [];
    for (const method of methods) {
      const key = `${method.parent.typeName}/${method.name}`;
      await harness.passwordEnteredAgo(30 * MINUTE);
      const stale = await outcome(harness.baseUrl, cookieOf, method);
      const byToken = await outcome(harness.baseUrl, token, method);
      await harness.passwordEnteredAgo(0);
      const fresh = await outcome(harness.baseUrl, cookieOf, method);
      if (stale?.code !== Code.PermissionDenied || askedFor(stale) !== key)
        wrong.push(`${key} on a stale session: ${stale?.code} ${stale?.rawMessage}`);
      if (byToken?.code !== Code.PermissionDenied || askedFor(byToken) !== undefined)
        wrong.push(`${key} with a token: ${byToken?.code} ${byToken?.rawMessage}`);
      if (fresh?.code === Code.PermissionDenied)
        wrong.push(`${key} on a fresh session: ${fresh.rawMessage}`);
    }
    expect(methods.length).toBe(privileged.length);
    expect(wrong).toEqual([]);
  });

  // Last: it spends the admin's login attempts from this address.
  it("guesses through Reauthenticate count as login attempts: after 5 wrong ones even the right password is refused, at Login too", async () => {
    const guesses: Code[] = [];
    for (let i = 0; i < 5; i++)
      guesses.push((await refusal(session.reauthenticate({ password: `guess ${i}` }))).code);

    const right = await refusal(session.reauthenticate({ password: ADMIN_PASSWORD }));
    const login = await refusal(signIn(harness.baseUrl, "admin", ADMIN_PASSWORD));

    expect(guesses).toEqual(Array(5).fill(Code.PermissionDenied));
    expect(right.code).toBe(Code.ResourceExhausted);
    expect(login.code).toBe(Code.ResourceExhausted);
  });
});
