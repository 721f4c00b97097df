/**
 * Issue 44, point 8: only a password's length was checked, so `aaaaaaaaaaaa`, `passwordpassword`
 * and the username itself were taken. Now every password set through the API (CreateUser, an
 * admin's reset, a change of one's own) is checked with zxcvbn and against the username
 * (auth/passwords.ts), refused with why and what to do, and nothing changes.
 */
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  accessClient,
  createAccount,
  privilegedAccess,
  Role,
  refusal,
  STRONG_PASSWORDS,
  sessionOf,
  signIn,
  USER_PASSWORD,
  WEAK_PASSWORDS,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

describe("the password policy through the API", () => {
  let harness: Harness;
  let admin: ReturnType<typeof accessClient>;

  beforeAll(async () => {
    harness = await startHarness();
    // Accounts are privileged: an admin's session with a fresh password.
    admin = await privilegedAccess(harness.baseUrl);
  });

  afterAll(async () => {
    await harness?.stop();
  });

  it.each([
    ...WEAK_PASSWORDS.map((password) => ["sam", password, "too easy to guess"]),
    ["samantha-gardener", "samantha-gardener", 'contains the username "samantha-gardener"'],
    ["kestrel", "KESTREL-kestrel-KESTREL", 'contains the username "kestrel"'],
  ])(
    "CreateUser %s with password %j is refused (%s), and no account is made",
    async (username, password, why) => {
      const refused = await refusal(admin.createUser({ username, password, role: Role.VIEWER }));

      expect(refused.code).toBe(Code.InvalidArgument);
      expect(refused.rawMessage).toMatch(/^the password /);
      expect(refused.rawMessage).toContain(why);
      const { users } = await admin.listUsers({});
      expect(users.map((user) => user.username)).not.toContain(username);
    },
  );

  it("an admin's reset to a weak password or the username is refused, and the old password still signs in", async () => {
    const id = await createAccount(harness.baseUrl, "rosa", Role.MEMBER);

    for (const password of ["passwordpassword", "rosa-rosa-rosa-rosa"]) {
      const refused = await refusal(admin.updateUser({ id, password }));
      expect(refused.code, password).toBe(Code.InvalidArgument);
      expect(refused.rawMessage).toMatch(
        /^the password (is too easy to guess|contains the username "rosa")/,
      );
    }

    expect(await signIn(harness.baseUrl, "rosa", USER_PASSWORD)).toMatch(/=/);
  });

  it("a change of one's own password to a weak one is refused with zxcvbn's reason; a strong one is taken", async () => {
    await createAccount(harness.baseUrl, "tomas", Role.VIEWER);
    const cookie = await signIn(harness.baseUrl, "tomas", USER_PASSWORD);
    const tomas = accessClient(harness.baseUrl, [sessionOf(cookie, harness.baseUrl)]);
    const id = (await tomas.whoAmI({})).user?.id ?? "";

    const weak = await refusal(
      tomas.updateUser({ id, password: "aaaaaaaaaaaa", currentPassword: USER_PASSWORD }),
    );
    expect(weak.code).toBe(Code.InvalidArgument);
    expect(weak.rawMessage).toContain('Repeated characters like "aaa" are easy to guess.');
    expect(await signIn(harness.baseUrl, "tomas", USER_PASSWORD)).toMatch(/=/);

    const [strong = ""] = STRONG_PASSWORDS;
    await tomas.updateUser({ id, password: strong, currentPassword: USER_PASSWORD });
    expect(await signIn(harness.baseUrl, "tomas", strong)).toMatch(/=/);
  });
});
