/**
 * The access matrix: every method of every service, called with an empty request as each role,
 * token scope, session and the anonymous, passes or meets the gate exactly as the expected rules
 * below say (written apart from access-rules.ts), and every method has a rule on the server.
 */
import { create, type DescMethod, type DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AccessService } from "@switchyard/proto/switchyard/v1/access_pb";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { RolloutService } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ruledMethods } from "../src/access/access-rules.js";
import {
  ADMIN_PASSWORD,
  accessClient,
  bearer,
  createAccount,
  Role,
  sessionOf,
  signIn,
  tokenFor,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

const SERVICES: DescService[] = [
  ConfigService,
  StatusService,
  RoutingService,
  RolloutService,
  AccessService,
];

type Who =
  | "admin"
  | "member"
  | "viewer"
  | "readOnlyToken"
  | "memberSession"
  | "adminSession"
  | "anonymous";
type Outcome = "allowed" | "denied" | "unauthenticated";

const SIGNED_IN: Who[] = [
  "admin",
  "member",
  "viewer",
  "readOnlyToken",
  "memberSession",
  "adminSession",
];
/** Who passes the gate; everyone else signed in is denied, the anonymous are unauthenticated. */
const anyone = (...who: Who[]) => new Set<Who>(who);
const READ = anyone(...SIGNED_IN);
const TEAM_WRITE = anyone("admin", "member", "memberSession", "adminSession");
const ADMIN_ONLY = anyone("admin", "adminSession");
/**
 * Privileged actions (privileged-actions.ts): an admin's session whose password was just entered
 * (at login), never a token.
 */
const PRIVILEGED_ADMIN = anyone("adminSession");

/**
 * The expected rule of every method, written here independently of access-rules.ts. A method
 * added to a service without a row here fails the matrix.
 */
const EXPECTED: Record<string, Set<Who>> = {
  ...Object.fromEntries(
    [
      "ListResources",
      "ListClusters",
      "GetCluster",
      "ListListeners",
      "GetListener",
      "ListRouteConfigurations",
      "GetRouteConfiguration",
      "ListNodeGroups",
      "GetNodeGroup",
      "ListRuntimeLayers",
      "GetRuntimeLayer",
      "ListSecrets",
      "GetSecret",
      "GetEnvoyResource",
      "GetTopology",
      "Validate",
      "Diff",
      "ListSnapshots",
      "GetSnapshot",
      "Export",
      "ListReviewRequests",
      "GetReviewRequest",
      "ListEnvoySchemas",
    ].map((m) => [`switchyard.v1.ConfigService/${m}`, READ]),
  ),
  ...Object.fromEntries(
    [
      "CreateCluster",
      "UpdateCluster",
      "DeleteCluster",
      "CreateRouteConfiguration",
      "UpdateRouteConfiguration",
      "DeleteRouteConfiguration",
      "Import",
      "Publish",
      "Rollback",
      "DiscardDraft",
      "Apply",
      "SetEndpoints",
      "RequestReview",
      "WithdrawReview",
    ].map((m) => [`switchyard.v1.ConfigService/${m}`, TEAM_WRITE]),
  ),
  ...Object.fromEntries(
    [
      "CreateListener",
      "UpdateListener",
      "DeleteListener",
      "CreateNodeGroup",
      "UpdateNodeGroup",
      "DeleteNodeGroup",
      "CreateRuntimeLayer",
      "UpdateRuntimeLayer",
      "DeleteRuntimeLayer",
      "CreateSecret",
      "UpdateSecret",
      "DeleteSecret",
      "ApproveReview",
      "RejectReview",
      // The Envoy APIs in use change what every stored object means.
      "AddEnvoySchema",
      "RemoveEnvoySchema",
    ].map((m) => [`switchyard.v1.ConfigService/${m}`, ADMIN_ONLY]),
  ),
  ...Object.fromEntries(
    StatusService.methods.map((m) => [`${StatusService.typeName}/${m.name}`, READ]),
  ),
  // Questions about the configuration: whoever may read it.
  "switchyard.v1.RoutingService/TestRoute": READ,
  "switchyard.v1.RoutingService/CheckRouteTests": READ,
  "switchyard.v1.RoutingService/ListRouteTests": READ,
  "switchyard.v1.RoutingService/RunRouteTests": READ,
  // Members write their own team's tests (the handler checks the team and the hosts).
  "switchyard.v1.RoutingService/PutRouteTest": TEAM_WRITE,
  "switchyard.v1.RoutingService/DeleteRouteTest": TEAM_WRITE,
  // Rollout plans: everyone reads them (a publish names one); admins write them and the default.
  "switchyard.v1.RolloutService/ListRolloutPlans": READ,
  "switchyard.v1.RolloutService/GetRolloutPlan": READ,
  "switchyard.v1.RolloutService/PutRolloutPlan": ADMIN_ONLY,
  "switchyard.v1.RolloutService/DeleteRolloutPlan": ADMIN_ONLY,
  "switchyard.v1.RolloutService/SetDefaultRolloutPlan": ADMIN_ONLY,
  "switchyard.v1.RolloutService/ListRollouts": READ,
  "switchyard.v1.RolloutService/GetRollout": READ,
  "switchyard.v1.RolloutService/WatchRollout": READ,
  // Admins, and members for the rollouts they started (the handler decides which).
  "switchyard.v1.RolloutService/PauseRollout": TEAM_WRITE,
  "switchyard.v1.RolloutService/ResumeRollout": TEAM_WRITE,
  "switchyard.v1.RolloutService/PromoteRollout": TEAM_WRITE,
  "switchyard.v1.RolloutService/AbortRollout": TEAM_WRITE,
  "switchyard.v1.AccessService/Login": anyone(...SIGNED_IN, "anonymous"),
  "switchyard.v1.AccessService/Logout": READ,
  "switchyard.v1.AccessService/WhoAmI": READ,
  // A session's password entered again: API tokens have none.
  "switchyard.v1.AccessService/Reauthenticate": anyone("memberSession", "adminSession"),
  "switchyard.v1.AccessService/ListUsers": ADMIN_ONLY,
  "switchyard.v1.AccessService/CreateUser": PRIVILEGED_ADMIN,
  "switchyard.v1.AccessService/UpdateUser": PRIVILEGED_ADMIN,
  "switchyard.v1.AccessService/ListTeams": READ,
  "switchyard.v1.AccessService/CreateTeam": ADMIN_ONLY,
  "switchyard.v1.AccessService/UpdateTeam": PRIVILEGED_ADMIN,
  "switchyard.v1.AccessService/DeleteTeam": PRIVILEGED_ADMIN,
  "switchyard.v1.AccessService/AddTeamDomain": PRIVILEGED_ADMIN,
  "switchyard.v1.AccessService/RemoveTeamDomain": PRIVILEGED_ADMIN,
  "switchyard.v1.AccessService/SetClusterOwner": PRIVILEGED_ADMIN,
  "switchyard.v1.AccessService/SetSecretOwner": PRIVILEGED_ADMIN,
  "switchyard.v1.AccessService/SetSharing": PRIVILEGED_ADMIN,
  // Tokens never mint tokens: only a session may (authorize.ts, sessionOnly).
  "switchyard.v1.AccessService/CreateToken": anyone("memberSession", "adminSession"),
  "switchyard.v1.AccessService/ListTokens": READ,
  // Passes the gate with scope "admin"; the handler then checks the token's owner.
  "switchyard.v1.AccessService/RevokeToken": anyone(
    "admin",
    "member",
    "viewer",
    "memberSession",
    "adminSession",
  ),
  "switchyard.v1.AccessService/ListAuditEvents": ADMIN_ONLY,
};

const methodKey = (method: DescMethod) => `${method.parent.typeName}/${method.name}`;

/** Calls `method` with an empty request; what the gate said. Streams are read briefly. */
async function outcomeOf(
  baseUrl: string,
  interceptors: Interceptor[],
  method: DescMethod,
): Promise<Outcome> {
  const client = createClient(
    method.parent,
    createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors }),
  ) as unknown as Record<string, (request: unknown, options?: unknown) => unknown>;
  const call = client[method.localName];
  if (call === undefined) throw new Error(`no client method for ${methodKey(method)}`);
  const signal = AbortSignal.timeout(1_500);
  try {
    const result = call(create(method.input), { signal });
    if (method.methodKind === "server_streaming") {
      for await (const _ of result as AsyncIterable<unknown>) break;
    } else await result;
    return "allowed";
  } catch (error) {
    const code = ConnectError.from(error).code;
    if (code === Code.Unauthenticated) return "unauthenticated";
    if (code === Code.PermissionDenied) return "denied";
    return "allowed";
  }
}

describe("access control on every API method", () => {
  let harness: Harness;
  let admin: string;
  let teamA: string;
  let teamB: string;
  const who = {} as Record<Who, Interceptor[]>;

  beforeAll(async () => {
    harness = await startHarness();
    const { baseUrl } = harness;
    admin = await harness.token();
    const access = accessClient(baseUrl, [bearer(admin)]);
    teamA = (await access.createTeam({ name: "team-a", domains: ["*.a.example.com"] })).id;
    teamB = (await access.createTeam({ name: "team-b", domains: ["*.b.example.com"] })).id;
    await createAccount(baseUrl, "member-a", Role.MEMBER, teamA);
    await createAccount(baseUrl, "member-b", Role.MEMBER, teamB);
    await createAccount(baseUrl, "viewer", Role.VIEWER);
    who.admin = [bearer(admin)];
    who.member = [bearer(await tokenFor(baseUrl, "member-a", USER_PASSWORD))];
    who.viewer = [bearer(await tokenFor(baseUrl, "viewer", USER_PASSWORD))];
    who.readOnlyToken = [
      bearer(await tokenFor(baseUrl, "admin", ADMIN_PASSWORD, ["config:read", "status:read"])),
    ];
    who.memberSession = [sessionOf(await signIn(baseUrl, "member-a", USER_PASSWORD), baseUrl)];
    who.adminSession = [sessionOf(await signIn(baseUrl, "admin", ADMIN_PASSWORD), baseUrl)];
    who.anonymous = [];
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("every method of every service has an access rule on the server, and no rule names a method that does not exist", () => {
    const methods = SERVICES.flatMap((s) => s.methods.map(methodKey)).sort();
    expect(ruledMethods().sort()).toEqual(methods);
  });

  it("each role, token scope and the anonymous pass or meet the gate of every method exactly as the rules say", async () => {
    const methods = SERVICES.flatMap((s) => s.methods)
      // Logout ends the credential it is called with: last.
      .sort((a, b) => Number(a.name === "Logout") - Number(b.name === "Logout"));
    const seen: string[] = [];
    const wrong: string[] = [];
    for (const method of methods) {
      const allowed = EXPECTED[methodKey(method)];
      if (allowed === undefined) {
        wrong.push(`${methodKey(method)}: no expected rule in this test (add one)`);
        continue;
      }
      for (const principal of [...SIGNED_IN, "anonymous"] as Who[]) {
        const expected: Outcome = allowed.has(principal)
          ? "allowed"
          : principal === "anonymous"
            ? "unauthenticated"
            : "denied";
        const actual = await outcomeOf(harness.baseUrl, who[principal], method);
        seen.push(`${methodKey(method)} ${principal}`);
        if (actual !== expected)
          wrong.push(`${methodKey(method)} as ${principal}: ${actual}, expected ${expected}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(seen.length).toBe(SERVICES.flatMap((s) => s.methods).length * (SIGNED_IN.length + 1));
  }, 120_000);
});
