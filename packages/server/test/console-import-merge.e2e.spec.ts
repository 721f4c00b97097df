import { randomBytes } from "node:crypto";
import { artifactPath, type TestBrowser } from "@switchyard/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";
import { ENVOY_EXAMPLES, listenerRouting } from "../src/testing/listener-routing.js";

type Page = Awaited<ReturnType<TestBrowser["browser"]["newPage"]>>;

const EXAMPLES = ENVOY_EXAMPLES;

/*
 * An import on the Import page is a merge the preview shows, in real Chromium, with Envoy's own
 * examples: front-proxy, then tls-sni, both naming a route configuration `local_route`. The
 * preview names the clash, the draft's listeners that use the draft's `local_route`, the diff,
 * and the choice (rename by default); what is imported is what was chosen. Each case starts from
 * an empty draft.
 */
describe("importing Envoy configuration over the draft on the Import page", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let page: Page;
  let problems: string[] = [];

  beforeAll(async () => {
    // front-proxy's TLS listener holds its private key inline: stored sealed, under a key.
    ({ harness, chromium, page, problems } = await startConsoleWorld({
      app: { secretsKey: { t: "key", key: randomBytes(32), source: "env" } },
    }));
  }, 60_000);

  afterEach(async () => {
    expect(problems.splice(0)).toEqual([]);
    await harness.api().discardDraft({});
  });

  afterAll(async () => {
    await chromium?.close();
    await harness?.stop();
  });

  const routing = () => listenerRouting(harness.api());

  /** Uploads an example's envoy.yaml on the Import page and previews it. */
  const preview = async (example: string) => {
    await page
      .getByLabel("Upload a YAML or JSON file")
      .setInputFiles(`${EXAMPLES}/${example}/envoy.yaml`);
    await page.getByRole("button", { name: "Preview changes" }).click();
    await page.getByRole("heading", { name: "Preview" }).waitFor({ timeout: 15_000 });
  };
  const apply = async () => {
    await page.getByRole("button", { name: "Apply to draft" }).click();
    await page.getByRole("link", { name: "Review and publish on Changes" }).waitFor();
  };
  const clash = () => page.getByRole("article", { name: "clash route configuration local_route" });

  /** front-proxy imported on the Import page; its listeners' routing, for after. */
  const importFrontProxy = async () => {
    await page.goto(`${harness.baseUrl}/import`);
    await preview("front-proxy");
    // Nothing in an empty draft clashes.
    expect(await page.getByRole("article", { name: /^clash / }).count()).toBe(0);
    await apply();
    const before = await routing();
    expect(Object.values(before).flat()).toEqual(
      expect.arrayContaining(["local_route", "service1-envoy", "service2-envoy"]),
    );
    return before;
  };

  it("renames a clashing object by default, saying which draft listeners use the draft's, so they route as before", async () => {
    const before = await importFrontProxy();
    const users = Object.keys(before).filter((name) => before[name]?.includes("local_route"));
    expect(users.length).toBeGreaterThan(0);

    await preview("tls-sni");
    await clash().waitFor();
    const text = await clash().innerText();
    expect(text).toContain("the draft has another by that name");
    for (const user of users) expect(text).toContain(user);
    expect(text).toMatch(/uses? it\./);
    // The diff from the draft's to the incoming one.
    expect(text).toContain("service1-envoy");
    expect(text).toContain("proxy-domain1");
    const rename = clash().getByRole("radio", { name: /Rename the incoming one to local_route-2/ });
    expect(await rename.isChecked()).toBe(true);
    expect(text).toContain("Its listeners in this import will use it; nothing else changes.");
    expect(
      await page.getByRole("article", { name: "route configuration local_route-2" }).count(),
    ).toBe(1);
    await page.screenshot({ path: artifactPath("console-import-clash.png"), fullPage: true });

    await apply();
    const after = await routing();
    for (const [listener, routes] of Object.entries(before))
      expect(after[listener]).toEqual(routes);
    const added = Object.entries(after).filter(([name]) => !(name in before));
    expect(added.flatMap(([, routes]) => routes)).toContain("local_route-2");
    expect(added.flatMap(([, routes]) => routes)).not.toContain("local_route");
  }, 120_000);

  it("replaces the draft's object only when chosen, naming the listeners that will route differently before importing", async () => {
    const before = await importFrontProxy();
    const users = Object.keys(before).filter((name) => before[name]?.includes("local_route"));

    await preview("tls-sni");
    await clash().waitFor();
    const replace = clash().getByRole("radio", { name: /Replace the draft’s/ });
    await replace.check();
    // The preview is run again with the choice: the draft's local_route is modified, none added.
    await page
      .getByRole("article", { name: "route configuration local_route", exact: true })
      .waitFor();
    expect(
      await page.getByRole("article", { name: "route configuration local_route-2" }).count(),
    ).toBe(0);
    expect(await replace.isChecked()).toBe(true);
    const hint = await clash().innerText();
    expect(hint).toMatch(/listeners? .* will route differently\./);
    for (const user of users) expect(hint).toContain(user);

    await apply();
    const after = await routing();
    for (const user of users) {
      expect(after[user]).toContain("local_route");
      expect(after[user]).toContain("proxy-domain1");
      expect(after[user]).not.toContain("service1-envoy");
    }
  }, 120_000);

  it("skips an incoming object when chosen: the draft's stays, and the import's listener loads it", async () => {
    const before = await importFrontProxy();
    const draftRoutes = await harness.api().getRouteConfiguration({ name: "local_route" });

    await preview("tls-sni");
    await clash().waitFor();
    const skip = clash().getByRole("radio", { name: /Skip the incoming one/ });
    await skip.check();
    // The preview is run again with the choice: nothing named local_route-2 is added.
    await page.getByRole("article", { name: "route configuration local_route-2" }).waitFor({
      state: "detached",
    });
    expect(await skip.isChecked()).toBe(true);

    await apply();
    expect(await harness.api().getRouteConfiguration({ name: "local_route" })).toEqual(draftRoutes);
    const after = await routing();
    for (const [listener, routes] of Object.entries(before))
      expect(after[listener]).toEqual(routes);
    const added = Object.entries(after).filter(([name]) => !(name in before));
    expect(added.flatMap(([, routes]) => routes)).toContain("local_route");
    expect(added.flatMap(([, routes]) => routes)).not.toContain("local_route-2");
  }, 120_000);
});
