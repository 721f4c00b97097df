import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { at, seedUser, T0 } from "./fixtures.js";
import type { PrincipalRow } from "./principal.js";
import { sha256Hex } from "./secrets.js";
import {
  bearerToken,
  createApiToken,
  listApiTokens,
  resolveApiToken,
  revokeApiToken,
  revokeUserApiTokens,
} from "./tokens.js";

let database: TestDatabase;
let alice: PrincipalRow;
beforeEach(async () => {
  database = await createTestDatabase();
  alice = await seedUser(database.prisma, "alice");
});
afterEach(() => database.drop());

describe("API tokens", () => {
  it("are returned once as sy_ + 43 base64url characters; only their sha256 is stored", async () => {
    const { secret, token } = await createApiToken(database.prisma, {
      userId: alice.id,
      name: "ci",
      scopes: ["publish", "config:read", "publish"],
    });
    expect(secret).toMatch(/^sy_[A-Za-z0-9_-]{43}$/);
    expect(token.scopes).toEqual(["config:read", "publish"]);
    const row = await database.prisma.apiToken.findUniqueOrThrow({ where: { id: token.id } });
    expect(row.secretHash).toBe(sha256Hex(secret));
    expect(JSON.stringify(row)).not.toContain(secret.slice(3));
  });

  it("resolve to their user's principal carrying the token's scopes, and record lastUsedAt", async () => {
    const { secret, token } = await createApiToken(database.prisma, {
      userId: alice.id,
      name: "ci",
      scopes: ["config:read"],
    });
    const principal = await resolveApiToken(database.prisma, secret, { now: at(0) });
    expect(principal).toEqual(
      expect.objectContaining({
        username: "alice",
        role: "MEMBER",
        via: { t: "token", tokenId: token.id, tokenName: "ci", scopes: ["config:read"] },
      }),
    );
    const [listed] = await listApiTokens(database.prisma, alice.id);
    expect(listed?.lastUsedAt?.getTime()).toBe(T0);
  });

  it("revoked, stop working on the very next call", async () => {
    const { secret, token } = await createApiToken(database.prisma, {
      userId: alice.id,
      name: "ci",
      scopes: ["publish"],
    });
    expect(await resolveApiToken(database.prisma, secret)).not.toBeNull();
    const revoked = await revokeApiToken(database.prisma, token.id, {
      userId: alice.id,
      now: at(5),
    });
    expect(revoked?.revokedAt?.getTime()).toBe(T0 + 5);
    expect(await resolveApiToken(database.prisma, secret)).toBeNull();
  });

  it("revoking twice keeps the first time; another user's token is not revoked by a member", async () => {
    const bob = await seedUser(database.prisma, "bob", "VIEWER");
    const { secret, token } = await createApiToken(database.prisma, {
      userId: bob.id,
      name: "x",
      scopes: ["config:read"],
    });
    expect(await revokeApiToken(database.prisma, token.id, { userId: alice.id })).toBeNull();
    expect(await resolveApiToken(database.prisma, secret)).not.toBeNull();
    await revokeApiToken(database.prisma, token.id, { now: at(1) });
    const again = await revokeApiToken(database.prisma, token.id, { now: at(2) });
    expect(again?.revokedAt?.getTime()).toBe(T0 + 1);
  });

  it("expired, or of a disabled user, resolve to nothing", async () => {
    const expiring = await createApiToken(database.prisma, {
      userId: alice.id,
      name: "short",
      scopes: ["config:read"],
      expiresAt: new Date(T0 + 1000),
    });
    expect(
      await resolveApiToken(database.prisma, expiring.secret, { now: at(999) }),
    ).not.toBeNull();
    expect(await resolveApiToken(database.prisma, expiring.secret, { now: at(1000) })).toBeNull();
    const other = await createApiToken(database.prisma, {
      userId: alice.id,
      name: "ci",
      scopes: ["config:read"],
    });
    await database.prisma.user.update({
      where: { id: alice.id },
      data: { disabledAt: new Date() },
    });
    expect(await resolveApiToken(database.prisma, other.secret)).toBeNull();
  });

  it("are listed newest first without their secret, revoked ones marked", async () => {
    await createApiToken(database.prisma, {
      userId: alice.id,
      name: "old",
      scopes: ["config:read"],
      now: at(0),
    });
    const { token } = await createApiToken(database.prisma, {
      userId: alice.id,
      name: "new",
      scopes: ["status:read"],
      now: at(1),
    });
    expect(await revokeUserApiTokens(database.prisma, alice.id, { now: at(2) })).toBe(2);
    const listed = await listApiTokens(database.prisma, alice.id);
    expect(listed.map((t) => [t.name, t.revokedAt?.getTime()])).toEqual([
      ["new", T0 + 2],
      ["old", T0 + 2],
    ]);
    expect(Object.keys(listed[0] ?? {}).sort()).toEqual([
      "createdAt",
      "expiresAt",
      "id",
      "lastUsedAt",
      "name",
      "revokedAt",
      "scopes",
      "userId",
    ]);
    expect(listed[0]?.id).toBe(token.id);
  });

  it("need a name and known scopes", async () => {
    await expect(
      createApiToken(database.prisma, { userId: alice.id, name: " ", scopes: ["publish"] }),
    ).rejects.toThrow(/name/);
    await expect(
      createApiToken(database.prisma, { userId: alice.id, name: "x", scopes: [] }),
    ).rejects.toThrow(/at least one scope/);
    await expect(
      createApiToken(database.prisma, { userId: alice.id, name: "x", scopes: ["root"] }),
    ).rejects.toThrow(/unknown token scope "root"/);
  });

  it("anything not starting with sy_ is not looked up", async () => {
    expect(await resolveApiToken(database.prisma, "Bearer x")).toBeNull();
  });

  it("are read from an Authorization: Bearer header", () => {
    expect(bearerToken("Bearer sy_abc")).toBe("sy_abc");
    expect(bearerToken("bearer  sy_abc ")).toBe("sy_abc");
    expect(bearerToken("Basic abc")).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });
});
