/**
 * The console's bootstrap hints, in real Chromium, name the xDS address the server gives (WhoAmI's
 * ServerInfo), not a fixed localhost:18000: with no proxy yet on the Nodes page, and on the page
 * of a node id no proxy presented. The command copied from the hint, run as is, prints a
 * bootstrap dialling that port (issue 46, point 2; the CLI's side is cli-server-moves.e2e.spec.ts).
 */
import { type ConsoleWorld, startConsoleWorld } from "@switchyard/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./processes.js";

describe("the console's bootstrap hints", () => {
  let world: ConsoleWorld;

  beforeAll(async () => {
    world = await startConsoleWorld({
      // The node page of an id no proxy presented answers NOT_FOUND, which Chromium logs.
      ignore: (text) => text.includes("status of 404"),
    });
  }, 120_000);

  afterAll(async () => {
    await world?.chromium.close();
    await world?.harness.stop();
  });

  it("name the xDS port the server serves on, and the copied command prints a bootstrap dialling it", async () => {
    const { page, harness } = world;
    const address = `127.0.0.1:${harness.app.xdsPort}`;
    expect(harness.app.xdsPort).not.toBe(18000);

    await page.goto(`${harness.baseUrl}/nodes`);
    const first = page.getByText("npx switchyard bootstrap --node-id edge-1", { exact: false });
    await expect
      .poll(() => first.textContent(), { timeout: 30_000 })
      .toBe(`npx switchyard bootstrap --node-id edge-1 --xds-address ${address} > envoy.json`);

    await page.goto(`${harness.baseUrl}/nodes/not-yet-seen`);
    const hint = page.getByText("npx switchyard bootstrap --node-id not-yet-seen");
    await expect
      .poll(() => hint.textContent(), { timeout: 30_000 })
      .toBe(`npx switchyard bootstrap --node-id not-yet-seen --xds-address ${address}`);
    expect(await page.getByText("localhost:18000").count()).toBe(0);

    const command = ((await hint.textContent()) ?? "").split(" ").slice(2);
    const printed = run(command, { SWITCHYARD_SERVER: "http://127.0.0.1:9", SWITCHYARD_TOKEN: "" });
    expect(await printed.exited).toBe(0);
    expect(printed.output()).toContain(`"portValue": ${harness.app.xdsPort}`);
  }, 90_000);
});
