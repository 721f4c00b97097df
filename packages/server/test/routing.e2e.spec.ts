import { LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";
import { shopCluster, shopListener, shopRoutes, untilAnswerIs } from "./shop.js";

const cluster = (name: string, backend: EchoBackend, lbPolicy = LbPolicy.ROUND_ROBIN) =>
  shopCluster(name, backend, { lbPolicy });
const routesTo = shopRoutes;

describe("routing with a real proxyless gRPC client, through publish", () => {
  let harness: Harness;
  let blue: EchoBackend;
  let green: EchoBackend;
  let client: XdsEchoClient;
  const logLines: string[] = [];
  /** Each test starts from its own state; a setup step that changes nothing is fine. */
  const publishIfChanged = async (message: string) => {
    if ((await harness.api().diff({})).changes.length > 0) await harness.api().publish({ message });
  };

  beforeAll(async () => {
    [blue, green] = await Promise.all([startEchoBackend("blue"), startEchoBackend("green")]);
    harness = await startHarness({
      logger: pino({ level: "warn" }, { write: (line: string) => void logLines.push(line) }),
    });
    const api = harness.api();
    await api.createCluster(cluster("blue", blue));
    await api.createCluster(cluster("green", green));
    await api.createRouteConfiguration(routesTo("blue"));
    await api.createListener(shopListener());
    await api.publish({ message: "shop on blue" });
    client = createXdsEchoClient("shop", {
      server: `127.0.0.1:${harness.app.xdsPort}`,
      nodeId: "shop-client",
    });
    expect(await callUntilReady(client)).toBe("blue");
  });

  afterAll(async () => {
    client?.close();
    await harness?.stop();
    await Promise.all([blue?.stop(), green?.stop()]);
  });

  it("splits RPCs 80/20 between two clusters, within 5 points over 500 RPCs", async () => {
    await harness.api().updateRouteConfiguration(
      routesTo([
        ["blue", 80],
        ["green", 20],
      ]),
    );
    await harness.api().publish({ message: "canary green at 20%" });
    await untilAnswerIs(client, "green");
    const counts = new Map<string, number>();
    for (let i = 0; i < 500; i++) {
      const answer = await client.call();
      counts.set(answer, (counts.get(answer) ?? 0) + 1);
    }
    const blueShare = ((counts.get("blue") ?? 0) / 500) * 100;
    expect(Math.abs(blueShare - 80)).toBeLessThanOrEqual(5);
    expect((counts.get("blue") ?? 0) + (counts.get("green") ?? 0)).toBe(500);
  });

  it("loses no RPC while a route moves from cluster X to a newly created cluster Y (make before break)", async () => {
    await harness.api().updateRouteConfiguration(routesTo("blue"));
    await harness
      .api()
      .publish({ message: "all on blue" })
      .catch(() => undefined);
    await untilAnswerIs(client, "blue");
    const violet = await startEchoBackend("violet");
    try {
      let failures = 0;
      let sent = 0;
      let flowing = true;
      const seen = new Set<string>();
      const traffic = (async () => {
        while (flowing) {
          sent += 1;
          await client.call(5000).then(
            (answer) => seen.add(answer),
            () => {
              failures += 1;
            },
          );
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await harness.api().createCluster(cluster("violet", violet));
      await harness.api().updateRouteConfiguration(routesTo("violet"));
      await harness.api().publish({ message: "move the shop to the new violet cluster" });
      await untilAnswerIs(client, "violet");
      await new Promise((resolve) => setTimeout(resolve, 200));
      flowing = false;
      await traffic;
      expect(seen).toContain("violet");
      expect(sent).toBeGreaterThan(50);
      expect(failures).toBe(0);
    } finally {
      await violet.stop();
    }
  });

  it("keeps serving the last good config when the client rejects a publish, and takes the next valid one", async () => {
    await harness.api().updateRouteConfiguration(routesTo("blue"));
    await publishIfChanged("all on blue");
    await untilAnswerIs(client, "blue");
    // Proxyless gRPC rejects LEAST_REQUEST (Switchyard warns at publish, but it is valid Envoy config).
    const rejected = await harness
      .api()
      .updateCluster(cluster("blue", green, LbPolicy.LEAST_REQUEST));
    const published = await harness.api().publish({ message: "blue on LEAST_REQUEST" });
    expect(rejected.name).toBe("blue");
    expect(published.warnings.map((w) => w.code)).toContain("grpc-unsupported-lb-policy");
    // The client rejects the update: the NACK and the client's own error text are recorded.
    const nackOf = () =>
      logLines
        .map((line) => JSON.parse(line) as { msg: string; node?: string; errorDetail?: string })
        .find((entry) => entry.msg === "xDS update rejected (NACK)");
    const deadline = Date.now() + 10_000;
    while (!nackOf() && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(nackOf()?.node).toBe("shop-client");
    expect(nackOf()?.errorDetail).toMatch(/unsupported lb_policy: LEAST_REQUEST/);
    // The rejected version also moved blue's endpoint to the green backend: RPCs still reaching
    // blue prove the client kept its last good config (the rest of that publish was held back).
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 0; i < 20; i++) expect(await client.call()).toBe("blue");
    await harness.api().updateCluster(cluster("blue", green));
    await harness.api().publish({ message: "blue back to ROUND_ROBIN, on the green backend" });
    await untilAnswerIs(client, "green");
  });
});
