import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AuditInput, exportAudit, listAudit, recordAudit, recordAudits } from "./audit.js";
import { T0 } from "./fixtures.js";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(() => database.drop());

const event = (minute: number, overrides: Partial<AuditInput> = {}): AuditInput => ({
  actor: "alice",
  actorKind: "user",
  action: "cluster.update",
  target: "cluster/payments-api",
  ip: "10.0.0.1",
  detail: { diff: [{ op: "replace", path: "/connectTimeoutMs", value: 250 }] },
  at: new Date(T0 + minute * 60_000),
  ...overrides,
});

async function collect(chunks: AsyncIterable<string>): Promise<string> {
  let text = "";
  for await (const chunk of chunks) text += chunk;
  return text;
}

describe("audit", () => {
  it("an event recorded in a transaction that rolls back is not kept", async () => {
    await expect(
      database.prisma.$transaction(async (tx) => {
        await recordAudit(tx, event(0));
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    await database.prisma.$transaction((tx) => recordAudit(tx, event(1)));
    const { events } = await listAudit(database.prisma);
    expect(events).toHaveLength(1);
    expect(events[0]).toEqual({
      id: expect.stringMatching(/^\d+$/),
      at: new Date(T0 + 60_000),
      actor: "alice",
      actorKind: "user",
      action: "cluster.update",
      target: "cluster/payments-api",
      ip: "10.0.0.1",
      detail: { diff: [{ op: "replace", path: "/connectTimeoutMs", value: 250 }] },
    });
  });

  it("records a thousand events at once exactly as one by one: times, nulls and details kept", async () => {
    const events = Array.from({ length: 1_200 }, (_, i) =>
      event(i, {
        target: `cluster/c${i}`,
        ...(i % 2 === 0 ? { ip: null } : {}),
        detail: { diff: { after: { name: `c${i}`, note: "quotes \" and ' and \\" } } },
      }),
    );
    const { at: _at, ...untimed } = event(0, { target: "cluster/now" });

    await database.prisma.$transaction((tx) => recordAudits(tx, [...events, untimed]));

    const { events: listed } = await listAudit(database.prisma, { target: "cluster/c1" });
    expect(listed[0]).toMatchObject({
      at: new Date(T0 + 60_000),
      ip: "10.0.0.1",
      detail: { diff: { after: { name: "c1", note: "quotes \" and ' and \\" } } },
    });
    const { events: even } = await listAudit(database.prisma, { target: "cluster/c0" });
    expect(even[0]?.ip).toBeNull();
    expect(await database.prisma.auditEvent.count()).toBe(1_201);
    const now = await database.prisma.auditEvent.findFirstOrThrow({
      where: { target: "cluster/now" },
    });
    expect(Math.abs(now.at.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it("lists newest first, filtered by time, actor and action (exact or a '.*' family)", async () => {
    await recordAudit(database.prisma, event(0, { action: "login" }));
    await recordAudit(
      database.prisma,
      event(1, { actor: "bob", actorKind: "token", action: "publish" }),
    );
    await recordAudit(database.prisma, event(2, { action: "token.create" }));
    await recordAudit(database.prisma, event(3, { action: "token.revoke" }));
    const actions = async (filter: Parameters<typeof listAudit>[1]) =>
      (await listAudit(database.prisma, filter)).events.map((e) => e.action);
    expect(await actions({})).toEqual(["token.revoke", "token.create", "publish", "login"]);
    expect(await actions({ actor: "bob" })).toEqual(["publish"]);
    expect(await actions({ action: "token.*" })).toEqual(["token.revoke", "token.create"]);
    expect(await actions({ action: "token" })).toEqual([]);
    expect(
      await actions({ since: new Date(T0 + 60_000), until: new Date(T0 + 3 * 60_000) }),
    ).toEqual(["token.create", "publish"]);
  });

  it("pages with a cursor until nextCursor is null", async () => {
    for (let i = 0; i < 5; i++) await recordAudit(database.prisma, event(i, { target: `t${i}` }));
    const first = await listAudit(database.prisma, { limit: 2 });
    const second = await listAudit(database.prisma, { limit: 2, cursor: first.nextCursor });
    const third = await listAudit(database.prisma, { limit: 2, cursor: second.nextCursor });
    expect([first, second, third].map((p) => p.events.map((e) => e.target))).toEqual([
      ["t4", "t3"],
      ["t2", "t1"],
      ["t0"],
    ]);
    expect(third.nextCursor).toBeNull();
    await expect(listAudit(database.prisma, { cursor: "x" })).rejects.toThrow(/cursor/);
    await expect(listAudit(database.prisma, { limit: 0 })).rejects.toThrow(/limit/);
  });

  it("exports NDJSON, one event per line", async () => {
    await recordAudit(database.prisma, event(0));
    await recordAudit(database.prisma, event(1, { action: "publish" }));
    const lines = (await collect(exportAudit(database.prisma, {}, "ndjson"))).trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line).action)).toEqual(["publish", "cluster.update"]);
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({
      at: new Date(T0).toISOString(),
      detail: event(0).detail,
    });
  });

  it("exports CSV with a header, quoting, and formula-looking text defused", async () => {
    await recordAudit(database.prisma, event(0, { target: '=HYPERLINK("x")', ip: null }));
    const csv = await collect(exportAudit(database.prisma, {}, "csv"));
    const [header, row] = csv.trimEnd().split("\n");
    expect(header).toBe("id,at,actor,actorKind,action,target,ip,detail");
    expect(row).toMatch(
      /^\d+,2026-01-01T09:00:00.000Z,alice,user,cluster.update,"'=HYPERLINK\(""x""\)",,"\{""diff"":/,
    );
  });
});
