/**
 * Which API methods are privileged: they escalate access (give an account, a role, a team or a
 * team's members more than they had) or persist it (a credential that outlives the session that
 * made it). Issue 44, point 6: these need the caller's password entered on their console session
 * within REAUTH_WINDOW_MS (auth/authorize.ts, freshAuthentication), whatever the session, and an
 * API token never takes them; so a stolen session cookie, or a token, is not enough to mint an
 * account or a token that outlives it.
 *
 * One entry per method of every service, privileged or not, each with its reason: a method
 * without one is refused (fail closed), and privileged-actions.spec.ts walks every service
 * defined in proto/ so that a new method must be classified here. A method is privileged when
 * any request it accepts is (a rename through UpdateTeam asks as turning its review off does).
 * The README's "Access control" lists the privileged ones with these reasons.
 */
import type { DescMethod } from "@bufbuild/protobuf";
import { AccessService } from "@switchyard/proto/switchyard/v1/access_pb";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { RolloutService } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";

export type Privilege =
  | { readonly t: "ordinary"; readonly why: string }
  | {
      readonly t: "privileged";
      readonly why: string;
      /** What the method does, in the refusal: "to create accounts, ...". */
      readonly what: string;
      /**
       * A request field carrying the caller's current password: when set, it is checked as a
       * re-authentication (counted by the login limits) instead of asking for one before.
       */
      readonly proof?: "password" | "currentPassword";
    };

const ordinary = (why: string): Privilege => ({ t: "ordinary", why });

const READ = ordinary("reads: shows what is, gives no one anything");
const CONFIG = ordinary(
  "configuration, the daily work of admins and members: checked object by object against the " +
    "caller's role and team, audited with its diff and undone by a rollback; it gives no one a " +
    "credential, a role or ownership",
);
const ADMIN_CONFIG = ordinary(
  "configuration only admins change (listeners, node groups, runtime layers, secrets, reviews): " +
    "audited and undone by a rollback; it gives no one a credential, a role or ownership",
);
const ROLLOUT_PLAN = ordinary(
  "configuration only admins change: how versions are to reach the fleet, checked when put and " +
    "audited with its diff; it gives no one a credential, a role or ownership",
);
const ENVOY_API = ordinary(
  "which Envoy fields configuration may use, not who may do what: a schema that changes a field " +
    "Switchyard models is refused (readEnvoySchema), as is one that breaks the draft",
);

const byMethod: Record<string, Record<string, Privilege>> = {
  [ConfigService.typeName]: {
    ListResources: READ,
    ListClusters: READ,
    GetCluster: READ,
    CreateCluster: CONFIG,
    UpdateCluster: CONFIG,
    DeleteCluster: CONFIG,
    ListListeners: READ,
    GetListener: READ,
    CreateListener: ADMIN_CONFIG,
    UpdateListener: ADMIN_CONFIG,
    DeleteListener: ADMIN_CONFIG,
    ListRouteConfigurations: READ,
    GetTopology: READ,
    GetRouteConfiguration: READ,
    CreateRouteConfiguration: CONFIG,
    UpdateRouteConfiguration: CONFIG,
    DeleteRouteConfiguration: CONFIG,
    ListNodeGroups: READ,
    GetNodeGroup: READ,
    CreateNodeGroup: ADMIN_CONFIG,
    UpdateNodeGroup: ADMIN_CONFIG,
    DeleteNodeGroup: ADMIN_CONFIG,
    ListRuntimeLayers: READ,
    GetRuntimeLayer: READ,
    CreateRuntimeLayer: ADMIN_CONFIG,
    UpdateRuntimeLayer: ADMIN_CONFIG,
    DeleteRuntimeLayer: ADMIN_CONFIG,
    // Private keys are sealed at rest and never shown back; a secret is served to proxies, not
    // a way into Switchyard.
    ListSecrets: READ,
    GetSecret: READ,
    CreateSecret: ADMIN_CONFIG,
    UpdateSecret: ADMIN_CONFIG,
    DeleteSecret: ADMIN_CONFIG,
    GetEnvoyResource: READ,
    Validate: READ,
    Diff: READ,
    Publish: CONFIG,
    ListSnapshots: READ,
    GetSnapshot: READ,
    Rollback: CONFIG,
    Apply: CONFIG,
    SetEndpoints: CONFIG,
    DiscardDraft: CONFIG,
    RequestReview: CONFIG,
    ListReviewRequests: READ,
    GetReviewRequest: READ,
    ApproveReview: ADMIN_CONFIG,
    RejectReview: ADMIN_CONFIG,
    WithdrawReview: CONFIG,
    // Configuration writes assign no owner but the member's own team to their new cluster (a
    // rollback gives a cluster it brings back the owner it had then): assigning is
    // AccessService's, below.
    Import: CONFIG,
    Export: READ,
    AddEnvoySchema: ENVOY_API,
    ListEnvoySchemas: READ,
    RemoveEnvoySchema: ENVOY_API,
  },
  [StatusService.typeName]: Object.fromEntries(StatusService.methods.map((m) => [m.name, READ])),
  [RoutingService.typeName]: {
    TestRoute: READ,
    CheckRouteTests: READ,
    ListRouteTests: READ,
    RunRouteTests: READ,
    PutRouteTest: CONFIG,
    DeleteRouteTest: CONFIG,
  },
  [RolloutService.typeName]: {
    ListRolloutPlans: READ,
    GetRolloutPlan: READ,
    PutRolloutPlan: ROLLOUT_PLAN,
    DeleteRolloutPlan: ROLLOUT_PLAN,
    SetDefaultRolloutPlan: ROLLOUT_PLAN,
    ListRollouts: READ,
    GetRollout: READ,
    WatchRollout: READ,
    // Steering a rollout changes which version nodes are served, as a publish does; skipping
    // the plan (promote all) is an admin's, audited with its reason.
    PauseRollout: CONFIG,
    ResumeRollout: CONFIG,
    PromoteRollout: CONFIG,
    AbortRollout: CONFIG,
  },
  // A method added to AccessService goes here too (privileged-actions.spec.ts fails until it
  // does): privileged when some request of it gives an account, a role, a team or a team's
  // members more than they had, or makes a credential; otherwise ordinary, saying why not.
  [AccessService.typeName]: {
    Login: ordinary("the password check itself"),
    Logout: ordinary("ends the caller's own session or token"),
    WhoAmI: READ,
    Reauthenticate: ordinary("the password entered again: what privileged actions ask for"),
    ListUsers: READ,
    CreateUser: {
      t: "privileged",
      what: "create accounts",
      why:
        "a new account is a credential of its own, with any role, that outlives the session " +
        "that made it",
    },
    UpdateUser: {
      t: "privileged",
      what: "change an account (role, team, password, disabled)",
      why:
        "a role or team widens what the account may do; another's new password takes the " +
        "account over; enabling gives a disabled one back; disabling locks out the admins who " +
        "would answer a break-in. Changing one's own password proves the password in the " +
        "request (current_password)",
      proof: "currentPassword",
    },
    ListTeams: READ,
    CreateTeam: ordinary(
      "a new team has no members (adding one is CreateUser or UpdateUser), so its domains give " +
        "no one anything",
    ),
    UpdateTeam: {
      t: "privileged",
      what: "change a team",
      why:
        "turning its review off lets its members publish without an admin (and turning its " +
        "required rollouts off, all at once)",
    },
    DeleteTeam: {
      t: "privileged",
      what: "delete a team",
      why:
        "its members and clusters are left with no team, but its domains are not simply " +
        "nobody's: a host one of them covered more narrowly than another team's wildcard " +
        "(api.example.com under *.example.com) falls to that team (auth/ownership.ts, domainOwner)",
    },
    AddTeamDomain: {
      t: "privileged",
      what: "give a team a domain",
      why: "the team's members may then change every virtual host on it",
    },
    RemoveTeamDomain: {
      t: "privileged",
      what: "take a domain from a team",
      why:
        "a host the pattern covered more narrowly than another team's wildcard falls to that " +
        "team, whose members may then change it (auth/ownership.ts, domainOwner)",
    },
    SetClusterOwner: {
      t: "privileged",
      what: "assign a cluster to a team",
      why: "the owner team's members may then change and publish the cluster",
    },
    SetSecretOwner: {
      t: "privileged",
      what: "assign a secret to a team",
      why:
        "the team's clusters may then name it, and SDS serves its private key to their node " +
        "groups (auth/grants.ts)",
    },
    SetSharing: {
      t: "privileged",
      what: "share an object with teams",
      why:
        "their objects may then name it: route to a cluster, reach an internal listener, have a " +
        "secret served to their node groups (auth/grants.ts)",
    },
    CreateToken: {
      t: "privileged",
      what: "create an API token",
      why: "a token lives up to SWITCHYARD_TOKEN_MAX_LIFETIME (90 days), beyond the session",
      proof: "password",
    },
    ListTokens: READ,
    RevokeToken: ordinary("takes access away"),
    ListAuditEvents: READ,
  },
};

/** The method's classification, or undefined when none was written (the interceptor refuses it). */
export function privilegeOf(method: DescMethod): Privilege | undefined {
  return byMethod[method.parent.typeName]?.[method.name];
}

/** Every classified method as "switchyard.v1.Service/Method" with its classification (tests). */
export function classifiedMethods(): ReadonlyMap<string, Privilege> {
  return new Map(
    Object.entries(byMethod).flatMap(([service, methods]) =>
      Object.entries(methods).map(([method, privilege]) => [`${service}/${method}`, privilege]),
    ),
  );
}
