import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { at, seedUser, T0 } from "./fixtures.js";
import type { PrincipalRow } from "./principal.js";
import { sha256Hex } from "./secrets.js";
import {
  createSession,
  DEFAULT_SESSION_TTL_MS,
  markSessionAuthenticated,
  resolveSession,
  revokeSession,
  revokeUserSessions,
} from "./sessions.js";

let database: TestDatabase;
let alice: PrincipalRow;
beforeEach(async () => {
  database = await createTestDatabase();
  alice = await seedUser(database.prisma, "alice");
});
afterEach(() => database.drop());

describe("sessions", () => {
  it("store only the sha256 of the cookie's 32-byte random secret", async () => {
    const session = await createSession(database.prisma, {
      userId: alice.id,
      ip: "10.0.0.1",
      userAgent: "test",
      now: at(0),
    });
    expect(session.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await database.prisma.session.findMany();
    expect(rows).toEqual([
      expect.objectContaining({
        id: sha256Hex(session.secret),
        userId: alice.id,
        ip: "10.0.0.1",
        userAgent: "test",
      }),
    ]);
    expect(JSON.stringify(rows)).not.toContain(session.secret);
  });

  it("resolve to the user's principal, with the team of a member", async () => {
    const session = await createSession(database.prisma, { userId: alice.id, now: at(0) });
    const principal = await resolveSession(database.prisma, session.secret, { now: at(1000) });
    expect(principal).toEqual({
      userId: alice.id,
      username: "alice",
      role: "MEMBER",
      team: { id: alice.team?.id, name: "payments", requireReview: false },
      via: { t: "session", sessionId: session.id, authenticatedAt: new Date(T0) },
    });
  });

  it(`last ${DEFAULT_SESSION_TTL_MS / 3_600_000} hours by default, then resolve to nothing`, async () => {
    const session = await createSession(database.prisma, { userId: alice.id, now: at(0) });
    expect(session.expiresAt.getTime()).toBe(T0 + DEFAULT_SESSION_TTL_MS);
    expect(
      await resolveSession(database.prisma, session.secret, {
        now: at(DEFAULT_SESSION_TTL_MS - 1),
      }),
    ).not.toBeNull();
    expect(
      await resolveSession(database.prisma, session.secret, { now: at(DEFAULT_SESSION_TTL_MS) }),
    ).toBeNull();
  });

  it("take a lifetime as an option", async () => {
    const session = await createSession(database.prisma, {
      userId: alice.id,
      ttlMs: 60_000,
      now: at(0),
    });
    expect(await resolveSession(database.prisma, session.secret, { now: at(60_000) })).toBeNull();
  });

  it("update lastSeenAt at most once a minute", async () => {
    const session = await createSession(database.prisma, { userId: alice.id, now: at(0) });
    const lastSeen = async () =>
      (
        await database.prisma.session.findUniqueOrThrow({ where: { id: session.id } })
      ).lastSeenAt.getTime() - T0;
    await resolveSession(database.prisma, session.secret, { now: at(30_000) });
    expect(await lastSeen()).toBe(0);
    await resolveSession(database.prisma, session.secret, { now: at(61_000) });
    expect(await lastSeen()).toBe(61_000);
    await resolveSession(database.prisma, session.secret, { now: at(90_000) });
    expect(await lastSeen()).toBe(61_000);
  });

  it("count their login as the time the password was entered, until it is entered again", async () => {
    const session = await createSession(database.prisma, { userId: alice.id, now: at(0) });
    const enteredAt = async (ms: number) => {
      const principal = await resolveSession(database.prisma, session.secret, { now: at(ms) });
      return principal?.via.t === "session" ? principal.via.authenticatedAt.getTime() - T0 : null;
    };
    expect(await enteredAt(120_000)).toBe(0);

    expect(
      await markSessionAuthenticated(database.prisma, session.id, new Date(T0 + 600_000)),
    ).toBe(true);

    expect(await enteredAt(660_000)).toBe(600_000);
    await revokeSession(database.prisma, session.id);
    expect(await markSessionAuthenticated(database.prisma, session.id, new Date(T0))).toBe(false);
  });

  it("of a disabled user resolve to nothing", async () => {
    const session = await createSession(database.prisma, { userId: alice.id });
    await database.prisma.user.update({
      where: { id: alice.id },
      data: { disabledAt: new Date() },
    });
    expect(await resolveSession(database.prisma, session.secret)).toBeNull();
  });

  it("an unknown or empty secret resolves to nothing", async () => {
    expect(await resolveSession(database.prisma, "nope")).toBeNull();
    expect(await resolveSession(database.prisma, "")).toBeNull();
  });

  it("revoked one at a time (logout) stop resolving on the next request", async () => {
    const one = await createSession(database.prisma, { userId: alice.id });
    const two = await createSession(database.prisma, { userId: alice.id });
    expect(await revokeSession(database.prisma, one.id)).toBe(true);
    expect(await resolveSession(database.prisma, one.secret)).toBeNull();
    expect(await resolveSession(database.prisma, two.secret)).not.toBeNull();
    expect(await revokeSession(database.prisma, one.id)).toBe(false);
  });

  it("revoked all at once end every session of the user but the one kept", async () => {
    const bob = await seedUser(database.prisma, "bob", "VIEWER");
    const kept = await createSession(database.prisma, { userId: alice.id });
    const other = await createSession(database.prisma, { userId: alice.id });
    const bobs = await createSession(database.prisma, { userId: bob.id });
    expect(await revokeUserSessions(database.prisma, alice.id, kept.id)).toBe(1);
    expect(await resolveSession(database.prisma, other.secret)).toBeNull();
    expect(await resolveSession(database.prisma, kept.secret)).not.toBeNull();
    expect(await resolveSession(database.prisma, bobs.secret)).not.toBeNull();
    expect(await revokeUserSessions(database.prisma, alice.id)).toBe(1);
  });
});
