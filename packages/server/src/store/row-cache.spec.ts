import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import type { RouteConfigurationSpec } from "@switchyard/snapshot";
import { clusterSpec, endpointSpec, routeConfigurationSpec } from "@switchyard/snapshot/fixtures";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rowsById } from "./config-store.js";
import { deleteObject, writeObjects } from "./draft-store.js";
import { RowCache } from "./row-cache.js";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(() => database.drop());

const write = (routeConfigurations: RouteConfigurationSpec[]) =>
  database.prisma.$transaction((tx) =>
    writeObjects(tx, {
      clusters: [clusterSpec("a", [endpointSpec("10.0.0.1", 80)]), clusterSpec("b")],
      routeConfigurations,
    }),
  );

describe("the row cache (the draft and the List* calls)", () => {
  it("lists what is stored now: new, changed and deleted objects, re-reading only what changed", async () => {
    const cache = new RowCache({
      table: "RouteConfiguration",
      load: rowsById.routeConfiguration,
      nameOf: (stored) => stored.spec.name,
    });
    await write([routeConfigurationSpec("one", "a"), routeConfigurationSpec("two", "a")]);
    const first = await cache.read(database.prisma);
    expect(first.map((s) => s.spec.name)).toEqual(["one", "two"]);

    await write([routeConfigurationSpec("two", "b"), routeConfigurationSpec("three", "a")]);
    const second = await cache.read(database.prisma);
    expect(second.map((s) => s.spec.name)).toEqual(["one", "three", "two"]);
    // "one" did not change: the same object, not read again; "two" is the new content.
    expect(second[0]).toBe(first[0]);
    expect(second[2]?.spec.virtualHosts[0]?.routes[0]?.cluster).toBe("b");

    await database.prisma.$transaction((tx) => deleteObject(tx, "routeConfiguration", "one"));
    expect((await cache.read(database.prisma)).map((s) => s.spec.name)).toEqual(["three", "two"]);
  });

  it("sees a change of updatedAt alone (a write outside the draft, such as a new owner team)", async () => {
    const cache = new RowCache({
      table: "RouteConfiguration",
      load: rowsById.routeConfiguration,
      nameOf: (stored) => stored.spec.name,
    });
    await write([routeConfigurationSpec("one", "a")]);
    const before = (await cache.read(database.prisma))[0]?.updatedAt;
    const later = new Date((before?.getTime() ?? 0) + 60_000);
    await database.prisma.routeConfiguration.update({
      where: { name: "one" },
      data: { updatedAt: later },
    });
    expect((await cache.read(database.prisma))[0]?.updatedAt).toEqual(later);
  });
});
