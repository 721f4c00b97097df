/**
 * Who may call each API method: one rule per method of every service, checked by the access
 * interceptor before the handler runs. A method without a rule is refused (fail closed), and
 * test/access-matrix.e2e.spec.ts calls every method of every service descriptor as every role.
 *
 * - "public": no credentials (Login only).
 * - "signed-in": any authenticated caller (WhoAmI; Logout ends the caller's own credential).
 * - "fixed": `authorize(principal, action, resource)` where the resource does not depend on
 *   stored objects (reads, admin-only management); the resource may depend on the request.
 * - "per-object": the handler authorizes against the objects as stored (config writes, publish,
 *   rollback, token revocation). The interceptor first refuses the roles that can never be
 *   allowed and, for API tokens, a missing scope, so every role meets the same gate whatever the
 *   request's content (and the matrix test can tell "refused" from "bad request").
 */
import type { DescMethod } from "@bufbuild/protobuf";
import { AccessService } from "@switchyard/proto/switchyard/v1/access_pb";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { RolloutService } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import type { Action, Principal, Resource, Role, TokenScope } from "../auth/index.js";

export type AccessRule =
  | { readonly t: "public" }
  | { readonly t: "signed-in" }
  | {
      readonly t: "fixed";
      readonly action: Action;
      readonly resource: Resource | ((principal: Principal, request: unknown) => Resource);
    }
  | {
      readonly t: "per-object";
      readonly action: Action;
      readonly roles: readonly Role[];
      readonly scope: TokenScope;
    };

const readConfig: AccessRule = { t: "fixed", action: "read", resource: { kind: "config" } };
const readStatus: AccessRule = { t: "fixed", action: "read", resource: { kind: "status" } };
/** Clusters and route configurations: members write the ones their team owns. */
const teamWrite: AccessRule = {
  t: "per-object",
  action: "write",
  roles: ["ADMIN", "MEMBER"],
  scope: "config:write",
};
/** Listeners, node groups and runtime layers: admins only (authorize.ts). */
const adminWrite: AccessRule = {
  t: "per-object",
  action: "write",
  roles: ["ADMIN"],
  scope: "config:write",
};
/** Rollout plans: how versions are to reach the fleet, for every change; admins write them. */
const writeRolloutPlans: AccessRule = {
  t: "fixed",
  action: "write",
  resource: { kind: "rolloutPlan" },
};
const manageTeams: AccessRule = { t: "fixed", action: "manage", resource: { kind: "team" } };

const field = (request: unknown, name: string): string => {
  const value = (request as Record<string, unknown> | null)?.[name];
  return typeof value === "string" ? value : "";
};

const byMethod: Record<string, Record<string, AccessRule>> = {
  [ConfigService.typeName]: {
    ListResources: readConfig,
    ListClusters: readConfig,
    GetCluster: readConfig,
    CreateCluster: teamWrite,
    UpdateCluster: teamWrite,
    DeleteCluster: teamWrite,
    ListListeners: readConfig,
    GetListener: readConfig,
    CreateListener: adminWrite,
    UpdateListener: adminWrite,
    DeleteListener: adminWrite,
    ListRouteConfigurations: readConfig,
    GetTopology: readConfig,
    GetRouteConfiguration: readConfig,
    CreateRouteConfiguration: teamWrite,
    UpdateRouteConfiguration: teamWrite,
    DeleteRouteConfiguration: teamWrite,
    ListNodeGroups: readConfig,
    GetNodeGroup: readConfig,
    CreateNodeGroup: adminWrite,
    UpdateNodeGroup: adminWrite,
    DeleteNodeGroup: adminWrite,
    ListRuntimeLayers: readConfig,
    GetRuntimeLayer: readConfig,
    CreateRuntimeLayer: adminWrite,
    UpdateRuntimeLayer: adminWrite,
    DeleteRuntimeLayer: adminWrite,
    ListSecrets: readConfig,
    GetSecret: readConfig,
    CreateSecret: adminWrite,
    UpdateSecret: adminWrite,
    DeleteSecret: adminWrite,
    GetEnvoyResource: readConfig,
    Validate: readConfig,
    Diff: readConfig,
    Publish: { t: "per-object", action: "publish", roles: ["ADMIN", "MEMBER"], scope: "publish" },
    ListSnapshots: readConfig,
    GetSnapshot: readConfig,
    Rollback: { t: "per-object", action: "rollback", roles: ["ADMIN", "MEMBER"], scope: "publish" },
    // Each object as an edit of it (needs config:write), then the version as a publish.
    Apply: { t: "per-object", action: "publish", roles: ["ADMIN", "MEMBER"], scope: "publish" },
    // As Apply: the cluster's change as an edit of it, then the version as a publish.
    SetEndpoints: {
      t: "per-object",
      action: "publish",
      roles: ["ADMIN", "MEMBER"],
      scope: "publish",
    },
    // Each object's change undone is authorized as an edit of it (config-guard.ts).
    DiscardDraft: teamWrite,
    // Review requests: whoever may publish the draft (or may once reviewed) asks; the requester
    // withdraws (the handler checks who asked); admins approve (a publish) or reject.
    RequestReview: {
      t: "per-object",
      action: "publish",
      roles: ["ADMIN", "MEMBER"],
      scope: "publish",
    },
    ListReviewRequests: readConfig,
    GetReviewRequest: readConfig,
    ApproveReview: { t: "per-object", action: "publish", roles: ["ADMIN"], scope: "publish" },
    RejectReview: { t: "per-object", action: "publish", roles: ["ADMIN"], scope: "publish" },
    WithdrawReview: {
      t: "per-object",
      action: "publish",
      roles: ["ADMIN", "MEMBER"],
      scope: "publish",
    },
    // Each imported object is authorized as a write of its own (a member imports only theirs).
    Import: teamWrite,
    Export: readConfig,
    // The Envoy APIs in use change what every stored object means: admins only.
    AddEnvoySchema: { t: "fixed", action: "manage", resource: { kind: "envoySchema" } },
    ListEnvoySchemas: readConfig,
    RemoveEnvoySchema: { t: "fixed", action: "manage", resource: { kind: "envoySchema" } },
  },
  [StatusService.typeName]: {
    ListNodes: readStatus,
    GetNode: readStatus,
    GetConvergence: readStatus,
    WatchNodes: readStatus,
    WatchNode: readStatus,
    WatchFleet: readStatus,
    WatchConvergence: readStatus,
    ListVersionConvergence: readStatus,
    GetLoad: readStatus,
    GetRolloutTraffic: readStatus,
    GetNodeHistory: readStatus,
    ListNodesAt: readStatus,
    GetNodeActivity: readStatus,
  },
  [RoutingService.typeName]: {
    TestRoute: readConfig,
    CheckRouteTests: readConfig,
    ListRouteTests: readConfig,
    RunRouteTests: readConfig,
    // Members write their team's tests, for their team's domains (route-test-handlers.ts).
    PutRouteTest: teamWrite,
    DeleteRouteTest: teamWrite,
  },
  [RolloutService.typeName]: {
    ListRolloutPlans: readConfig,
    GetRolloutPlan: readConfig,
    PutRolloutPlan: writeRolloutPlans,
    DeleteRolloutPlan: writeRolloutPlans,
    SetDefaultRolloutPlan: writeRolloutPlans,
    ListRollouts: readStatus,
    GetRollout: readStatus,
    WatchRollout: readStatus,
    // Admins, and members for the rollouts they started (rollout-service.ts).
    PauseRollout: teamWrite,
    ResumeRollout: teamWrite,
    PromoteRollout: teamWrite,
    AbortRollout: teamWrite,
  },
  [AccessService.typeName]: {
    Login: { t: "public" },
    Logout: { t: "signed-in" },
    WhoAmI: { t: "signed-in" },
    // A session's own password, entered again; the handler refuses API tokens.
    Reauthenticate: { t: "signed-in" },
    ListUsers: { t: "fixed", action: "read", resource: { kind: "user", userId: null } },
    CreateUser: { t: "fixed", action: "manage", resource: { kind: "user", userId: null } },
    // A user may change their own password (sessions only); the handler refuses the rest.
    UpdateUser: {
      t: "fixed",
      action: "manage",
      resource: (_principal, request) => ({ kind: "user", userId: field(request, "id") }),
    },
    ListTeams: { t: "fixed", action: "read", resource: { kind: "team" } },
    CreateTeam: manageTeams,
    UpdateTeam: manageTeams,
    DeleteTeam: manageTeams,
    AddTeamDomain: { t: "fixed", action: "manage", resource: { kind: "ownership" } },
    RemoveTeamDomain: { t: "fixed", action: "manage", resource: { kind: "ownership" } },
    SetClusterOwner: { t: "fixed", action: "manage", resource: { kind: "ownership" } },
    SetSecretOwner: { t: "fixed", action: "manage", resource: { kind: "ownership" } },
    SetSharing: { t: "fixed", action: "manage", resource: { kind: "ownership" } },
    CreateToken: {
      t: "fixed",
      action: "manage",
      resource: (principal) => ({ kind: "token", ownerUserId: principal.userId }),
    },
    ListTokens: {
      t: "fixed",
      action: "read",
      resource: (principal, request) => ({
        kind: "token",
        ownerUserId: field(request, "userId") || principal.userId,
      }),
    },
    // The token's owner is only known once it is loaded; a token (any scope) never revokes.
    RevokeToken: {
      t: "per-object",
      action: "manage",
      roles: ["ADMIN", "MEMBER", "VIEWER"],
      scope: "admin",
    },
    ListAuditEvents: { t: "fixed", action: "read", resource: { kind: "audit" } },
  },
};

/** The rule of a method, or undefined when none was written (the interceptor then refuses it). */
export function accessRuleOf(method: DescMethod): AccessRule | undefined {
  return byMethod[method.parent.typeName]?.[method.name];
}

/** Every method a rule is written for, as "switchyard.v1.Service/Method" (for tests). */
export function ruledMethods(): string[] {
  return Object.entries(byMethod).flatMap(([service, rules]) =>
    Object.keys(rules).map((method) => `${service}/${method}`),
  );
}
