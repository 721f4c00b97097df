/**
 * Newer Envoy APIs end to end (switchyard schema add|list|remove): added through ConfigService as
 * a FileDescriptorSet, stored, installed, then used by Apply (import, validation), publish and
 * what a real xDS stream carries; removal refused while the draft needs it; kept across a restart;
 * loaded at start from SWITCHYARD_ENVOY_SCHEMA. Reads a descriptor set of a current Envoy API and
 * resources using its newer fields where they lie (@switchyard/testing, envoySchemaFile).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromBinary } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { installedEnvoySchemas, newestSchema, registry } from "@switchyard/proto";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import { ValidationErrorsSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { envoySchemaBytes, newerFieldsResources } from "@switchyard/testing";
import { createTestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  accessClient,
  bearer,
  configClient,
  createAccount,
  Role,
  refusal,
  tokenFor,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startAppOn, startHarness } from "../src/testing/harness.js";

describe("newer Envoy APIs through the API, publish and xDS", () => {
  let harness: Harness;
  let viewer: ReturnType<typeof configClient>;
  let member: ReturnType<typeof configClient>;

  beforeAll(async () => {
    harness = await startHarness();
    await createAccount(harness.baseUrl, "viewer", Role.VIEWER);
    await createAccount(harness.baseUrl, "member", Role.MEMBER);
    viewer = configClient(harness.baseUrl, [
      bearer(await tokenFor(harness.baseUrl, "viewer", USER_PASSWORD)),
    ]);
    member = configClient(harness.baseUrl, [
      bearer(await tokenFor(harness.baseUrl, "member", USER_PASSWORD)),
    ]);
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("without one, a resource using a newer field is refused, naming the field and the API in use", async () => {
    const error = await refusal(
      harness
        .api()
        .apply({ filename: "newer.json", content: newerFieldsResources(), message: "m" }),
    );
    expect(error.code).toBe(Code.InvalidArgument);
    const [details] = error.findDetails(ValidationErrorsSchema);
    expect(details?.issues.map((issue) => issue.message)).toContainEqual(
      expect.stringMatching(
        /^unknown field "cookies" in envoy\.config\.route\.v3\.RouteMatch: not in the Envoy API bundled with Switchyard/,
      ),
    );
  });

  it("refuses what is no descriptor set of a newer Envoy API, saying why, and stores nothing", async () => {
    const api = harness.api();
    for (const [descriptorSet, message] of [
      [new Uint8Array(), /the file is empty/],
      [new TextEncoder().encode("not a descriptor set"), /no FileDescriptorSet/],
    ] as const) {
      const error = await refusal(api.addEnvoySchema({ name: "bad", descriptorSet }));
      expect(error.code).toBe(Code.InvalidArgument);
      expect(error.rawMessage).toMatch(message);
    }
    const named = await refusal(
      api.addEnvoySchema({ name: "has space", descriptorSet: envoySchemaBytes() }),
    );
    expect(named.code).toBe(Code.InvalidArgument);
    expect((await api.listEnvoySchemas({})).schemas).toEqual([]);
  });

  it("lets only admins add or remove one, and every reader list them", async () => {
    for (const client of [viewer, member]) {
      const error = await refusal(
        client.addEnvoySchema({ name: "envoy-current", descriptorSet: envoySchemaBytes() }),
      );
      expect(error.code).toBe(Code.PermissionDenied);
    }
    expect((await viewer.listEnvoySchemas({})).schemas).toEqual([]);
  });

  it("adds one: it is listed with what it adds, audited, and installed", async () => {
    const api = harness.api();
    const added = await api.addEnvoySchema({
      name: "envoy-current",
      descriptorSet: envoySchemaBytes(),
    });
    expect(added).toMatchObject({ name: "envoy-current", addedBy: "admin" });
    expect(added.newFields).toBeGreaterThan(100);
    const { schemas, bundled } = await viewer.listEnvoySchemas({});
    expect(schemas.map((s) => [s.name, s.sha256, s.newFields])).toEqual([
      ["envoy-current", added.sha256, added.newFields],
    ]);
    expect(bundled).toMatch(/@grpc\/grpc-js-xds/);
    expect(installedEnvoySchemas().map((s) => s.sha256)).toEqual([added.sha256]);
    const again = await refusal(
      api.addEnvoySchema({ name: "twice", descriptorSet: envoySchemaBytes() }),
    );
    expect(again.code).toBe(Code.AlreadyExists);
    expect(again.rawMessage).toMatch(/already loaded, as "envoy-current"/);
    const admin = accessClient(harness.baseUrl, [bearer(await harness.token())]);
    const { events } = await admin.listAuditEvents({ pageSize: 100 });
    expect(
      events.some(
        (e) => e.action === "envoy-schema.add" && e.target === "envoy-schema/envoy-current",
      ),
    ).toBe(true);
  });

  it("then applies and publishes resources using its fields, and proxies receive them as fields", async () => {
    const applied = await harness
      .api()
      .apply({ filename: "newer.json", content: newerFieldsResources(), message: "newer fields" });
    expect(applied.snapshot?.version).toBeGreaterThan(0n);
    const xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);
    try {
      const stream = xds.open("ads", { node: { id: "gw-1", cluster: "gw" } });
      stream.request(TypeUrl.RouteConfiguration, ["local_route"]);
      const response = await stream.next(10_000);
      const [packed] = response.resources;
      expect(packed?.typeUrl).toBe(TypeUrl.RouteConfiguration);
      const route = fromBinary(
        newestSchema(RouteConfigurationSchema),
        packed?.value ?? new Uint8Array(),
      );
      const match = route.virtualHosts[0]?.routes[0]?.match as unknown as {
        cookies: { name: string }[];
      };
      expect(match.cookies.map((c) => c.name)).toEqual(["tier"]);
      // What the export shows carries them too.
      expect((await harness.api().export({})).content).toMatch(/cookies/);
    } finally {
      xds.close();
    }
  });

  it("refuses to remove it while the draft uses what only it defines, naming the fields, and keeps it", async () => {
    const error = await refusal(harness.api().removeEnvoySchema({ name: "envoy-current" }));
    expect(error.code).toBe(Code.FailedPrecondition);
    expect(error.rawMessage).toMatch(/the draft uses what only "envoy-current" defines/);
    expect(error.rawMessage).toMatch(/cookies/);
    expect((await harness.api().listEnvoySchemas({})).schemas.map((s) => s.name)).toEqual([
      "envoy-current",
    ]);
    expect(
      registry
        .getMessage("envoy.config.route.v3.RouteMatch")
        ?.fields.some((f) => f.name === "cookies"),
    ).toBe(true);
  });

  it("is installed again by a server restarted on the same database", async () => {
    await harness.app.stop();
    const restarted = await startAppOn(harness.database.url);
    try {
      expect(installedEnvoySchemas().map((s) => s.name)).toEqual(["envoy-current"]);
    } finally {
      await restarted.stop();
    }
  });
});

describe("SWITCHYARD_ENVOY_SCHEMA at start", () => {
  it("stores each file once, installs it, and refuses a file that is no descriptor set, naming it", async () => {
    const folder = mkdtempSync(join(tmpdir(), "switchyard-schema-"));
    const file = join(folder, "envoy-1.37.binpb");
    writeFileSync(file, envoySchemaBytes());
    const harness = await startHarness({ app: { envoySchemaFiles: [file] } });
    try {
      const { schemas } = await harness.api().listEnvoySchemas({});
      expect(schemas.map((s) => [s.name, s.addedBy])).toEqual([
        ["envoy-1.37", "SWITCHYARD_ENVOY_SCHEMA"],
      ]);
      await harness.app.stop();
      // The same file at the next start changes nothing.
      const again = await startAppOn(harness.database.url, { app: { envoySchemaFiles: [file] } });
      await again.stop();
      const bad = join(folder, "broken.binpb");
      writeFileSync(bad, "garbage");
      await expect(
        startAppOn(harness.database.url, { app: { envoySchemaFiles: [bad] } }),
      ).rejects.toThrow(
        /broken\.binpb \(SWITCHYARD_ENVOY_SCHEMA\) is not taken as a newer Envoy API: it is no FileDescriptorSet/,
      );
    } finally {
      await harness.stop();
    }
    // Later test files in this process start from the bundled API.
    const clean = await startHarness();
    await clean.stop();
    expect(installedEnvoySchemas()).toEqual([]);
  });
});
