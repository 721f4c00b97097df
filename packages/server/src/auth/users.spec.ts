import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PASSWORD } from "./fixtures.js";
import { authenticate, checkUsername, createUser, setPassword } from "./users.js";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(() => database.drop());

describe("users", () => {
  it("usernames are stored lower-case and a taken one is refused with AlreadyExists", async () => {
    const user = await createUser(database.prisma, {
      username: " Alice ",
      password: PASSWORD,
      role: "VIEWER",
    });
    expect(user.username).toBe("alice");
    await expect(
      createUser(database.prisma, { username: "ALICE", password: PASSWORD, role: "ADMIN" }),
    ).rejects.toThrow(/user alice already exists/);
  });

  it("a username is 1-64 of a-z 0-9 . _ -, and only members join a team", async () => {
    await expect(
      createUser(database.prisma, { username: "a b", password: PASSWORD, role: "VIEWER" }),
    ).rejects.toThrow(/must be 1 to 64/);
    const team = await database.prisma.team.create({ data: { name: "payments" } });
    await expect(
      createUser(database.prisma, {
        username: "v",
        password: PASSWORD,
        role: "VIEWER",
        teamId: team.id,
      }),
    ).rejects.toThrow(/only members belong to a team/);
  });

  it("a refused username is quoted cut to 80 characters with its length, not echoed back whole", () => {
    const long = `${"x".repeat(9_999)}!`;
    expect(() => checkUsername(long)).toThrow(
      `username "${"x".repeat(80)}"… (10000 characters) must be 1 to 64 characters`,
    );
  });

  it("the password is stored only as an argon2id hash, and a new one replaces it", async () => {
    const user = await createUser(database.prisma, {
      username: "alice",
      password: PASSWORD,
      role: "ADMIN",
    });
    const row = await database.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row.passwordHash).not.toContain(PASSWORD);
    await setPassword(database.prisma, user.id, "a brand new password");
    expect(await authenticate(database.prisma, "alice", PASSWORD)).toBeNull();
    expect((await authenticate(database.prisma, "ALICE", "a brand new password"))?.id).toBe(
      user.id,
    );
  });

  it("an account's password is checked against the policy with its username: a weak one, or the username, is refused and nothing changes", async () => {
    await expect(
      createUser(database.prisma, {
        username: "samantha",
        password: "samantha",
        role: "VIEWER",
      }),
    ).rejects.toThrow(/at least 12/);
    await expect(
      createUser(database.prisma, {
        username: "samantha-gardener",
        password: "Samantha-Gardener",
        role: "VIEWER",
      }),
    ).rejects.toThrow(/contains the username "samantha-gardener"/);
    await expect(
      createUser(database.prisma, { username: "sam", password: "aaaaaaaaaaaa", role: "VIEWER" }),
    ).rejects.toThrow(/too easy to guess/);
    expect(await database.prisma.user.count()).toBe(0);
    const user = await createUser(database.prisma, {
      username: "alice",
      password: PASSWORD,
      role: "ADMIN",
    });
    await expect(setPassword(database.prisma, user.id, "passwordpassword")).rejects.toThrow(
      /too easy to guess/,
    );
    await expect(setPassword(database.prisma, user.id, "alice-alice-alice")).rejects.toThrow(
      /contains the username "alice"/,
    );
    expect((await authenticate(database.prisma, "alice", PASSWORD))?.id).toBe(user.id);
  });
});
