/**
 * The authorization rules of issue 7, as one pure function: no I/O, so the API layer loads what a
 * decision needs (the principal, the object before and after, the domain ownership) and every rule
 * is pinned by authorize.spec.ts without a database.
 *
 * - ADMIN: everything.
 * - MEMBER: reads everything but users and the audit log; writes the clusters their team owns
 *   (Cluster.ownerTeamId; a new cluster is allowed when it will be created owned by their team)
 *   and the virtual hosts whose domains their team owns (ownership.ts); publishes or rolls back
 *   when every change in the draft is theirs, or asks for review when their team requires it;
 *   never listeners, node groups, runtime layers, rollout plans, teams, users or ownership.
 * - VIEWER: reads (as a member does).
 * - An API token acts as its user narrowed to its scopes; tokens never create or revoke tokens
 *   and never change a password.
 * - Privileged actions (access/privileged-actions.ts: those that escalate or persist access) also
 *   need the caller's password entered on their session within REAUTH_WINDOW_MS
 *   (freshAuthentication); an API token never takes them.
 */

import { Code, ConnectError } from "@connectrpc/connect";
import type { ChangeKind, RouteConfigurationSpec } from "@switchyard/snapshot";
import {
  type DomainOwnership,
  type RouteConfigurationChanges,
  routeConfigurationChanges,
  unownedDomain,
} from "./ownership.js";
import type { Principal, PrincipalTeam, TokenScope } from "./principal.js";

export type Action = "read" | "write" | "publish" | "rollback" | "manage";

/**
 * A cluster being written or published. `ownerTeamId` is the stored owner; for a cluster a write
 * adds, the owner it will be created with (a member's team); for a deletion being published, the
 * owner the latest version recorded. Writes never change ownership: that is `manage` on
 * `{ kind: "ownership" }`.
 */
export interface ClusterChange {
  readonly kind: "cluster";
  readonly name: string;
  readonly change: ChangeKind;
  readonly ownerTeamId: string | null;
}

/** A route configuration being written: its stored spec (null if new) and the new one (null if deleted). */
export interface RouteConfigurationChange {
  readonly kind: "routeConfiguration";
  readonly name: string;
  readonly before: RouteConfigurationSpec | null;
  readonly after: RouteConfigurationSpec | null;
}

export interface ListenerChange {
  readonly kind: "listener";
  readonly name: string;
  readonly change: ChangeKind;
}

export interface NodeGroupChange {
  readonly kind: "nodeGroup";
  readonly name: string;
  readonly change: ChangeKind;
}

/** Runtime layers reach every node group (fleet-wide feature flags and faults): admins only. */
export interface RuntimeLayerChange {
  readonly kind: "runtimeLayer";
  readonly name: string;
  readonly change: ChangeKind;
}

/**
 * Secrets hold TLS private keys, and a certificate presented by a listener speaks for every host
 * it names: admins only.
 */
export interface SecretChange {
  readonly kind: "secret";
  readonly name: string;
  readonly change: ChangeKind;
}

/** One object of the draft that differs from the published snapshot. */
export type DraftChange =
  | ClusterChange
  | RouteConfigurationChange
  | ListenerChange
  | NodeGroupChange
  | RuntimeLayerChange
  | SecretChange;

export type Resource =
  /** Any configuration object, the draft, snapshots, diffs (read). */
  | { readonly kind: "config" }
  /** Nodes, convergence, rollouts (read). */
  | { readonly kind: "status" }
  | { readonly kind: "audit" }
  | ClusterChange
  | (RouteConfigurationChange & { readonly ownership: DomainOwnership })
  | ListenerChange
  | NodeGroupChange
  | RuntimeLayerChange
  | SecretChange
  /** The draft's changes, for publish, or a rollback's changes, for rollback. */
  | {
      readonly kind: "draft";
      readonly changes: readonly DraftChange[];
      readonly ownership: DomainOwnership;
    }
  /** Teams and their domains: read by all, managed by admins. */
  | { readonly kind: "team" }
  /** Assigning clusters and domains to teams. */
  | { readonly kind: "ownership" }
  /** The newer Envoy APIs loaded over the bundled one (switchyard schema). */
  | { readonly kind: "envoySchema" }
  /** Stored rollout plans and the default plan: read by all, written by admins. */
  | { readonly kind: "rolloutPlan" }
  /** One account (userId) or the list of accounts (null). */
  | { readonly kind: "user"; readonly userId: string | null }
  /** Some user's API tokens. */
  | { readonly kind: "token"; readonly ownerUserId: string };

export type Decision =
  | { readonly t: "allow" }
  | { readonly t: "deny"; readonly message: string }
  /** Publish or rollback is fine once an admin reviews it (Team.requireReview). */
  | { readonly t: "review"; readonly message: string }
  /** Fine once the caller enters their password again (freshAuthentication). */
  | { readonly t: "reauthenticate"; readonly message: string };

const ALLOW: Decision = { t: "allow" };
const deny = (message: string): Decision => ({ t: "deny", message });

export function authorize(principal: Principal, action: Action, resource: Resource): Decision {
  const byRole = roleDecision(principal, action, resource);
  if (byRole.t === "deny") return byRole;
  const scope = scopeDecision(principal, action, resource);
  return scope.t === "deny" ? scope : byRole;
}

/**
 * Throws PermissionDenied with the decision's message unless it allows. A "review" decision also
 * throws (FailedPrecondition): callers that support review requests check for it first; so does a
 * "reauthenticate" one (PermissionDenied): the access interceptor adds the detail clients prompt
 * on.
 */
export function assertAllowed(decision: Decision): void {
  if (decision.t === "allow") return;
  throw new ConnectError(
    decision.message,
    decision.t === "review" ? Code.FailedPrecondition : Code.PermissionDenied,
  );
}

function roleDecision(principal: Principal, action: Action, resource: Resource): Decision {
  const who = `${principal.role.toLowerCase()} ${principal.username}`;
  switch (action) {
    case "read":
      switch (resource.kind) {
        case "audit":
          return principal.role === "ADMIN" ? ALLOW : deny(`only an admin may read the audit log`);
        case "user":
          return principal.role === "ADMIN" || resource.userId === principal.userId
            ? ALLOW
            : deny(`only an admin may see other accounts`);
        case "token":
          return principal.role === "ADMIN" || resource.ownerUserId === principal.userId
            ? ALLOW
            : deny(`only an admin may see another user's API tokens`);
        default:
          return ALLOW;
      }
    case "manage":
      switch (resource.kind) {
        case "user":
          if (resource.userId === principal.userId)
            return sessionOnly(principal, "change its own account");
          return adminOnly(
            principal,
            resource.userId === null ? "create accounts" : "change other accounts",
          );
        case "token":
          if (resource.ownerUserId === principal.userId)
            return sessionOnly(principal, "create or revoke API tokens");
          return adminOnly(principal, "revoke another user's API tokens");
        case "team":
          return adminOnly(principal, "change teams");
        case "ownership":
          return adminOnly(principal, "assign clusters and domains to teams");
        case "envoySchema":
          return adminOnly(principal, "load or remove Envoy APIs");
        default:
          return deny(`internal: "manage" does not apply to ${resource.kind}`);
      }
    case "write": {
      if (principal.role === "ADMIN") return ALLOW;
      if (principal.role === "VIEWER") return deny(`${who} has read-only access`);
      switch (resource.kind) {
        case "cluster":
        case "routeConfiguration":
        case "listener":
        case "nodeGroup":
        case "runtimeLayer":
        case "secret":
          return memberChange(
            principal,
            resource,
            resource.kind === "routeConfiguration" ? resource.ownership : null,
          );
        case "rolloutPlan":
          return deny(`only an admin may change rollout plans`);
        default:
          return deny(`internal: "write" does not apply to ${resource.kind}`);
      }
    }
    case "publish":
    case "rollback": {
      if (resource.kind !== "draft") return deny(`internal: "${action}" applies to the draft`);
      if (principal.role === "ADMIN") return ALLOW;
      if (principal.role === "VIEWER")
        return deny(`${who} has read-only access and cannot ${action}`);
      for (const change of resource.changes) {
        const decision = memberChange(principal, change, resource.ownership);
        if (decision.t === "deny")
          return deny(
            `${action === "publish" ? "the draft" : "the rollback"} includes a change that is not ` +
              `yours: ${decision.message}`,
          );
      }
      if (principal.team?.requireReview === true)
        return {
          t: "review",
          message:
            `team ${principal.team.name} requires an admin's review before changes go out: ` +
            (action === "publish"
              ? "request one (switchyard review request, or Request review on the Changes page)"
              : "ask an admin to roll back"),
        };
      return ALLOW;
    }
  }
}

function adminOnly(principal: Principal, what: string): Decision {
  return principal.role === "ADMIN" ? ALLOW : deny(`only an admin may ${what}`);
}

function sessionOnly(principal: Principal, what: string): Decision {
  return principal.via.t === "session"
    ? ALLOW
    : deny(`an API token cannot ${what}; sign in to the console`);
}

/** Whether a member may make one change: the object must be their team's before and after. */
function memberChange(
  principal: Principal,
  change: DraftChange,
  ownership: DomainOwnership | null,
): Decision {
  const team = principal.team;
  if (team === null)
    return deny(
      `member ${principal.username} belongs to no team, so owns nothing to change; an admin assigns teams`,
    );
  switch (change.kind) {
    case "listener":
      return deny(`listener ${change.name} can only be changed by an admin`);
    case "nodeGroup":
      return deny(`node group ${change.name} can only be changed by an admin`);
    case "runtimeLayer":
      return deny(`runtime layer ${change.name} can only be changed by an admin`);
    case "secret":
      return deny(`secret ${change.name} can only be changed by an admin`);
    case "cluster":
      if (change.ownerTeamId === team.id) return ALLOW;
      return deny(
        change.change === "added"
          ? `cluster ${change.name} was added by ${change.ownerTeamId === null ? "an admin" : "another team"}, not team ${team.name}: its owner publishes it (a name the latest version holds stays its owner's until a published version deletes it)`
          : `team ${team.name} does not own cluster ${change.name}`,
      );
    case "routeConfiguration":
      if (ownership === null) return deny("internal: route configuration ownership not loaded");
      return routeConfigurationDecision(team, change, ownership);
  }
}

function routeConfigurationDecision(
  team: PrincipalTeam,
  change: RouteConfigurationChange,
  ownership: DomainOwnership,
): Decision {
  const changes: RouteConfigurationChanges = routeConfigurationChanges(change.before, change.after);
  const where = `in route configuration ${change.name}`;
  for (const vh of changes.virtualHosts) {
    for (const spec of [vh.before, vh.after]) {
      if (spec === null) continue;
      if (spec.domains.length === 0)
        return deny(`virtual host ${spec.name} ${where} has no domains, so no team owns it`);
      const unowned = unownedDomain(spec, team.id, ownership);
      if (unowned !== null)
        return deny(
          `team ${team.name} does not own virtual host ${spec.name} (domain ${unowned.domain}) ` +
            `${where}${ownerNote(unowned.owner)}`,
        );
    }
  }
  if (changes.ownFieldsChanged) {
    // Fields of the route configuration itself apply to all of its virtual hosts.
    for (const spec of [
      ...(change.before?.virtualHosts ?? []),
      ...(change.after?.virtualHosts ?? []),
    ]) {
      const unowned =
        spec.domains.length === 0
          ? { domain: "none", owner: null }
          : unownedDomain(spec, team.id, ownership);
      if (unowned !== null)
        return deny(
          `the fields of route configuration ${change.name} apply to all its virtual hosts, and ` +
            `team ${team.name} does not own virtual host ${spec.name} (domain ${unowned.domain})` +
            ownerNote(unowned.owner),
        );
    }
  }
  return ALLOW;
}

function ownerNote(owner: { readonly teamName: string; readonly pattern: string } | null): string {
  return owner === null
    ? "; no team owns that domain (an admin assigns domains)"
    : `; team ${owner.teamName} does (pattern ${owner.pattern})`;
}

/** The scope an API token needs for a request (on top of its user's role allowing it). */
export function requiredScope(action: Action, resource: Resource): TokenScope {
  switch (action) {
    case "read":
      if (resource.kind === "status") return "status:read";
      // "admin" covers users and the audit log (principal.ts, TOKEN_SCOPES); one's own account
      // needs no scope (scopeDecision).
      if (resource.kind === "audit" || resource.kind === "user") return "admin";
      return "config:read";
    case "write":
      return "config:write";
    case "publish":
    case "rollback":
      return "publish";
    case "manage":
      return "admin";
  }
}

function scopeDecision(principal: Principal, action: Action, resource: Resource): Decision {
  if (principal.via.t !== "token") return ALLOW;
  // Reading one's own account or tokens needs no scope: `switchyard whoami` works with any token.
  if (action === "read" && resource.kind === "user" && resource.userId === principal.userId)
    return ALLOW;
  if (action === "read" && resource.kind === "token" && resource.ownerUserId === principal.userId)
    return ALLOW;
  const scope = requiredScope(action, resource);
  if (principal.via.scopes.includes(scope)) return ALLOW;
  return deny(
    `API token ${principal.via.tokenName} of ${principal.username} lacks scope ${scope} ` +
      `(it has ${principal.via.scopes.join(", ") || "none"}); create a token with it`,
  );
}

/**
 * How long an entered password lets a session take privileged actions: long enough to finish
 * what one signed in or re-entered it for, short enough that a cookie taken later is not enough.
 * Fixed on purpose: a setting would let the protection be stretched to a whole session.
 */
export const REAUTH_WINDOW_MS = 5 * 60_000;

/**
 * Whether the caller may take a privileged action (`what`: "create accounts"), by how recently
 * they entered their password: on a session, at login or by Reauthenticate, less than `windowMs`
 * before `now`. An API token never may: it cannot enter a password, and a lasting credential is
 * what a stolen session would be turned into.
 */
export function freshAuthentication(
  principal: Principal,
  what: string,
  now: Date,
  windowMs: number = REAUTH_WINDOW_MS,
): Decision {
  const window = formatMinutes(windowMs);
  if (principal.via.t === "token")
    return deny(
      `an API token cannot ${what}: that needs a person's password entered in the last ${window}, ` +
        "on a console session (sign in to the console; the switchyard command asks for your " +
        "password, or reads SWITCHYARD_PASSWORD)",
    );
  const elapsedMs = now.getTime() - principal.via.authenticatedAt.getTime();
  if (elapsedMs < windowMs) return ALLOW;
  return {
    t: "reauthenticate",
    message:
      `re-enter your password: to ${what}, it must have been entered in the last ${window} ` +
      `(it was ${formatMinutes(elapsedMs)} ago); the console asks for it, the switchyard ` +
      "command asks (or reads SWITCHYARD_PASSWORD), and the API takes it with " +
      "AccessService.Reauthenticate",
  };
}

function formatMinutes(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return `${Math.max(0, Math.floor(ms / 1000))} s`;
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}
