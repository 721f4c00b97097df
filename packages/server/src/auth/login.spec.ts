import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { listAudit } from "./audit.js";
import { PASSWORD, seedUser } from "./fixtures.js";
import { login } from "./login.js";
import { LoginLimiter } from "./login-limiter.js";
import { resolveSession } from "./sessions.js";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
  await seedUser(database.prisma, "alice");
});
afterEach(() => {
  vi.useRealTimers();
  return database.drop();
});

const attempt = (limiter: LoginLimiter, username: string, password: string, ip = "10.0.0.1") =>
  login(database.prisma, limiter, { username, password, ip, userAgent: "vitest" });

describe("login", () => {
  it("with the right password opens a session and records a login event", async () => {
    const result = await attempt(new LoginLimiter(), "Alice", PASSWORD);
    if (result.t !== "ok") throw new Error(`got ${JSON.stringify(result)}`);
    expect(result.principal.username).toBe("alice");
    expect((await resolveSession(database.prisma, result.session.secret))?.userId).toBe(
      result.principal.userId,
    );
    const { events } = await listAudit(database.prisma);
    expect(events).toEqual([
      expect.objectContaining({
        actor: "alice",
        actorKind: "user",
        action: "login",
        ip: "10.0.0.1",
      }),
    ]);
  });

  it("a wrong password and an unknown user get the same answer, both recorded as login.failed", async () => {
    const limiter = new LoginLimiter();
    const wrong = await attempt(limiter, "alice", "not the password");
    const unknown = await attempt(limiter, "mallory", PASSWORD);
    expect(wrong).toEqual({ t: "invalid", message: "wrong username or password" });
    expect(unknown).toEqual(wrong);
    const { events } = await listAudit(database.prisma, { action: "login.failed" });
    expect(events.map((e) => [e.actor, (e.detail as { reason: string }).reason])).toEqual([
      ["mallory", "credentials"],
      ["alice", "credentials"],
    ]);
  });

  it("a disabled account cannot log in", async () => {
    await database.prisma.user.update({
      where: { username: "alice" },
      data: { disabledAt: new Date() },
    });
    expect((await attempt(new LoginLimiter(), "alice", PASSWORD)).t).toBe("invalid");
  });

  it("after 5 failures for one username from one address, even the right password is refused for a while", async () => {
    const limiter = new LoginLimiter();
    for (let i = 0; i < 5; i++)
      expect((await attempt(limiter, "alice", "wrong")).t).toBe("invalid");
    const limited = await attempt(limiter, "alice", PASSWORD);
    expect(limited).toEqual({
      t: "limited",
      retryAfterS: expect.any(Number),
      message: expect.stringMatching(/^too many attempts, retry in \d+ s$/),
    });
    if (limited.t === "limited") expect(limited.retryAfterS).toBeGreaterThan(14 * 60);
    // Another address is not affected: nobody locks alice out from elsewhere.
    expect((await attempt(limiter, "alice", PASSWORD, "10.0.0.2")).t).toBe("ok");
    const { events } = await listAudit(database.prisma, { action: "login.failed", limit: 1 });
    expect(events[0]?.detail).toEqual({ reason: "rate-limited", userAgent: "vitest" });
  });

  it("one address spraying many usernames is limited as a whole", async () => {
    const limiter = new LoginLimiter({
      perUserIp: { points: 5, durationS: 900 },
      perIp: { points: 3, durationS: 900 },
    });
    for (const name of ["bob", "carol", "dave"]) await attempt(limiter, name, "guess");
    expect((await attempt(limiter, "alice", PASSWORD)).t).toBe("limited");
  });

  it("40 concurrent attempts against a limit of 5 check 5 passwords: each is counted before its check", async () => {
    const limiter = new LoginLimiter();

    const results = await Promise.all(
      Array.from({ length: 40 }, () => attempt(limiter, "alice", "wrong")),
    );

    expect(results.filter((r) => r.t === "invalid")).toHaveLength(5);
    expect(results.filter((r) => r.t === "limited")).toHaveLength(35);
    const { events } = await listAudit(database.prisma, { action: "login.failed", limit: 100 });
    expect(
      events.filter((e) => (e.detail as { reason?: string }).reason === "credentials"),
    ).toHaveLength(5);
  });

  it("an attempt refused by one limit does not count against the other", async () => {
    const limiter = new LoginLimiter({
      perUserIp: { points: 1, durationS: 900 },
      perIp: { points: 3, durationS: 900 },
    });
    await attempt(limiter, "bob", "guess");
    for (let i = 0; i < 5; i++) expect((await attempt(limiter, "bob", "guess")).t).toBe("limited");

    // bob's refusals spent none of the address's 3: two more names may still be tried.
    expect((await attempt(limiter, "carol", "guess")).t).toBe("invalid");
    expect((await attempt(limiter, "alice", PASSWORD)).t).toBe("ok");
  });

  it("a success clears the username + address counter", async () => {
    const limiter = new LoginLimiter();
    for (let i = 0; i < 4; i++) await attempt(limiter, "alice", "wrong");
    expect((await attempt(limiter, "alice", PASSWORD)).t).toBe("ok");
    for (let i = 0; i < 4; i++) await attempt(limiter, "alice", "wrong");
    expect((await attempt(limiter, "alice", PASSWORD)).t).toBe("ok");
  });

  it("the limit ends when its window does", async () => {
    // The limiter (rate-limiter-flexible's memory store) times its windows with Date.now: only
    // Date is faked, so Postgres and argon2 run as usual while the clock stands still.
    vi.useFakeTimers({ toFake: ["Date"] });
    const limiter = new LoginLimiter({
      perUserIp: { points: 1, durationS: 1 },
      perIp: { points: 50, durationS: 1 },
    });
    await attempt(limiter, "alice", "wrong");
    expect((await attempt(limiter, "alice", PASSWORD)).t).toBe("limited");
    vi.advanceTimersByTime(999);
    expect((await attempt(limiter, "alice", PASSWORD)).t).toBe("limited");
    vi.advanceTimersByTime(1);
    expect((await attempt(limiter, "alice", PASSWORD)).t).toBe("ok");
  });
});
