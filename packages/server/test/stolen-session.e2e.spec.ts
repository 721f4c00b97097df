import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_PASSWORD,
  accessClient,
  bearer,
  createAccount,
  privilegedAccess,
  Role,
  refusal,
  STRONG_PASSWORDS,
  sessionOf,
  signIn,
  tokenFor,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/**
 * Issue 22, point 8: a stolen session (a laptop left open, a cookie lifted) must not become
 * permanent access. Changing one's password takes the current password, and making an API token
 * one entered in the last 5 minutes (reauthentication.e2e.spec.ts has the rest of issue 44's
 * privileged actions); tokens expire; a password reset revokes the tokens made before it.
 */
const DAY_MS = 86_400_000;

/** A password the policy takes, for the changes these tests ask for. */
const [NEW_PASSWORD = ""] = STRONG_PASSWORDS;

describe("what a session alone cannot do", () => {
  let harness: Harness;
  const sessionOfUser = async (username: string, password: string) =>
    accessClient(harness.baseUrl, [
      sessionOf(await signIn(harness.baseUrl, username, password), harness.baseUrl),
    ]);

  beforeAll(async () => {
    harness = await startHarness({
      app: {
        loginLimits: {
          perUserIp: { points: 5, durationS: 900 },
          perIp: { points: 100, durationS: 900 },
        },
      },
    });
    for (const name of ["mia", "noor", "oli"])
      await createAccount(harness.baseUrl, name, Role.MEMBER);
  });

  afterAll(async () => {
    await harness?.stop();
  });

  it("refuses to change one's own password without the current one, or with a wrong one", async () => {
    const admin = await sessionOfUser("admin", ADMIN_PASSWORD);
    const { user } = await admin.whoAmI({});
    const id = user?.id ?? "";

    const missing = await refusal(admin.updateUser({ id, password: NEW_PASSWORD }));
    const wrong = await refusal(
      admin.updateUser({ id, password: NEW_PASSWORD, currentPassword: "not it at all" }),
    );

    expect(missing.code).toBe(Code.InvalidArgument);
    expect(missing.rawMessage).toContain("your current password is required");
    expect(wrong.code).toBe(Code.PermissionDenied);
    expect(wrong.rawMessage).toContain("your current password is wrong");
    await signIn(harness.baseUrl, "admin", ADMIN_PASSWORD); // unchanged
    // With the current password it is changed (to the same, keeping the tokens other tests use).
    await admin.updateUser({
      id,
      password: ADMIN_PASSWORD,
      currentPassword: ADMIN_PASSWORD,
      keepTokens: true,
    });
  });

  it("limits guesses of the current password as it limits logins", async () => {
    const mia = await sessionOfUser("mia", USER_PASSWORD);
    const { user } = await mia.whoAmI({});
    const guess = () =>
      refusal(
        mia.updateUser({
          id: user?.id ?? "",
          password: NEW_PASSWORD,
          currentPassword: "a guess",
        }),
      );

    for (let i = 0; i < 5; i++) expect((await guess()).code).toBe(Code.PermissionDenied);

    expect((await guess()).code).toBe(Code.ResourceExhausted);
  });

  it("refuses to make an API token from a session whose password was entered more than 5 minutes ago, unless the request carries the right one", async () => {
    const noor = await sessionOfUser("noor", USER_PASSWORD);
    await harness.passwordEnteredAgo(6 * 60_000);

    const missing = await refusal(noor.createToken({ name: "ci", scopes: ["config:read"] }));
    const wrong = await refusal(
      noor.createToken({ name: "ci", scopes: ["config:read"], password: "not it" }),
    );

    expect(missing.code).toBe(Code.PermissionDenied);
    expect(missing.rawMessage).toMatch(/^re-enter your password: to create an API token/);
    expect(wrong.code).toBe(Code.PermissionDenied);
    expect(wrong.rawMessage).toContain("your current password is wrong");
    expect((await noor.listTokens({})).tokens).toEqual([]);
  });

  it("gives a token with no expiry the maximum lifetime, and refuses one beyond it", async () => {
    const noor = await sessionOfUser("noor", USER_PASSWORD);
    const before = Date.now();

    const created = await noor.createToken({
      name: "ci",
      scopes: ["config:read"],
      password: USER_PASSWORD,
    });
    const tooLong = await refusal(
      noor.createToken({
        name: "forever",
        scopes: ["config:read"],
        password: USER_PASSWORD,
        expireTime: timestampFromDate(new Date(Date.now() + 365 * DAY_MS)),
      }),
    );

    const expires = timestampDate(created.token?.expireTime ?? timestampFromDate(new Date(0)));
    expect(expires.getTime()).toBeGreaterThanOrEqual(before + 90 * DAY_MS);
    expect(expires.getTime()).toBeLessThanOrEqual(Date.now() + 90 * DAY_MS);
    expect(tooLong.code).toBe(Code.InvalidArgument);
    expect(tooLong.rawMessage).toContain("at most 90 days from now");
  });

  it("revokes a user's API tokens when an admin resets their password, unless told to keep them", async () => {
    const admin = await privilegedAccess(harness.baseUrl);
    const oli = (await admin.listUsers({})).users.find((u) => u.username === "oli");
    const kept = await tokenFor(harness.baseUrl, "oli", USER_PASSWORD);
    const [second = "", third = ""] = STRONG_PASSWORDS;
    await admin.updateUser({ id: oli?.id ?? "", password: second, keepTokens: true });
    expect((await accessClient(harness.baseUrl, [bearer(kept)]).whoAmI({})).via).toBe("token");

    await admin.updateUser({ id: oli?.id ?? "", password: third });

    const refused = await refusal(accessClient(harness.baseUrl, [bearer(kept)]).whoAmI({}));
    expect(refused.code).toBe(Code.Unauthenticated);
    expect(refused.rawMessage).toContain("revoked");
  });
});
