import { createPrismaClient } from "@switchyard/db";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listAudit } from "./audit.js";
import { seedUser } from "./fixtures.js";
import { ensureInitialAdmin, INITIAL_ADMIN_USERNAME } from "./initial-admin.js";
import { checkPasswordPolicy } from "./passwords.js";
import { authenticate } from "./users.js";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(() => database.drop());

describe("ensureInitialAdmin", () => {
  it("on an empty database creates admin with the given password", async () => {
    const result = await ensureInitialAdmin(database.prisma, { password: "from the environment" });
    expect(result).toEqual({ t: "created", username: "admin", generatedPassword: null });
    const admin = await authenticate(database.prisma, "admin", "from the environment");
    expect(admin?.role).toBe("ADMIN");
    const { events } = await listAudit(database.prisma);
    expect(events).toEqual([
      expect.objectContaining({
        actor: "system",
        actorKind: "system",
        action: "user.create",
        target: "user/admin",
      }),
    ]);
  });

  it("without a password generates a one-time one and returns it to print once", async () => {
    const result = await ensureInitialAdmin(database.prisma);
    if (result.t !== "created" || result.generatedPassword === null)
      throw new Error(`got ${JSON.stringify(result)}`);
    expect(result.generatedPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(await authenticate(database.prisma, "admin", result.generatedPassword)).not.toBeNull();
  });

  it("is idempotent: a second call, or any existing account, leaves things alone", async () => {
    await ensureInitialAdmin(database.prisma, { password: "first password!" });
    expect(await ensureInitialAdmin(database.prisma, { password: "second password" })).toEqual({
      t: "exists",
    });
    expect(await authenticate(database.prisma, "admin", "first password!")).not.toBeNull();
  });

  it("does nothing when some other account exists", async () => {
    await seedUser(database.prisma, "alice", "VIEWER");
    expect(await ensureInitialAdmin(database.prisma)).toEqual({ t: "exists" });
    expect(await database.prisma.user.count()).toBe(1);
  });

  it("replicas starting together create exactly one admin", async () => {
    const replicas = Array.from({ length: 4 }, () => createPrismaClient(database.url));
    try {
      const results = await Promise.all(replicas.map((prisma) => ensureInitialAdmin(prisma)));
      expect(results.filter((r) => r.t === "created")).toHaveLength(1);
      expect(results.filter((r) => r.t === "exists")).toHaveLength(3);
      expect(await database.prisma.user.count()).toBe(1);
    } finally {
      await Promise.all(replicas.map((prisma) => prisma.$disconnect()));
    }
  });

  it("rejects a SWITCHYARD_ADMIN_PASSWORD that is too short, too easy to guess or holds the username, saying so, and creates no account", async () => {
    await expect(ensureInitialAdmin(database.prisma, { password: "admin" })).rejects.toThrow(
      /at least 12/,
    );
    await expect(
      ensureInitialAdmin(database.prisma, { password: "passwordpassword" }),
    ).rejects.toThrow(/too easy to guess/);
    await expect(
      ensureInitialAdmin(database.prisma, { password: "Admin-Kestrel-Pavilion" }),
    ).rejects.toThrow(/contains the username "admin"/);
    expect(await database.prisma.user.count()).toBe(0);
  });

  it("a generated password passes the password policy", async () => {
    for (let i = 0; i < 20; i++) {
      const result = await ensureInitialAdmin(database.prisma);
      if (result.t !== "created" || result.generatedPassword === null)
        throw new Error(`got ${JSON.stringify(result)}`);
      await expect(
        checkPasswordPolicy(result.generatedPassword, INITIAL_ADMIN_USERNAME),
      ).resolves.toBeUndefined();
      await database.prisma.auditEvent.deleteMany();
      await database.prisma.user.deleteMany();
    }
  });
});
