/**
 * Property-based (fast-check): xDS clients with odd nodes and odd requests, against the whole
 * process, where node status is tracked and persisted. packages/xds/src/xds-fuzz.e2e.spec.ts
 * covers the protocol; this covers what the server does with what the protocol let through: no
 * odd client may crash it, or stop the status writer (one U+0000 once made every flush fail).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { createTestClient, type TestClient } from "@switchyard/xds/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, type StatusClient, statusClient } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { TYPE } from "../src/testing/shop.js";

const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 12, unit: "binary" }) },
  { weight: 2, arbitrary: fc.constantFrom("\u0000", "a\u0000b", "{}", "null", "'; --") },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 1_000 }).map((n) => "é".repeat(n)) },
);

const node = fc.record(
  {
    id: text,
    cluster: text,
    metadata: fc.dictionary(text, fc.jsonValue({ maxDepth: 3 }), {
      maxKeys: 3,
    }) as fc.Arbitrary<JsonObject>,
    locality: fc.record({ region: text, zone: text, subZone: text }, { requiredKeys: [] }),
    userAgentName: text,
    userAgentVersion: text,
    clientFeatures: fc.array(text, { maxLength: 3 }),
  },
  { requiredKeys: ["id"] },
);

const action = fc.oneof(
  fc.record({
    t: fc.constant("request" as const),
    typeUrl: fc.oneof(fc.constantFrom(TYPE.CDS, TYPE.EDS, TYPE.LDS, TYPE.RDS), text),
    names: fc.array(fc.oneof(fc.constantFrom("*", "service-backend"), text), { maxLength: 3 }),
  }),
  fc.record({ t: fc.constant("ack" as const) }),
  fc.record({ t: fc.constant("nack" as const), detail: text }),
);

describe("odd xDS clients never crash the server or stop node status from being written", () => {
  let harness: Harness;
  let status: StatusClient;
  let xds: TestClient;
  const uncaught: unknown[] = [];
  const record = (error: unknown) => uncaught.push(error);

  beforeAll(async () => {
    process.on("uncaughtException", record);
    process.on("unhandledRejection", record);
    harness = await startHarness();
    status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);
  });

  afterAll(async () => {
    process.off("uncaughtException", record);
    process.off("unhandledRejection", record);
    xds?.close();
    await harness?.stop();
  });

  it("any node and any requests: each stream keeps working or ends with InvalidArgument, every flush succeeds, and a well-formed node is listed afterwards", async () => {
    let probes = 0;
    await fc.assert(
      fc.asyncProperty(
        node,
        fc.boolean(),
        fc.array(action, { minLength: 1, maxLength: 5 }),
        async (odd, delta, actions) => {
          let failed: string | undefined;
          if (delta) {
            const stream = xds.openDelta("ads", { node: odd });
            let latest: { typeUrl: string; nonce: string } | undefined;
            for (const step of actions) {
              if (step.t === "request") stream.request(step.typeUrl, step.names);
              else if (latest && step.t === "ack") stream.ack(latest as never);
              else if (latest && step.t === "nack") stream.nack(latest as never, step.detail);
              latest = (await stream.tryNext(30).catch(() => undefined)) ?? latest;
            }
            stream.close();
            const error = await stream.ended(3_000);
            failed = error && `${error.code} ${error.rawMessage}`;
            if (error) expect(error.code, error.rawMessage).toBe(Code.InvalidArgument);
          } else {
            const stream = xds.open("ads", { node: odd });
            let latest: Awaited<ReturnType<typeof stream.next>> | undefined;
            for (const step of actions) {
              if (step.t === "request") stream.request(step.typeUrl, step.names);
              else if (latest && step.t === "ack") stream.ack(latest, []);
              else if (latest && step.t === "nack") stream.nack(latest, [], step.detail);
              latest = (await stream.tryNext(30).catch(() => undefined)) ?? latest;
            }
            stream.close();
            const error = await stream.ended(3_000);
            failed = error && `${error.code} ${error.rawMessage}`;
            if (error) expect(error.code, error.rawMessage).toBe(Code.InvalidArgument);
          }
          expect(await harness.app.status.writer.flush(), failed).toBe(true);

          // Status is still written: a well-formed node appears in the API.
          probes += 1;
          const id = `status-probe-${probes}`;
          const probe = xds.open(TYPE.CDS, { node: { id } });
          probe.request(TYPE.CDS, []);
          await probe.next();
          expect(await harness.app.status.writer.flush()).toBe(true);
          const listed = await status.listNodes({ idContains: id });
          expect(listed.nodes.map((n) => n.id)).toEqual([id]);
          probe.close();
          await probe.ended();
          expect(uncaught).toEqual([]);
        },
      ),
      // No shrinking: a client that breaks the writer breaks it for every later run too, so a
      // shrunk counterexample would be an innocent run; the first failing one is the culprit.
      { numRuns: 25, interruptAfterTimeLimit: 40_000, endOnFailure: true },
    );
  });
});
