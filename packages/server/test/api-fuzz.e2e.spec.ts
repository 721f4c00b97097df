/**
 * Property-based tests (fast-check) of malformed API bodies. Every method of every service,
 * signed in as an admin with an API token (the privileged ones, which a token may not call, on an
 * admin's console session signed in for them), is sent over HTTP: random JSON, bodies built from its
 * request type with fields mutated (wrong types, unknown fields, U+0000, unpaired surrogates,
 * huge strings, deep nesting), valid requests with one mutation, binary protobuf that does not
 * decode, and wrong content types. The rules:
 *
 * - the answer is a success or a deliberate Connect error: a code other than internal/unknown,
 *   an HTTP status below 500, a message; a wrong content type is refused with 415;
 * - a refused call changes nothing in the database (every stored table but node status, audit
 *   events and sessions is digested before and after);
 * - the server stays up and nothing reaches `uncaughtException`.
 *
 * A failure prints fast-check's seed and counterexample path: pass them as `{ seed, path }` in
 * the property's options to replay exactly that case.
 *
 * Long because it is one suite on one seeded server, and most of it is the body generators, which
 * build each method's bodies from its request type so that no method is left out.
 */
import {
  create,
  type DescField,
  type DescMessage,
  type DescMethod,
  type DescService,
  type JsonValue,
  toBinary,
  toJson,
} from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AccessService } from "@switchyard/proto/switchyard/v1/access_pb";
import {
  ClusterSchema,
  ConfigService,
  LbPolicy,
  ListenerSchema,
  NodeGroupSchema,
  RouteConfigurationSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { RolloutService } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privilegeOf } from "../src/access/privileged-actions.js";
import { apiListener, catchAllRoutes, edsCluster } from "../src/testing/api-objects.js";
import {
  ADMIN_PASSWORD,
  accessClient,
  bearer,
  createAccount,
  Role,
  signIn,
  tokenFor,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

const SERVICES: readonly DescService[] = [
  ConfigService,
  StatusService,
  RolloutService,
  AccessService,
];
const METHODS: readonly DescMethod[] = SERVICES.flatMap((service) => service.methods);

/** Codes that say "the server failed", not "your request is wrong". */
const UNCLEAR_CODES = ["internal", "unknown", "data_loss"];

/** Content types a Connect unary call may carry; anything else is refused with 415. */
const UNARY_TYPES = new Set(["application/json", "application/proto"]);

/**
 * fast-check's options: `numRuns` cases, fewer when a loaded machine makes them slow (a failure
 * found by then is still reported, with its seed, before the test's own timeout).
 */
const runs = (numRuns: number) => ({ numRuns, interruptAfterTimeLimit: 30_000 });

// ---------------------------------------------------------------------------------------------
// What the fuzzed requests refer to: objects that exist, so valid bodies reach the handlers.

const CLUSTER = "fuzz-cluster";
const ROUTES = "fuzz-routes";
const LISTENER = "fuzz-listener";
const GROUP = "fuzz-group";
const PLAN = "fuzz-plan";
const TEAM = "fuzz-team";
const MEMBER = "fuzz-member";
/** An admin whose tokens Logout calls spend. */
const LOGOUT = "fuzz-logout";

interface Seeded {
  teamId: string;
  memberId: string;
  memberTokenId: string;
  exported: string;
}

/** `length` letters that do not repeat (a linear congruential sequence): they do not compress. */
function incompressible(length: number): string {
  let state = length;
  return Array.from({ length }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return String.fromCharCode(97 + ((state >> 16) % 26));
  }).join("");
}

/**
 * Strings that are wrong for any field: U+0000 (Postgres refuses it), unpaired surrogates (no
 * UTF-8 form), and names too long for a database index (varied, so they do not compress away).
 */
const ODD_STRINGS = ["a\u0000b", "x\ud800y", incompressible(3_000)];
const oddString = fc.oneof(
  fc.constantFrom(...ODD_STRINGS, "\u0000", "\udc00"),
  fc.integer({ min: 600, max: 5_000 }).map(incompressible),
  fc
    .tuple(fc.constantFrom("x", "é", "-"), fc.integer({ min: 300, max: 40_000 }))
    .map(([c, n]) => c.repeat(n)),
);

/** Values the generators draw from: names and ids of stored objects, and odd ones. */
function stringPool(seeded: Seeded): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        CLUSTER,
        ROUTES,
        LISTENER,
        GROUP,
        TEAM,
        MEMBER,
        seeded.teamId,
        seeded.memberId,
        seeded.memberTokenId,
        "*.example.com",
        "10.0.0.1",
        "1",
        "",
        "gone",
      ),
    },
    { weight: 3, arbitrary: fc.string({ maxLength: 16 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 16, unit: "binary" }) },
    { weight: 2, arbitrary: oddString },
  );
}

const numberish: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.integer({ min: -3, max: 5 }),
  fc.integer(),
  fc.constantFrom(2 ** 31, 2 ** 32, 2 ** 53, -1, 1.5, 1e300),
  fc.constantFrom("1", "-1", "18446744073709551615", "18446744073709551616", "1e3", "NaN", "x"),
);

/** Random JSON: what a client that knows nothing of the API might send. */
const anyJson = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>;

/**
 * A JSON value for `field`: of the right shape most of the time (from the pools), random JSON
 * otherwise. Messages nest up to `depth`; well-known types get random JSON or a valid form.
 */
function fieldValue(
  field: DescField,
  strings: fc.Arbitrary<string>,
  depth: number,
): fc.Arbitrary<JsonValue> {
  const right = ((): fc.Arbitrary<JsonValue> => {
    switch (field.fieldKind) {
      case "scalar":
        return scalarValue(field.scalar, strings);
      case "enum":
        return fc.oneof(
          fc.constantFrom(...field.enum.values.map((v) => v.name)),
          fc.constantFrom(...field.enum.values.map((v) => v.number)),
          fc.constantFrom("NOT_A_VALUE", 99, -7),
        );
      case "message":
        return messageValue(field.message, strings, depth);
      case "list": {
        const item: fc.Arbitrary<JsonValue> =
          field.listKind === "scalar"
            ? scalarValue(field.scalar, strings)
            : field.listKind === "enum"
              ? fc.constantFrom(...field.enum.values.map((v) => v.name), "NOT_A_VALUE")
              : messageValue(field.message, strings, depth);
        return fc.array(item, { maxLength: 3 });
      }
      case "map":
        return fc.dictionary(
          strings,
          field.mapKind === "scalar"
            ? scalarValue(field.scalar, strings)
            : field.mapKind === "enum"
              ? fc.constantFrom(...field.enum.values.map((v) => v.name))
              : messageValue(field.message, strings, depth),
          { maxKeys: 3 },
        );
    }
  })();
  return fc.oneof({ weight: 5, arbitrary: right }, { weight: 1, arbitrary: anyJson });
}

function scalarValue(scalar: number, strings: fc.Arbitrary<string>): fc.Arbitrary<JsonValue> {
  // ScalarType: 9 string, 8 bool, 12 bytes; every other is a number.
  if (scalar === 9) return strings;
  if (scalar === 8) return fc.oneof(fc.boolean(), fc.constantFrom("true", 1, null));
  if (scalar === 12)
    return fc.oneof(fc.base64String({ maxLength: 12 }), fc.constantFrom("!!", "="));
  return numberish;
}

function messageValue(
  message: DescMessage,
  strings: fc.Arbitrary<string>,
  depth: number,
): fc.Arbitrary<JsonValue> {
  switch (message.typeName) {
    case "google.protobuf.Timestamp":
      return fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.constantFrom("2026-13-45T99:00:00Z", "yesterday", 0),
      );
    case "google.protobuf.Duration":
      return fc.constantFrom("1s", "1.5s", "-1s", "315576000001s", "forever");
    case "google.protobuf.Struct":
      return fc.dictionary(fc.string({ maxLength: 6 }), anyJson, {
        maxKeys: 3,
      }) as fc.Arbitrary<JsonValue>;
    default:
      if (message.typeName.startsWith("google.protobuf.") || depth <= 0) return anyJson;
      return requestObject(message, strings, depth - 1);
  }
}

/** An object of `message`'s fields (a random subset, by JSON or proto name) and unknown keys. */
function requestObject(
  message: DescMessage,
  strings: fc.Arbitrary<string>,
  depth = 2,
): fc.Arbitrary<JsonValue> {
  const members = message.fields.map((field) =>
    fc.tuple(fc.constantFrom(field.jsonName, field.name), fieldValue(field, strings, depth)),
  );
  return fc
    .tuple(
      fc.subarray(members.length === 0 ? [] : members.map((_, i) => i)),
      fc.tuple(...members),
      fc.option(fc.tuple(fc.string({ maxLength: 8 }), anyJson), { nil: undefined, freq: 4 }),
    )
    .map(([chosen, entries, unknown]) => {
      const object: Record<string, JsonValue> = {};
      for (const index of chosen) {
        const entry = entries[index];
        if (entry) object[entry[0]] = entry[1];
      }
      if (unknown) object[`unknown_${unknown[0]}`] = unknown[1];
      return object;
    });
}

/** The stored objects the fuzzing starts from (and their valid forms, to mutate). */
const fuzzCluster = (name = CLUSTER) =>
  edsCluster(name, "10.0.0.1:8080", { lbPolicy: LbPolicy.ROUND_ROBIN, connectTimeoutMs: 1000 });
const fuzzRoutes = (name = ROUTES) => catchAllRoutes(name, CLUSTER, { virtualHost: "fuzz" });
const fuzzListener = (name = LISTENER) => apiListener(name, ROUTES);
const fuzzGroup = (name = GROUP) =>
  create(NodeGroupSchema, { name, priority: 1, nodeIds: ["edge-1"], clusters: [CLUSTER] });

/** A valid request of `method` as JSON, to be mutated: one per method that needs more than {}. */
function validExample(method: DescMethod, seeded: Seeded): JsonValue {
  const cluster = (name?: string) => toJson(ClusterSchema, fuzzCluster(name));
  const routes = (name?: string) => toJson(RouteConfigurationSchema, fuzzRoutes(name));
  const listener = (name?: string) => toJson(ListenerSchema, fuzzListener(name));
  const group = (name?: string) => toJson(NodeGroupSchema, fuzzGroup(name));
  const examples: Record<string, JsonValue> = {
    CreateCluster: cluster("fuzz-new-cluster"),
    UpdateCluster: cluster(),
    CreateRouteConfiguration: routes("fuzz-new-routes"),
    UpdateRouteConfiguration: routes(),
    CreateListener: listener("fuzz-new-listener"),
    UpdateListener: listener(),
    CreateNodeGroup: group("fuzz-new-group"),
    UpdateNodeGroup: group(),
    GetCluster: { name: CLUSTER },
    DeleteCluster: { name: "gone" },
    GetListener: { name: LISTENER },
    DeleteListener: { name: "gone" },
    GetRouteConfiguration: { name: ROUTES },
    DeleteRouteConfiguration: { name: "gone" },
    GetNodeGroup: { name: GROUP },
    DeleteNodeGroup: { name: "gone" },
    GetEnvoyResource: { kind: "RESOURCE_KIND_CLUSTER", name: CLUSTER },
    Diff: { fromVersion: "1", toVersion: "0" },
    Publish: { message: "fuzz", baseVersion: "1" },
    GetSnapshot: { version: "1" },
    Rollback: { version: "1", message: "fuzz" },
    RequestReview: { message: "fuzz", baseVersion: "1" },
    GetReviewRequest: { id: "1" },
    ApproveReview: { id: "1" },
    RejectReview: { id: "1", comment: "no" },
    WithdrawReview: { id: "1" },
    Import: { content: seeded.exported, filename: "fuzz.yaml", dryRun: true },
    Export: { format: "CONFIG_FORMAT_JSON" },
    GetNode: { id: "edge-1" },
    WatchNode: { id: "edge-1" },
    GetConvergence: { version: "1" },
    Login: { username: MEMBER, password: "not-the-password" },
    CreateUser: { username: "fuzz-new-user", password: USER_PASSWORD, role: "ROLE_VIEWER" },
    UpdateUser: { id: seeded.memberId, role: "ROLE_MEMBER", teamId: seeded.teamId },
    CreateTeam: { name: "fuzz-new-team", domains: ["*.fuzz.example"] },
    UpdateTeam: { id: seeded.teamId, requireReview: false },
    DeleteTeam: { id: "00000000-0000-0000-0000-000000000000" },
    AddTeamDomain: { teamId: seeded.teamId, pattern: "*.more.example" },
    RemoveTeamDomain: { teamId: seeded.teamId, pattern: "*.gone.example" },
    SetClusterOwner: { cluster: CLUSTER, teamId: seeded.teamId },
    CreateToken: { name: "fuzz", scopes: ["config:read"] },
    ListTokens: { userId: seeded.memberId },
    RevokeToken: { id: seeded.memberTokenId },
    ListAuditEvents: { actor: "admin", action: "login" },
    GetRolloutPlan: { name: PLAN },
    PutRolloutPlan: { name: PLAN, document: "bake: 1m\nwaves: [1, 50%, 100%]\n" },
    DeleteRolloutPlan: { name: "gone" },
    SetDefaultRolloutPlan: { name: PLAN },
  };
  return examples[method.name] ?? {};
}

/** `json` with one thing changed at a random place: a value replaced, removed, or added. */
function mutated(json: JsonValue, strings: fc.Arbitrary<string>): fc.Arbitrary<JsonValue> {
  const replacement = fc.oneof(
    { weight: 3, arbitrary: oddString },
    { weight: 2, arbitrary: anyJson },
    { weight: 1, arbitrary: strings },
    { weight: 1, arbitrary: numberish },
    { weight: 1, arbitrary: deeplyNested },
  );
  return fc
    .tuple(
      fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
      fc.constantFrom("replace", "remove", "add"),
      replacement,
    )
    .map(([path, edit, value]) => {
      const copy = structuredClone(json);
      let parent: JsonValue = copy;
      for (const [i, step] of path.entries()) {
        const keys = Array.isArray(parent)
          ? parent.map((_, k) => k)
          : typeof parent === "object" && parent !== null
            ? Object.keys(parent)
            : [];
        const last = i === path.length - 1 || keys.length === 0;
        if (keys.length === 0 || typeof parent !== "object" || parent === null) break;
        const key = keys[step % keys.length] as string & number;
        const container = parent as Record<string | number, JsonValue>;
        if (last) {
          if (edit === "remove" && !Array.isArray(container)) delete container[key];
          else if (edit === "add" && !Array.isArray(container))
            container[`unknown_${step}`] = value;
          else container[key] = value;
          break;
        }
        const child = container[key];
        if (typeof child !== "object" || child === null) {
          container[key] = value;
          break;
        }
        parent = child;
      }
      return copy;
    });
}

/** Arrays and objects nested deep (as deep as JSON.stringify goes; bodies go deeper as text). */
const deeplyNested: fc.Arbitrary<JsonValue> = fc
  .tuple(fc.integer({ min: 100, max: 2_000 }), fc.boolean())
  .map(([depth, arrays]) => {
    let value: JsonValue = "bottom";
    for (let i = 0; i < depth; i += 1) value = arrays ? [value] : { nested: value };
    return value;
  });

/**
 * The valid example with one string set to each of ODD_STRINGS, for every string in it and every
 * top-level string field: the cases each method always gets, before the random ones.
 */
function oddStringCases(method: DescMethod, seeded: Seeded): JsonValue[] {
  const example = validExample(method, seeded);
  const cases: JsonValue[] = [];
  const visit = (value: JsonValue, replace: (by: JsonValue) => JsonValue) => {
    if (typeof value === "string") {
      for (const odd of ODD_STRINGS) cases.push(replace(odd));
    } else if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) {
        visit(item, (by) => replace(value.map((other, j) => (i === j ? by : other))));
      }
    } else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        visit(item, (by) => replace({ ...value, [key]: by }));
      }
    }
  };
  const top = { ...(example as Record<string, JsonValue>) };
  for (const field of method.input.fields) {
    if (field.fieldKind === "scalar" && field.scalar === 9 && !(field.jsonName in top)) {
      top[field.jsonName] = "";
    }
  }
  visit(top, (by) => by);
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Bodies and how they travel.

type Body =
  | { readonly t: "json"; readonly text: string }
  | { readonly t: "binary"; readonly bytes: Uint8Array }
  | { readonly t: "other"; readonly contentType: string; readonly text: string };

function bodies(method: DescMethod, seeded: Seeded): fc.Arbitrary<Body> {
  const strings = stringPool(seeded);
  const example = validExample(method, seeded);
  const json = (value: fc.Arbitrary<JsonValue>) =>
    value.map((v): Body => ({ t: "json", text: JSON.stringify(v) }));
  /** A string field's number: its bytes can be made invalid UTF-8. */
  const stringField = method.input.fields.find((f) => f.fieldKind === "scalar" && f.scalar === 9);
  const validBinary = toBinary(method.input, create(method.input));
  return fc.oneof(
    { weight: 3, arbitrary: json(requestObject(method.input, strings)) },
    { weight: 5, arbitrary: json(mutated(example, strings)) },
    { weight: 1, arbitrary: json(anyJson) },
    {
      // Nesting far deeper than any parser's stack, as text.
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 1_000, max: 200_000 }), fc.constantFrom("[", '{"a":'))
        .map(
          ([depth, open]): Body => ({
            t: "json",
            text: `${open.repeat(depth)}1${(open === "[" ? "]" : "}").repeat(depth)}`,
          }),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(fc.string({ maxLength: 20 }), fc.constantFrom("{", "[1,", '{"a":}', "\u0000", ""))
        .map((text): Body => ({ t: "json", text })),
    },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.uint8Array({ minLength: 1, maxLength: 40 }),
          fc.constant(
            stringField
              ? Uint8Array.from([(stringField.number << 3) | 2, 2, 0xc3, 0x28])
              : Uint8Array.from([0x0a, 0x05]),
          ),
          fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([at, value]) => {
            const bytes = Uint8Array.from([...validBinary, 0x0a, 0x02, 0xc3, 0x28]);
            bytes[at % bytes.length] = value;
            return bytes;
          }),
        )
        .map((bytes): Body => ({ t: "binary", bytes })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            "text/plain",
            "application/xml",
            "application/x-www-form-urlencoded",
            "multipart/form-data",
            "application/json+evil",
          ),
          fc.string({ maxLength: 20 }),
        )
        .map(([contentType, text]): Body => ({ t: "other", contentType, text })),
    },
  );
}

interface Answer {
  readonly status: number;
  /** The Connect error, when the call failed with one. */
  readonly error?: { readonly code: string; readonly message: string };
}

/** A unary call over the Connect protocol. */
/** The headers a call is authenticated with: an API token's, or a console session's. */
type Credential = Readonly<Record<string, string>>;

const tokenHeaders = (token: string): Credential => ({ authorization: `Bearer ${token}` });

async function callUnary(url: string, credential: Credential, body: Body): Promise<Answer> {
  const contentType =
    body.t === "json"
      ? "application/json"
      : body.t === "binary"
        ? "application/proto"
        : body.contentType;
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": contentType, ...credential },
    body: body.t === "binary" ? body.bytes : body.text,
  });
  const text = await response.text();
  const answer = { status: response.status };
  if (response.ok || text === "") return answer;
  return { ...answer, error: JSON.parse(text) as { code: string; message: string } };
}

/**
 * A server-streaming call over the Connect protocol: the first message or the end of the stream,
 * whichever comes first; the stream is then abandoned.
 */
async function callStream(url: string, credential: Credential, body: Body): Promise<Answer> {
  const payload = body.t === "binary" ? body.bytes : new TextEncoder().encode(body.text);
  const contentType =
    body.t === "json"
      ? "application/connect+json"
      : body.t === "binary"
        ? "application/connect+proto"
        : body.contentType;
  const envelope = new Uint8Array(5 + payload.length);
  new DataView(envelope.buffer).setUint32(1, payload.length);
  envelope.set(payload, 5);
  const abort = new AbortController();
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": contentType, ...credential },
      body: envelope,
      signal: abort.signal,
    });
    const answer = { status: response.status };
    if (!response.ok || response.body === null) {
      const text = await response.text();
      return text === "" ? answer : { ...answer, error: JSON.parse(text) };
    }
    const reader = response.body.getReader();
    let buffered = new Uint8Array();
    for (;;) {
      if (buffered.length >= 5) {
        const length = new DataView(buffered.buffer, buffered.byteOffset).getUint32(1);
        if (buffered.length >= 5 + length) {
          const flags = buffered[0] ?? 0;
          if ((flags & 0b10) === 0) return answer;
          const end = JSON.parse(new TextDecoder().decode(buffered.subarray(5, 5 + length))) as {
            error?: { code: string; message: string };
          };
          return end.error ? { ...answer, error: end.error } : answer;
        }
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended without an end-of-stream message");
      buffered = Uint8Array.from([...buffered, ...value]);
    }
  } finally {
    abort.abort();
  }
}

// ---------------------------------------------------------------------------------------------

describe("random and mutated API bodies get a clear error, never crash the server, and a refused call changes nothing", () => {
  let harness: Harness;
  let token: string;
  let seeded: Seeded;
  const uncaught: unknown[] = [];
  const record = (error: unknown) => uncaught.push(error);

  /** A digest of every stored table but node status, audit events and sessions. */
  async function storedState(): Promise<string> {
    const tables: Record<string, string[]> = {
      Cluster: [],
      Locality: [],
      Endpoint: [],
      Listener: [],
      FilterChain: [],
      RouteConfiguration: [],
      VirtualHost: [],
      Route: [],
      NodeGroup: [],
      NodeGroupListener: [],
      NodeGroupCluster: [],
      Snapshot: [],
      SnapshotBlob: [],
      User: [],
      Team: [],
      TeamDomain: [],
      // Refreshed by every use of a token, at most once a minute.
      ApiToken: ["lastUsedAt"],
      ReviewRequest: [],
      RolloutPlan: [],
      RolloutSettings: [],
    };
    const parts = Object.entries(tables).map(([table, volatile]) => {
      const row = `(to_jsonb(t)${volatile.map((c) => ` - '${c}'`).join("")})::text`;
      return `(SELECT '${table}:' || coalesce(md5(string_agg(${row}, ',' ORDER BY ${row})), '') FROM "${table}" t)`;
    });
    const [result] = await harness.app.prisma.$queryRawUnsafe<{ digest: string }[]>(
      `SELECT concat_ws(' ', ${parts.join(", ")}) AS digest`,
    );
    return result?.digest ?? "";
  }

  beforeAll(async () => {
    process.on("uncaughtException", record);
    process.on("unhandledRejection", record);
    // Privileged bodies carry random current passwords, each counted as a login attempt.
    harness = await startHarness({
      app: {
        loginLimits: {
          perUserIp: { points: 100_000, durationS: 900 },
          perIp: { points: 100_000, durationS: 900 },
        },
      },
    });
    token = await harness.token();
    const api = harness.api();
    const access = accessClient(harness.baseUrl, [bearer(token)]);
    await api.createCluster(fuzzCluster());
    await api.createRouteConfiguration(fuzzRoutes());
    await api.createListener(fuzzListener());
    await api.createNodeGroup(fuzzGroup());
    await api.publish({ message: "fuzz seed" });
    await createClient(
      RolloutService,
      createConnectTransport({
        baseUrl: harness.baseUrl,
        httpVersion: "1.1",
        interceptors: [bearer(token)],
      }),
    ).putRolloutPlan({ name: PLAN, document: "waves: [1, 100%]\n" });
    const team = await access.createTeam({ name: TEAM, domains: ["*.gone.example"] });
    const memberId = await createAccount(harness.baseUrl, MEMBER, Role.MEMBER, team.id);
    // A token of the member's, for RevokeToken to aim at.
    await tokenFor(harness.baseUrl, MEMBER, USER_PASSWORD, ["config:read"]);
    const memberTokens = await access.listTokens({ userId: memberId });
    const exported = await api.export({});
    seeded = {
      teamId: team.id,
      memberId,
      memberTokenId: memberTokens.tokens[0]?.id ?? "",
      exported: exported.content,
    };
    await createAccount(harness.baseUrl, LOGOUT, Role.ADMIN);
  });

  afterAll(async () => {
    process.off("uncaughtException", record);
    process.off("unhandledRejection", record);
    await harness?.stop();
  });

  it.each(METHODS.map((method) => [`${method.parent.name}/${method.name}`, method] as const))(
    "%s: every random or mutated body gets a success or a deliberate error with a message, a refused call changes nothing, and the server stays up",
    async (_, method) => {
      const url = `${harness.baseUrl}/${method.parent.typeName}/${method.name}`;
      const streaming = method.methodKind === "server_streaming";
      // Privileged methods on a console session whose password was just entered (signing in).
      const session: Credential | undefined =
        privilegeOf(method)?.t === "privileged"
          ? {
              cookie: await signIn(harness.baseUrl, "admin", ADMIN_PASSWORD),
              origin: harness.baseUrl,
            }
          : undefined;
      await fc.assert(
        fc.asyncProperty(bodies(method, seeded), async (body) => {
          // Logout revokes the token it is called with: spend a fresh one of another account.
          const caller =
            session ??
            tokenHeaders(
              method.name === "Logout"
                ? await tokenFor(harness.baseUrl, LOGOUT, USER_PASSWORD)
                : token,
            );
          const before = await storedState();
          const answer = await (streaming ? callStream : callUnary)(url, caller, body);
          const contentType = body.t === "other" ? body.contentType : undefined;
          if (contentType !== undefined && !UNARY_TYPES.has(contentType)) {
            // No protocol this server speaks: refused before anything is read.
            expect(answer.status).toBe(415);
          } else if (answer.error !== undefined) {
            expect(UNCLEAR_CODES, `${answer.error.code}: ${answer.error.message}`).not.toContain(
              answer.error.code,
            );
            expect(answer.status, answer.error.message).toBeLessThan(500);
            expect(answer.error.message.length, answer.error.code).toBeGreaterThan(10);
          } else {
            expect(answer.status).toBe(200);
          }
          if (answer.status !== 200 || answer.error !== undefined) {
            expect(await storedState(), "a refused call changed the database").toBe(before);
          }
        }),
        {
          ...runs(8),
          examples: oddStringCases(method, seeded).map((json): [Body] => [
            { t: "json", text: JSON.stringify(json) },
          ]),
        },
      );
      // Still up: a normal call works.
      const whoAmI = await accessClient(harness.baseUrl, [bearer(token)]).whoAmI({});
      expect(whoAmI.user?.username).toBe("admin");
      expect(uncaught).toEqual([]);
    },
  );
});
