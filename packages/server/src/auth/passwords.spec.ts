import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import {
  ADMIN_PASSWORD,
  STRONG_PASSWORDS,
  USER_PASSWORD,
  WEAK_PASSWORDS,
} from "../testing/auth.js";
import { PASSWORD } from "./fixtures.js";
import {
  checkPasswordPolicy,
  hashPassword,
  PASSWORD_MAX_LENGTH,
  verifyAgainstDummy,
  verifyPassword,
} from "./passwords.js";

describe("passwords", () => {
  it("are hashed with argon2id, a fresh salt each time", async () => {
    const [a, b] = await Promise.all([
      hashPassword("correct horse battery"),
      hashPassword("correct horse battery"),
    ]);
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(a).not.toBe(b);
  });

  it("verify the right password and no other", async () => {
    const hash = await hashPassword("correct horse battery");
    expect(await verifyPassword(hash, "correct horse battery")).toBe(true);
    expect(await verifyPassword(hash, "correct horse batterY")).toBe(false);
    expect(await verifyPassword(hash, "")).toBe(false);
  });

  it("a malformed stored hash is a mismatch, not an exception", async () => {
    expect(await verifyPassword("not-a-hash", "anything")).toBe(false);
  });

  it("an unknown user costs about one verification (the dummy), so timing does not reveal it", async () => {
    const hash = await hashPassword("correct horse battery");
    await verifyAgainstDummy("warm-up");
    const time = async (run: () => Promise<unknown>) => {
      const started = performance.now();
      for (let i = 0; i < 5; i++) await run();
      return performance.now() - started;
    };
    const real = await time(() => verifyPassword(hash, "wrong password"));
    const dummy = await time(() => verifyAgainstDummy("wrong password"));
    expect(await verifyAgainstDummy("switchyard-dummy-password-never-matches")).toBe(false);
    // Loose bounds (a loaded machine skews timings): a dummy that skipped argon2 would be ~0.01.
    expect(dummy / real).toBeGreaterThan(0.25);
    expect(dummy / real).toBeLessThan(4);
  });
});

describe("the password policy (every password set: first admin, CreateUser, UpdateUser)", () => {
  /** The refusal of `password` for `username`: an InvalidArgument about "the password". */
  const refusal = async (password: string, username: string) => {
    const error = await checkPasswordPolicy(password, username).then(
      () => undefined,
      (caught: unknown) => ConnectError.from(caught),
    );
    expect(error?.code, `${password} for ${username}`).toBe(Code.InvalidArgument);
    // The console shows a refusal starting so at the password field (access-errors.ts).
    expect(error?.rawMessage).toMatch(/^the password /);
    return error?.rawMessage ?? "";
  };

  it.each([
    ["short", /is 5 characters long; use at least 12/],
    [
      "aaaaaaaaaaaa",
      /too easy to guess \(strength 0 of 4, at least 3 needed\): Repeated characters/,
    ],
    ["passwordpassword", /too easy to guess \(strength 0 of 4.*: Repeated character patterns/],
    ["abcdefghijkl", /too easy to guess.*: Common character sequences/],
    ["password1234", /too easy to guess.*: This is similar to a commonly used password/],
    ["123456789012", /too easy to guess.*: This is a commonly used password/],
    ["1qaz2wsx3edc", /too easy to guess.*: This is a commonly used password/],
    ["P@ssw0rd2024", /too easy to guess.*predictable letter substitutions/],
    ["switchyard2024!", /too easy to guess.*personal or page related data/],
    ["x".repeat(PASSWORD_MAX_LENGTH + 1), /longer than 1024 characters/],
  ])("%j is refused, saying why and what to do", async (password, why) => {
    const message = await refusal(password, "alice");

    expect(message).toMatch(why);
    if (message.includes("too easy")) expect(message).toContain("A few random words");
  });

  it("a password that is, or holds, the username is refused whatever its case", async () => {
    expect(await refusal("samantha-gardener", "samantha-gardener")).toContain(
      'contains the username "samantha-gardener"',
    );
    expect(await refusal("Kestrel-Pavilion-42", "KESTREL")).toContain('the username "kestrel"');
    expect(await refusal("plum orbit ALICE fennel", "alice")).toContain("the username");
    // A two-letter name inside a long password is chance; as the whole of it, it is too short.
    await expect(checkPasswordPolicy("plum orbit basket fennel", "or")).resolves.toBeUndefined();
  });

  it.each(WEAK_PASSWORDS.map((password) => [password]))(
    "%j (a test fixture of a weak password) is refused as too easy to guess",
    async (password) => {
      expect(await refusal(password, "alice")).toContain("too easy to guess");
    },
  );

  it.each(
    [...STRONG_PASSWORDS, ADMIN_PASSWORD, USER_PASSWORD, PASSWORD].map((password) => [password]),
  )("%j (a test fixture) is accepted", async (password) => {
    await expect(checkPasswordPolicy(password, "alice")).resolves.toBeUndefined();
    await expect(checkPasswordPolicy(password, "admin")).resolves.toBeUndefined();
  });
});
