import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listAudit } from "./audit.js";
import { at, PASSWORD, seedUser, T0, viaToken } from "./fixtures.js";
import { login } from "./login.js";
import { LoginLimiter } from "./login-limiter.js";
import type { Principal } from "./principal.js";
import { reauthenticate } from "./reauthenticate.js";
import { resolveSession } from "./sessions.js";

let database: TestDatabase;
let alice: Principal;
let cookie: string;
beforeEach(async () => {
  database = await createTestDatabase();
  await seedUser(database.prisma, "alice");
  const signedIn = await login(database.prisma, new LoginLimiter(), {
    username: "alice",
    password: PASSWORD,
    ip: "10.0.0.1",
    now: at(0),
  });
  if (signedIn.t !== "ok") throw new Error(`got ${JSON.stringify(signedIn)}`);
  alice = signedIn.principal;
  cookie = signedIn.session.secret;
});
afterEach(() => database.drop());

const again = (limiter: LoginLimiter, password: string, ms = 3_600_000, who = alice) =>
  reauthenticate(database.prisma, limiter, {
    principal: who,
    password,
    ip: "10.0.0.1",
    purpose: "Reauthenticate",
    now: at(ms),
  });

/** When the session's password counts as entered, ms after T0. */
const enteredAt = async () => {
  const principal = await resolveSession(database.prisma, cookie, { now: at(3_600_000) });
  return principal?.via.t === "session" ? principal.via.authenticatedAt.getTime() - T0 : null;
};

describe("reauthenticate", () => {
  it("with the right password marks the session's password as entered now, and records it", async () => {
    expect(await again(new LoginLimiter(), PASSWORD)).toEqual({
      t: "ok",
      authenticatedAt: new Date(T0 + 3_600_000),
    });

    expect(await enteredAt()).toBe(3_600_000);
    const { events } = await listAudit(database.prisma, { action: "reauthenticate" });
    expect(events).toEqual([
      expect.objectContaining({
        actor: "alice",
        ip: "10.0.0.1",
        detail: { purpose: "Reauthenticate" },
      }),
    ]);
  });

  it("with a wrong password changes nothing and is recorded as a failed login", async () => {
    expect(await again(new LoginLimiter(), "not the password")).toEqual({
      t: "invalid",
      message: "your current password is wrong (Reauthenticate)",
    });

    expect(await enteredAt()).toBe(0);
    const { events } = await listAudit(database.prisma, { action: "login.failed" });
    expect(events.map((e) => e.detail)).toEqual([
      { reason: "reauthentication", purpose: "Reauthenticate" },
    ]);
  });

  it("counts against the login limits, so guesses here and at login add up", async () => {
    const limiter = new LoginLimiter({
      perUserIp: { points: 3, durationS: 900 },
      perIp: { points: 100, durationS: 900 },
    });
    await login(database.prisma, limiter, {
      username: "alice",
      password: "guess 1",
      ip: "10.0.0.1",
    });
    expect((await again(limiter, "guess 2")).t).toBe("invalid");
    expect((await again(limiter, "guess 3")).t).toBe("invalid");

    // Even the right password is refused now, and checks nothing.
    const limited = await again(limiter, PASSWORD);

    expect(limited.t).toBe("limited");
    expect(await enteredAt()).toBe(0);
  });

  it("refuses an API token: it has no session whose password could be entered", async () => {
    const result = await again(new LoginLimiter(), PASSWORD, 0, viaToken(alice, ["admin"]));
    expect(result.t).toBe("no-session");
    expect(result.t === "no-session" && result.message).toMatch(
      /^an API token cannot enter a password/,
    );
  });

  it("refuses a session that ended meanwhile", async () => {
    await database.prisma.session.deleteMany({});
    expect((await again(new LoginLimiter(), PASSWORD)).t).toBe("no-session");
  });
});
