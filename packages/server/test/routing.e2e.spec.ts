import { LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  callUntilReady,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REAL_CLIENTS } from "../src/testing/clients.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import {
  shopCluster,
  shopListener,
  shopRoutes,
  until,
  untilAnswerIs,
} from "../src/testing/shop.js";

const cluster = (name: string, backend: EchoBackend, lbPolicy = LbPolicy.ROUND_ROBIN) =>
  shopCluster(name, backend, { lbPolicy });
const routesTo = shopRoutes;

describe.each(REAL_CLIENTS)(
  "routing with a real proxyless gRPC client (%s), through publish",
  (_name, real) => {
    let harness: Harness;
    let blue: EchoBackend;
    let green: EchoBackend;
    let client: XdsEchoClient;
    const logLines: string[] = [];
    /** Each test starts from its own state; a setup step that changes nothing is fine. */
    const publishIfChanged = async (message: string) => {
      if ((await harness.api().diff({})).changes.length > 0)
        await harness.api().publish({ message });
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
      client = await real.connect("shop", {
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

    // Each RPC picks a cluster at random (gRFC A28), so the share is binomial: over 2,000 RPCs its
    // standard deviation is 0.9 points, and 5 points is more than five of them (500 RPCs and 5
    // points, under three, failed once in CI).
    it("splits RPCs 80/20 between two clusters, within 5 points over 2,000 RPCs", async () => {
      await harness.api().updateRouteConfiguration(
        routesTo([
          ["blue", 80],
          ["green", 20],
        ]),
      );
      await harness.api().publish({ message: "canary green at 20%" });
      await untilAnswerIs(client, "green");
      const counts = new Map<string, number>();
      const rpcs = 2000;
      for (let i = 0; i < rpcs; i++) {
        const answer = await client.call();
        counts.set(answer, (counts.get(answer) ?? 0) + 1);
      }
      const blueShare = ((counts.get("blue") ?? 0) / rpcs) * 100;
      expect(Math.abs(blueShare - 80)).toBeLessThanOrEqual(5);
      expect((counts.get("blue") ?? 0) + (counts.get("green") ?? 0)).toBe(rpcs);
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

    it("a rejected cluster holds back only what needs it: the client keeps its last good one, and a later publish that does not touch it still arrives", async () => {
      await harness.api().updateRouteConfiguration(routesTo("blue"));
      await publishIfChanged("all on blue");
      await untilAnswerIs(client, "blue");
      // Proxyless gRPC rejects LEAST_REQUEST (valid Envoy config): validation predicts the rejection,
      // and publishing it needs acceptWarnings.
      await harness.api().updateCluster(cluster("blue", blue, LbPolicy.LEAST_REQUEST));
      const published = await harness
        .api()
        .publish({ message: "blue on LEAST_REQUEST", acceptWarnings: true });
      expect(published.warnings.map((w) => w.code)).toContain("grpc-unsupported-lb-policy");
      // The client rejects the update: the NACK and the client's own error text are recorded.
      const nackOf = () =>
        logLines
          .map((line) => JSON.parse(line) as { msg: string; node?: string; errorDetail?: string })
          .find((entry) => entry.msg === "xDS update rejected (NACK)");
      await until(async () => nackOf(), Boolean, "the client's NACK");
      expect(nackOf()?.node).toBe("shop-client");
      expect(nackOf()?.errorDetail).toMatch(real.leastRequestNack);
      for (let i = 0; i < 20; i++) expect(await client.call()).toBe("blue");

      // The next publish moves the route to a new cluster and leaves blue (still rejected) alone:
      // it reaches the client although the CDS NACK stands.
      const indigo = await startEchoBackend("indigo");
      try {
        await harness.api().createCluster(cluster("indigo", indigo));
        await harness.api().updateRouteConfiguration(routesTo("indigo"));
        await harness.api().publish({ message: "the shop moves to indigo" });
        await untilAnswerIs(client, "indigo");
      } finally {
        await harness.api().updateCluster(cluster("blue", blue));
        await harness.api().updateRouteConfiguration(routesTo("blue"));
        await harness.api().publish({ message: "blue back to ROUND_ROBIN, the shop on blue" });
        await untilAnswerIs(client, "blue");
        await harness.api().deleteCluster({ name: "indigo" });
        await harness.api().publish({ message: "no indigo" });
        await indigo.stop();
      }
    });
  },
);
