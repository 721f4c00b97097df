/**
 * Property-based tests (fast-check) of malformed input on a real xDS server: random bytes as gRPC
 * frames, DiscoveryRequests and DeltaDiscoveryRequests with mutated fields, and random REST-JSON
 * bodies. The rules: nothing reaches `uncaughtException`; every stream either keeps working (it
 * ends cleanly when the client half-closes) or ends with INVALID_ARGUMENT (RESOURCE_EXHAUSTED for
 * an oversized frame) whose message names the field or the request at fault; and afterwards a
 * well-formed client is still served. xds-malformed.e2e.spec.ts pins the single cases.
 *
 * A failure prints fast-check's seed and counterexample path: pass them as `{ seed, path }` in
 * the property's options to replay exactly that case.
 *
 * Long because the properties are one suite on one server, sharing the arbitraries that build
 * nodes, names, nonces and requests, and the checks of what comes back.
 */
import type { DescMethod, DescService, JsonObject } from "@bufbuild/protobuf";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, type ConnectError } from "@connectrpc/connect";
import { ClusterDiscoveryService } from "@switchyard/proto/envoy/service/cluster/v3/cds_pb";
import { AggregatedDiscoveryService } from "@switchyard/proto/envoy/service/discovery/v3/ads_pb";
import type {
  DeltaDiscoveryResponse,
  DiscoveryResponse,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { EndpointDiscoveryService } from "@switchyard/proto/envoy/service/endpoint/v3/eds_pb";
import { ListenerDiscoveryService } from "@switchyard/proto/envoy/service/listener/v3/lds_pb";
import { RouteDiscoveryService } from "@switchyard/proto/envoy/service/route/v3/rds_pb";
import { SecretDiscoveryService } from "@switchyard/proto/envoy/service/secret/v3/sds_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { validationSecretSpec } from "@switchyard/snapshot/fixtures";
import { createTestCa } from "@switchyard/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_NODE_ID_BYTES, MAX_TYPE_URL_BYTES } from "./stream-loop.js";
import {
  type DeltaRequestInit,
  type DiscoveryRequestInit,
  grpcFrame,
  namesOf,
  rawHttp2Exchange,
  type StreamKind,
  startTestServer,
  type TestServer,
} from "./test-client.js";
import { world } from "./test-world.js";
import { MAX_REQUEST_BYTES } from "./xds-server.js";

/** The client features that turn TTLs on: resources then go wrapped, and heartbeats flow. */
const TTL_FEATURES = ["xds.config.supports-resource-ttl", "xds.config.supports-resource-in-sotw"];
const KNOWN_TYPES = [
  TypeUrl.Cluster,
  TypeUrl.ClusterLoadAssignment,
  TypeUrl.Listener,
  TypeUrl.RouteConfiguration,
  TypeUrl.Secret,
] as const;
const KINDS: readonly StreamKind[] = ["ads", ...KNOWN_TYPES];

/** Every streaming method of every discovery service, with the type its service serves. */
const SERVICES: readonly [DescService, TypeUrl | undefined][] = [
  [AggregatedDiscoveryService, undefined],
  [ClusterDiscoveryService, TypeUrl.Cluster],
  [EndpointDiscoveryService, TypeUrl.ClusterLoadAssignment],
  [ListenerDiscoveryService, TypeUrl.Listener],
  [RouteDiscoveryService, TypeUrl.RouteConfiguration],
  [SecretDiscoveryService, TypeUrl.Secret],
];
interface StreamMethod {
  readonly path: string;
  readonly method: DescMethod;
  readonly requestName: "DiscoveryRequest" | "DeltaDiscoveryRequest";
  readonly onlyType: TypeUrl | undefined;
}
const STREAM_METHODS: readonly StreamMethod[] = SERVICES.flatMap(([service, onlyType]) =>
  service.methods
    .filter((method) => method.methodKind === "bidi_streaming")
    .map((method) => ({
      path: `/${service.typeName}/${method.name}`,
      method,
      requestName: method.input.name as StreamMethod["requestName"],
      onlyType,
    })),
);

/**
 * What a message that says what and where looks like: it names the request's field
 * (`DiscoveryRequest.type_url`, `DeltaDiscoveryRequest.node.id`) or which request of the stream
 * could not be read.
 */
const NAMES_THE_PLACE =
  /(?:Delta)?DiscoveryRequest\.[a-z_.]+|request \d+ of this stream|the first (?:Delta)?DiscoveryRequest/;

// ---------------------------------------------------------------------------------------------
// Arbitraries.

/**
 * fast-check's options: `numRuns` cases, fewer when a loaded machine makes them slow (a failure
 * found by then is still reported, with its seed, before the test's own timeout).
 */
/** FUZZ_SEED=<seed> replays a run that failed (fast-check prints its seed). */
const runs = (numRuns: number) => ({
  numRuns,
  interruptAfterTimeLimit: 40_000,
  ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
});

type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : never;
/** grpc-status 0: the call ended cleanly (Connect's Code has no member for it). */
const GRPC_OK = 0;

/** A long string of one repeated character, from `min` to `max` UTF-16 units. */
const long = (min: number, max: number) =>
  fc
    .tuple(fc.constantFrom("x", "é", "名", "\u0000"), fc.integer({ min, max }))
    .map(([c, n]) => c.repeat(n));

const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 12, unit: "binary" }) },
  { weight: 1, arbitrary: long(1_000, 20_000) },
);

const shortName = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom("a", "b", "c", "routes-a", "svc-b", "*", "", "gone") },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);
const resourceName = fc.oneof({ weight: 4, arbitrary: shortName }, { weight: 1, arbitrary: text });
const resourceNames = fc.oneof(
  { weight: 6, arbitrary: fc.array(resourceName, { maxLength: 6 }) },
  // Duplicates, and many names.
  {
    weight: 1,
    arbitrary: fc
      .tuple(shortName, fc.integer({ min: 2, max: 3_000 }))
      .map(([name, n]) => Array.from({ length: n }, (_, i) => (i % 3 === 0 ? name : `n${i}`))),
  },
);

const typeUrl = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom<string>(...KNOWN_TYPES) },
  { weight: 1, arbitrary: fc.constant("") },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      // Real types this server does not serve, and names that are no type at all.
      "type.googleapis.com/envoy.config.route.v3.ScopedRouteConfiguration",
      "type.googleapis.com/envoy.config.route.v3.VirtualHost",
      "__proto__",
      "*",
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: long(MAX_TYPE_URL_BYTES - 40, MAX_TYPE_URL_BYTES + 40) },
);

/** A request's type_url: mostly the stream's own type (any known one on ADS), else any. */
const typeChoice = fc.oneof(
  { weight: 3, arbitrary: fc.nat().map((pick) => ({ t: "own" as const, pick })) },
  { weight: 2, arbitrary: typeUrl.map((value) => ({ t: "this" as const, value })) },
);

function typeOf(choice: ValueOf<typeof typeChoice>, onlyType: TypeUrl | undefined): string {
  if (choice.t === "this") return choice.value;
  return onlyType ?? KNOWN_TYPES[choice.pick % KNOWN_TYPES.length] ?? TypeUrl.Cluster;
}

const jsonObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), {
  maxKeys: 4,
}) as fc.Arbitrary<JsonObject>;

/** A node with any mix of fields; the id from well-known to empty, odd and oversized. */
const node = fc.record(
  {
    id: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom("fuzz-node", "edge-1", "") },
      { weight: 2, arbitrary: text },
      { weight: 1, arbitrary: long(MAX_NODE_ID_BYTES - 10, MAX_NODE_ID_BYTES + 10) },
    ),
    cluster: text,
    metadata: jsonObject,
    locality: fc.record({ region: text, zone: text, subZone: text }, { requiredKeys: [] }),
    userAgentName: text,
    clientFeatures: fc.array(fc.oneof(fc.constantFrom(...TTL_FEATURES), text), { maxLength: 3 }),
  },
  { requiredKeys: [] },
);

/** On a request: the stream's usual node on its first request, none, or a mutated one. */
const nodeChoice = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ t: "usual" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "none" as const }) },
  { weight: 3, arbitrary: node.map((value) => ({ t: "mutated" as const, value })) },
);

/** response_nonce: the latest seen, none, one never sent, or an older one. */
const nonceChoice = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ t: "latest" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "empty" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "stale" as const }) },
  { weight: 1, arbitrary: text.map((value) => ({ t: "other" as const, value })) },
);

const errorDetail = fc.option(
  fc.record({ code: fc.integer({ min: -5, max: 20 }), message: text }, { requiredKeys: [] }),
  { nil: undefined, freq: 3 },
);

const sotwRequest = fc.record({
  typeUrl: typeChoice,
  resourceNames,
  versionInfo: fc.oneof(fc.constant("accepted"), text),
  nonce: nonceChoice,
  node: nodeChoice,
  errorDetail,
});

type SotwAction =
  | { readonly t: "request"; readonly request: ValueOf<typeof sotwRequest> }
  | { readonly t: "ack" }
  | { readonly t: "nack"; readonly message: string };

const sotwAction: fc.Arbitrary<SotwAction> = fc.oneof(
  { weight: 5, arbitrary: sotwRequest.map((request) => ({ t: "request" as const, request })) },
  { weight: 2, arbitrary: fc.constant({ t: "ack" as const }) },
  { weight: 1, arbitrary: text.map((message) => ({ t: "nack" as const, message })) },
);

const deltaRequest = fc.record({
  typeUrl: typeChoice,
  subscribe: resourceNames,
  unsubscribe: resourceNames,
  initialResourceVersions: fc.dictionary(resourceName, text, { maxKeys: 4 }),
  nonce: nonceChoice,
  node: nodeChoice,
  errorDetail,
  locators: fc.option(fc.constantFrom("subscribe", "unsubscribe"), { nil: undefined, freq: 10 }),
});

type DeltaAction =
  | { readonly t: "request"; readonly request: ValueOf<typeof deltaRequest> }
  | { readonly t: "ack" }
  | { readonly t: "nack"; readonly message: string };

const deltaAction: fc.Arbitrary<DeltaAction> = fc.oneof(
  { weight: 5, arbitrary: deltaRequest.map((request) => ({ t: "request" as const, request })) },
  { weight: 2, arbitrary: fc.constant({ t: "ack" as const }) },
  { weight: 1, arbitrary: text.map((message) => ({ t: "nack" as const, message })) },
);

// ---------------------------------------------------------------------------------------------
// The model: which request must end the stream, and with what.

/**
 * The fragment the status message must hold when `request` ends the stream, in the order the
 * server checks (stream-loop.ts: type_url, then the first request's node, then Delta's locators);
 * undefined when the request is acceptable, whatever it asks.
 */
function fatalFragment(
  request: { typeUrl?: string; node?: { id?: string } | undefined },
  onlyType: TypeUrl | undefined,
  first: boolean,
  requestName: string,
  locators = false,
): string | undefined {
  const type = request.typeUrl ?? "";
  if (type === "") return `${requestName}.type_url is empty`;
  if (Buffer.byteLength(type) > MAX_TYPE_URL_BYTES) return `${requestName}.type_url is`;
  if (onlyType !== undefined && type !== onlyType) return "is not served by this service";
  if (first && !request.node) return "must carry a node";
  if (first && Buffer.byteLength(request.node?.id ?? "") > MAX_NODE_ID_BYTES) {
    return `${requestName}.node.id is`;
  }
  if (locators) return "resource_locators_subscribe/resource_locators_unsubscribe";
  // VHDS has no SotW variant (sotw-transport.ts): a SotW ADS request for it is refused.
  if (requestName === "DiscoveryRequest" && type === TypeUrl.VirtualHost)
    return "on-demand virtual hosts (VHDS) are served over Delta xDS only";
  return undefined;
}

function nodeOf(choice: ValueOf<typeof nodeChoice>, first: boolean) {
  if (choice.t === "none") return undefined;
  if (choice.t === "mutated") return choice.value;
  return first ? { id: "fuzz-node", clientFeatures: TTL_FEATURES } : undefined;
}

function nonceOf(
  choice: ValueOf<typeof nonceChoice>,
  latest: string | undefined,
  older: string | undefined,
): string {
  switch (choice.t) {
    case "latest":
      return latest ?? "";
    case "empty":
      return "";
    case "stale":
      return older ?? "0";
    case "other":
      return choice.value;
  }
  return "";
}

/** Checks what every response must be, whatever the requests were; records its nonce. */
type SomeResponse = DiscoveryResponse | DeltaDiscoveryResponse;

function checkResponse(
  response: SomeResponse,
  requested: ReadonlySet<string>,
  nonces: Set<string>,
): void {
  expect(requested, `a response of a type never requested: ${response.typeUrl}`).toContain(
    response.typeUrl,
  );
  expect(response.nonce).not.toBe("");
  expect(nonces, `nonce ${response.nonce} sent twice`).not.toContain(response.nonce);
  nonces.add(response.nonce);
  if ("removedResources" in response) {
    const removed = new Set(response.removedResources);
    for (const resource of response.resources) {
      expect(removed, `${resource.name} both sent and removed`).not.toContain(resource.name);
    }
  }
}

// ---------------------------------------------------------------------------------------------

describe("random and mutated xDS requests never crash the server", () => {
  let server: TestServer;
  const uncaught: unknown[] = [];
  const record = (error: unknown) => uncaught.push(error);

  beforeAll(async () => {
    process.on("uncaughtException", record);
    process.on("unhandledRejection", record);
    // TTLs with quick heartbeats, so ticks interleave with the mutated requests.
    // With a secret, so that SDS streams (SecretDiscoveryService, SDS on ADS) have one to serve.
    const secrets = [validationSecretSpec("upstream-ca", createTestCa().cert)];
    server = await startTestServer(
      { ...world(), secrets },
      {
        ttl: { ttlMs: 1_000, heartbeatMs: 100 },
        restLongPollTimeoutMs: 100,
        // What is fuzzed is reading requests, SDS ones included; that anonymous clients get no
        // secrets is sds.e2e.spec.ts's.
        anonymousSecrets: true,
      },
    );
  });

  afterAll(async () => {
    process.off("uncaughtException", record);
    process.off("unhandledRejection", record);
    await server?.close();
  });

  /**
   * Plays `actions` on `stream`, each made a request by `build` from the responses so far (and
   * whether it is the stream's first), reading what comes back after each. The first request
   * `build` calls fatal must end the stream with InvalidArgument naming that field; without one,
   * the stream still works and ends cleanly when the client does. Then the server still serves.
   */
  async function play<A, Request extends { typeUrl?: string }, Response extends SomeResponse>(
    stream: {
      send(request: Request): void;
      tryNext(ms: number): Promise<Response | undefined>;
      ended(): Promise<ConnectError | undefined>;
      close(): void;
    },
    actions: readonly A[],
    build: (
      action: A,
      responses: readonly Response[],
      first: boolean,
    ) => { readonly request: Request; readonly fatal: string | undefined },
  ): Promise<void> {
    const requested = new Set<string>();
    const nonces = new Set<string>();
    const responses: Response[] = [];
    const drain = async () => {
      for (let r = await stream.tryNext(15); r; r = await stream.tryNext(15)) {
        checkResponse(r, requested, nonces);
        responses.push(r);
      }
    };
    let expected: string | undefined;
    for (const [i, action] of actions.entries()) {
      const { request, fatal } = build(action, responses, i === 0);
      stream.send(request);
      expected = fatal;
      if (expected !== undefined) break;
      requested.add(request.typeUrl ?? "");
      await drain();
    }
    if (expected !== undefined) {
      const error = await stream.ended();
      expect(error?.code, error?.message).toBe(Code.InvalidArgument);
      expect(error?.rawMessage).toContain(expected);
      expect(error?.rawMessage).toMatch(NAMES_THE_PLACE);
    } else {
      // Still working: it ends cleanly when the client does.
      stream.close();
      await drain().catch(() => undefined);
      expect(await stream.ended()).toBeUndefined();
    }
    await expectStillServing();
  }

  /** The server still serves: a new well-formed stream gets the clusters, and nothing was uncaught. */
  async function expectStillServing(): Promise<void> {
    const fresh = server.client.open(TypeUrl.Cluster);
    fresh.request(TypeUrl.Cluster, []);
    expect(namesOf(await fresh.next())).toEqual(["a", "b"]);
    fresh.close();
    expect(await fresh.ended()).toBeUndefined();
    expect(uncaught).toEqual([]);
  }

  it("random bytes in gRPC frames end the stream with InvalidArgument naming the request, or are served, and the server keeps serving", async () => {
    const validBytes = (target: StreamMethod, type: string) =>
      toBinary(
        target.method.input,
        create(target.method.input, { typeUrl: type, node: { id: "raw-node" } }),
      );
    /** One chunk of the body: a frame of random bytes, a valid request mutated, or raw bytes. */
    const chunk = (target: StreamMethod): fc.Arbitrary<Uint8Array> =>
      fc.oneof(
        { weight: 3, arbitrary: fc.uint8Array({ maxLength: 64 }).map(grpcFrame) },
        {
          weight: 3,
          arbitrary: fc
            .tuple(
              fc.constantFrom<string>(...KNOWN_TYPES, ""),
              fc.array(
                fc.tuple(
                  fc.nat(),
                  fc.integer({ min: 0, max: 255 }),
                  fc.constantFrom("flip", "cut"),
                ),
                { maxLength: 3 },
              ),
            )
            .map(([type, edits]) => {
              let bytes = Uint8Array.from(validBytes(target, target.onlyType ?? type));
              for (const [at, value, edit] of edits) {
                if (bytes.length === 0) break;
                const index = at % bytes.length;
                if (edit === "cut") bytes = bytes.subarray(0, index);
                else bytes[index] = value;
              }
              return grpcFrame(bytes);
            }),
        },
        {
          // A frame with any flags byte (bit 0: compressed).
          weight: 1,
          arbitrary: fc
            .tuple(fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 16 }))
            .map(([flags, payload]) => {
              const frame = grpcFrame(payload);
              frame[0] = flags;
              return frame;
            }),
        },
        {
          // A header declaring more than the server accepts, and nothing after it.
          weight: 1,
          arbitrary: fc.integer({ min: MAX_REQUEST_BYTES + 1, max: 2 ** 32 - 1 }).map((length) => {
            const header = Buffer.alloc(5);
            header.writeUInt32BE(length, 1);
            return header;
          }),
        },
        { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 12 }) },
      );
    const call = fc.constantFrom(...STREAM_METHODS).chain((target) =>
      fc.record({
        target: fc.constant(target),
        chunks: fc.array(chunk(target), { minLength: 1, maxLength: 3 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(call, async ({ target, chunks }) => {
        const result = await rawHttp2Exchange(server.baseUrl, target.path, chunks, {
          halfCloseAfterMs: 150,
          timeoutMs: 3_000,
        });
        expect(result.httpStatus).toBe(200);
        if (result.status === Code.InvalidArgument || result.status === Code.ResourceExhausted) {
          expect(result.message).toContain(target.requestName);
          expect(result.message).toMatch(NAMES_THE_PLACE);
        } else {
          // Whatever decoded was served; the stream then ended cleanly when the client did.
          expect(result.status, result.message).toBe(GRPC_OK);
          expect(result.halfClosed).toBe(true);
        }
      }),
      runs(80),
    );
    await expectStillServing();
  });

  it("random JSON over gRPC (application/grpc+json) ends the stream with InvalidArgument naming the request, and the server keeps serving", async () => {
    const json = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.record(
        {
          typeUrl: fc.oneof(typeUrl, fc.jsonValue({ maxDepth: 1 })),
          node: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.record({ id: fc.jsonValue() })),
          resourceNames: fc.oneof(resourceNames, fc.jsonValue({ maxDepth: 1 })),
          versionInfo: fc.jsonValue({ maxDepth: 1 }),
          errorDetail: fc.jsonValue({ maxDepth: 2 }),
          initialResourceVersions: fc.jsonValue({ maxDepth: 2 }),
        },
        { requiredKeys: [] },
      ),
    );
    const call = fc.record({
      target: fc.constantFrom(...STREAM_METHODS),
      bodies: fc.array(
        fc.oneof(
          { weight: 5, arbitrary: json.map((value) => JSON.stringify(value)) },
          { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
        ),
        { minLength: 1, maxLength: 2 },
      ),
    });
    await fc.assert(
      fc.asyncProperty(call, async ({ target, bodies }) => {
        const chunks = bodies.map((body) => grpcFrame(Buffer.from(body)));
        const result = await rawHttp2Exchange(server.baseUrl, target.path, chunks, {
          contentType: "application/grpc+json",
          halfCloseAfterMs: 150,
          timeoutMs: 3_000,
        });
        if (result.status === Code.InvalidArgument) {
          expect(result.message).toMatch(NAMES_THE_PLACE);
        } else {
          expect(result.status, result.message).toBe(GRPC_OK);
          expect(result.halfClosed).toBe(true);
        }
      }),
      runs(60),
    );
    await expectStillServing();
  });

  it("a mutated SotW request ends the stream with InvalidArgument naming the field, any other keeps it working, and the server keeps serving", async () => {
    const run = fc.record({
      kind: fc.constantFrom(...KINDS),
      actions: fc.array(sotwAction, { minLength: 1, maxLength: 6 }),
    });
    await fc.assert(
      fc.asyncProperty(run, async ({ kind, actions }) => {
        const onlyType = kind === "ads" ? undefined : kind;
        await play(server.client.open(kind), actions, (action, responses, first) => {
          const latest = responses.at(-1);
          const request: DiscoveryRequestInit =
            action.t === "request"
              ? {
                  typeUrl: typeOf(action.request.typeUrl, onlyType),
                  resourceNames: action.request.resourceNames,
                  versionInfo:
                    action.request.versionInfo === "accepted"
                      ? (latest?.versionInfo ?? "")
                      : action.request.versionInfo,
                  responseNonce: nonceOf(
                    action.request.nonce,
                    latest?.nonce,
                    responses.at(-2)?.nonce,
                  ),
                  node: nodeOf(action.request.node, first),
                  errorDetail: action.request.errorDetail,
                }
              : {
                  // An ACK or NACK of the latest response, or a first request for CDS.
                  typeUrl: latest?.typeUrl ?? onlyType ?? TypeUrl.Cluster,
                  resourceNames: [],
                  versionInfo: latest?.versionInfo ?? "",
                  responseNonce: latest?.nonce ?? "",
                  node: first ? { id: "fuzz-node" } : undefined,
                  errorDetail:
                    action.t === "nack"
                      ? { code: Code.Internal, message: action.message }
                      : undefined,
                };
          return {
            request,
            fatal: fatalFragment(request, onlyType, first, "DiscoveryRequest"),
          };
        });
      }),
      runs(50),
    );
  });

  it("a mutated Delta request ends the stream with InvalidArgument naming the field, any other keeps it working, and the server keeps serving", async () => {
    const run = fc.record({
      kind: fc.constantFrom(...KINDS),
      actions: fc.array(deltaAction, { minLength: 1, maxLength: 6 }),
    });
    await fc.assert(
      fc.asyncProperty(run, async ({ kind, actions }) => {
        const onlyType = kind === "ads" ? undefined : kind;
        await play(server.client.openDelta(kind), actions, (action, responses, first) => {
          const latest = responses.at(-1);
          let request: DeltaRequestInit;
          let locators = false;
          if (action.t === "request") {
            const r = action.request;
            locators = r.locators !== undefined;
            request = {
              typeUrl: typeOf(r.typeUrl, onlyType),
              resourceNamesSubscribe: r.subscribe,
              resourceNamesUnsubscribe: r.unsubscribe,
              initialResourceVersions: r.initialResourceVersions,
              responseNonce: nonceOf(r.nonce, latest?.nonce, responses.at(-2)?.nonce),
              node: nodeOf(r.node, first),
              errorDetail: r.errorDetail,
              ...(r.locators === "subscribe"
                ? { resourceLocatorsSubscribe: [{ name: "a" }] }
                : r.locators === "unsubscribe"
                  ? { resourceLocatorsUnsubscribe: [{ name: "a" }] }
                  : {}),
            };
          } else {
            request = {
              typeUrl: latest?.typeUrl ?? onlyType ?? TypeUrl.Cluster,
              responseNonce: latest?.nonce ?? "",
              node: first ? { id: "fuzz-node" } : undefined,
              errorDetail:
                action.t === "nack" ? { code: Code.Internal, message: action.message } : undefined,
            };
          }
          return {
            request,
            fatal: fatalFragment(request, onlyType, first, "DeltaDiscoveryRequest", locators),
          };
        });
      }),
      runs(50),
    );
  });

  it("random REST-JSON bodies get a 4xx naming the problem and its JSON path, never a 5xx, and the server keeps serving", async () => {
    const body = fc.oneof(
      { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
      {
        weight: 4,
        arbitrary: fc
          .record(
            {
              node: fc.oneof(node, fc.jsonValue({ maxDepth: 2 })),
              resource_names: fc.oneof(resourceNames, fc.jsonValue({ maxDepth: 1 })),
              typeUrl: fc.oneof(typeUrl, fc.jsonValue({ maxDepth: 1 })),
              version_info: fc.oneof(text, fc.jsonValue({ maxDepth: 1 })),
            },
            { requiredKeys: [] },
          )
          .chain((request) =>
            fc
              .option(fc.jsonValue({ maxDepth: 1 }), { nil: undefined, freq: 4 })
              .map((unknown) => (unknown === undefined ? request : { ...request, unknown })),
          )
          .map((v) => JSON.stringify(v)),
      },
      { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
      { weight: 1, arbitrary: fc.nat({ max: 3 }).map((n) => "[".repeat(10 ** n * 5)) },
    );
    const call = fc.record({
      endpoint: fc.constantFrom("clusters", "endpoints", "listeners", "routes", "secrets"),
      method: fc.constantFrom("POST", "POST", "POST", "PUT", "GET"),
      body,
    });
    await fc.assert(
      fc.asyncProperty(call, async ({ endpoint, method, body }) => {
        const response = await fetch(`${server.baseUrl}/v3/discovery:${endpoint}`, {
          method,
          headers: { "content-type": "application/json" },
          ...(method === "GET" ? {} : { body }),
        });
        const text = await response.text();
        expect([200, 304, 400, 404, 405], text).toContain(response.status);
        if (response.status >= 400) {
          const problem = JSON.parse(text) as { message?: unknown; path?: unknown };
          expect(typeof problem.message).toBe("string");
          expect(problem.message).not.toBe("");
          if (response.status === 400) expect(problem.path).toMatch(/^\$/);
        }
      }),
      runs(80),
    );
    await expectStillServing();
  });

  it("gRPC-Web and Connect requests are refused with 415 (only gRPC is served), and the server keeps serving", async () => {
    for (const contentType of [
      "application/grpc-web+proto",
      "application/grpc-web-text",
      "application/connect+proto",
      "application/proto",
      "application/json",
    ]) {
      const result = await rawHttp2Exchange(
        server.baseUrl,
        STREAM_METHODS[0]?.path ?? "",
        [grpcFrame(new Uint8Array())],
        { contentType, halfClose: true },
      );
      expect(result.httpStatus, contentType).toBe(415);
    }
    await expectStillServing();
  });
});
