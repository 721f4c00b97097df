/** Who is calling: a user through a console session, or through one of their API tokens. */

export const ROLES = ["ADMIN", "MEMBER", "VIEWER"] as const;
/** UserRole in prisma/schema.prisma. */
export type Role = (typeof ROLES)[number];

/**
 * What an API token may do, on top of what its user may do (a token never exceeds its user).
 * "admin" covers teams, users, ownership and the audit log, and only matters for an admin's token.
 */
export const TOKEN_SCOPES = [
  "config:read",
  "config:write",
  "publish",
  "status:read",
  "admin",
] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export function isTokenScope(scope: string): scope is TokenScope {
  return (TOKEN_SCOPES as readonly string[]).includes(scope);
}

export interface PrincipalTeam {
  readonly id: string;
  readonly name: string;
  /** A member's publish waits for an admin's review. */
  readonly requireReview: boolean;
}

export type Credential =
  | {
      readonly t: "session";
      readonly sessionId: string;
      /**
       * When the password was last entered in this session (login, Reauthenticate): privileged
       * actions need it recent (authorize.ts, freshAuthentication).
       */
      readonly authenticatedAt: Date;
    }
  | {
      readonly t: "token";
      readonly tokenId: string;
      readonly tokenName: string;
      readonly scopes: readonly TokenScope[];
    };

export interface Principal {
  readonly userId: string;
  readonly username: string;
  readonly role: Role;
  /** The member's team; null for admins, viewers and a member not (yet) in a team. */
  readonly team: PrincipalTeam | null;
  readonly via: Credential;
}

/** The audit fields naming a principal: `recordAudit(db, { ...auditActor(principal), ... })`. */
export function auditActor(principal: Principal): {
  actor: string;
  actorKind: "user" | "token";
} {
  return { actor: principal.username, actorKind: principal.via.t === "token" ? "token" : "user" };
}

/** The user row shape sessions and tokens load to build a principal. */
export interface PrincipalRow {
  readonly id: string;
  readonly username: string;
  readonly role: Role;
  readonly disabledAt: Date | null;
  readonly team: {
    readonly id: string;
    readonly name: string;
    readonly requireReview: boolean;
  } | null;
}

/** The Prisma `select` that loads a PrincipalRow. */
export const PRINCIPAL_SELECT = {
  id: true,
  username: true,
  role: true,
  disabledAt: true,
  team: { select: { id: true, name: true, requireReview: true } },
} as const;

export function principalOf(user: PrincipalRow, via: Credential): Principal {
  return {
    userId: user.id,
    username: user.username,
    role: user.role,
    // A team only matters to a member: an admin needs none, a viewer may not use one.
    team: user.role === "MEMBER" && user.team !== null ? { ...user.team } : null,
    via,
  };
}
