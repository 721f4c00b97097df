/**
 * An object's issues are said where it is edited: a save answers the draft's issues about the
 * object saved (a listener naming a route configuration that does not exist, a second listener on
 * one address), and a publish, an apply or an endpoint registration answers the warnings about
 * what it changes, not every standing one (a contrib filter without a schema on a listener it does
 * not touch). Validate (the Changes page) still lists them all.
 */
import { EndpointOperation, Severity } from "@switchyard/proto/switchyard/v1/config_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catchAllRoutes, edsCluster, portListener } from "../src/testing/api-objects.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { clusterYaml } from "../src/testing/shop.js";

/** An Envoy listener on :5432 whose chain runs postgres_proxy (contrib: no schema here). */
const postgresListenerYaml = [
  '- "@type": type.googleapis.com/envoy.config.listener.v3.Listener',
  "  name: pg",
  "  address: { socket_address: { address: 0.0.0.0, port_value: 5432 } }",
  "  filter_chains:",
  "  - filters:",
  "    - name: envoy.filters.network.postgres_proxy",
  "      typed_config:",
  '        "@type": type.googleapis.com/envoy.extensions.filters.network.postgres_proxy.v3alpha.PostgresProxy',
  "        stat_prefix: pg",
  "    - name: envoy.filters.network.tcp_proxy",
  "      typed_config:",
  '        "@type": type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy',
  "        stat_prefix: db",
  "        cluster: db",
  "",
].join("\n");

const codes = (issues: readonly { code: string }[]) => issues.map((i) => i.code);

describe("issues are said where the object is edited", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("a save answers the draft's issues about the object saved: a dangling route configuration (warned, saved) and a second listener on 0.0.0.0:8080 (an error a publish refuses)", async () => {
    const api = harness.api();
    await api.createCluster(edsCluster("web", "10.0.0.1:80"));
    await api.createRouteConfiguration(catchAllRoutes("routes", "web"));
    const first = await api.createListener(portListener("edge", 8080, "routes"));
    expect(first.warnings).toEqual([]);

    const second = await api.createListener(portListener("edge-2", 8080, "missing"));
    expect(codes(second.warnings).sort()).toEqual([
      "dangling-route-configuration-reference",
      "listener-address-conflict",
    ]);
    const conflict = second.warnings.find((i) => i.code === "listener-address-conflict");
    expect(conflict?.severity).toBe(Severity.ERROR);
    expect(conflict?.message).toContain('listener "edge-2" listens on 0.0.0.0:8080');
    // Saved all the same: a draft in progress may hold it.
    expect((await api.getListener({ name: "edge-2" })).filterChains[0]?.rdsRouteConfigName).toBe(
      "missing",
    );
    // A read is not a save: it lists none.
    expect((await api.getListener({ name: "edge-2" })).warnings).toEqual([]);

    // Fixed by the next save, whose answer says so.
    const fixed = await api.updateListener(portListener("edge-2", 8081, "routes"));
    expect(fixed.warnings).toEqual([]);
    // The earlier listener's save hears of a conflict it is part of, whichever the issue sits on.
    await api.updateListener(portListener("edge-2", 8080, "routes"));
    const again = await api.updateListener(portListener("edge", 8080, "routes"));
    expect(codes(again.warnings)).toEqual(["listener-address-conflict"]);
    await api.deleteListener({ name: "edge-2" });
  });

  it("a listener's no-schema warning is said on its import and on Validate, not by a publish, apply or endpoint registration that does not touch it", async () => {
    const api = harness.api();
    const imported = await api.import({
      filename: "pg.yaml",
      content: `${clusterYaml("db", 5432)}${postgresListenerYaml}`,
    });
    const said = (issues: readonly { code: string; message: string }[]) =>
      issues.some((i) => i.message.includes("PostgresProxy") || i.message.includes("postgres"));
    expect(said(imported.issues)).toBe(true);
    const first = await api.publish({ message: "pg" });
    expect(codes(first.warnings)).toContain("unvalidated-extension");

    await api.createCluster(edsCluster("other", "10.0.0.2:80"));
    const unrelated = await api.publish({ message: "other" });
    expect(codes(unrelated.warnings)).not.toContain("unvalidated-extension");

    const registered = await api.setEndpoints({
      cluster: "other",
      operation: EndpointOperation.ADD,
      endpoints: [{ address: "10.0.0.3", port: 80 }],
    });
    expect(registered.changes.map((c) => c.name)).toEqual(["other"]);
    expect(codes(registered.warnings)).not.toContain("unvalidated-extension");

    const applied = await api.apply({ filename: "x.yaml", content: clusterYaml("applied", 81) });
    expect(codes(applied.warnings)).not.toContain("unvalidated-extension");

    // The Changes page's Validate still lists it, on the listener.
    const validated = await api.validate({});
    expect(
      validated.issues.filter((i) => i.code === "unvalidated-extension").map((i) => i.path),
    ).toEqual(['listeners["pg"].filterChains[0].networkFilters[0].typedConfig']);
  });
});
