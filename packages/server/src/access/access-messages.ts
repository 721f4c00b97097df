/**
 * AccessService's arguments and messages: checking what a request names (roles, ids, team names)
 * and mapping accounts, teams, tokens and audit events to their API messages. The handlers are in
 * access-service.ts.
 */

import { create, type JsonObject } from "@bufbuild/protobuf";
import { type Timestamp, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { Prisma, type PrismaClient, type TransactionClient } from "@switchyard/db";
import {
  type ApiToken,
  ApiTokenSchema,
  type AuditEvent,
  AuditEventSchema,
  Role as RoleMessage,
  SharedObjectSchema,
  type Team,
  TeamSchema,
  type User,
  UserSchema,
} from "@switchyard/proto/switchyard/v1/access_pb";
import { ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import { quotedInput } from "@switchyard/snapshot";
import { ANSWER_MAX_BYTES, itemsWithinBytes } from "../api/answer-bytes.js";
import type { ApiTokenInfo, AuditPage, Role } from "../auth/index.js";

export const ROLE_OF: Record<RoleMessage, Role | undefined> = {
  [RoleMessage.UNSPECIFIED]: undefined,
  [RoleMessage.ADMIN]: "ADMIN",
  [RoleMessage.MEMBER]: "MEMBER",
  [RoleMessage.VIEWER]: "VIEWER",
};
export const MESSAGE_OF_ROLE: Record<Role, RoleMessage> = {
  ADMIN: RoleMessage.ADMIN,
  MEMBER: RoleMessage.MEMBER,
  VIEWER: RoleMessage.VIEWER,
};

export function roleArg(role: RoleMessage): Role {
  const value = ROLE_OF[role];
  if (value === undefined)
    throw new ConnectError("role is required: admin, member or viewer", Code.InvalidArgument);
  return value;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id argument: InvalidArgument (saying which field) unless it is a UUID. */
export function idArg(value: string, field: string): string {
  if (!UUID.test(value))
    throw new ConnectError(
      value === ""
        ? `${field} is required`
        : `${field} ${quotedInput(value)} is not an id this server gave`,
      Code.InvalidArgument,
    );
  return value.toLowerCase();
}

export const TEAM_NAME = /^[^\s\p{Cc}](?:[^\p{Cc}]{0,62}[^\s\p{Cc}])?$/u;

export function teamNameArg(name: string): string {
  const trimmed = name.trim();
  if (!TEAM_NAME.test(trimmed))
    throw new ConnectError(
      `team name ${quotedInput(name)} must be 1 to 64 characters without control characters`,
      Code.InvalidArgument,
    );
  return trimmed;
}

export const ts = (date: Date | null | undefined): Timestamp | undefined =>
  date == null ? undefined : timestampFromDate(date);

export const USER_SELECT = {
  id: true,
  username: true,
  role: true,
  disabledAt: true,
  createdAt: true,
  team: { select: { id: true, name: true } },
} as const;

export type UserRow = Prisma.UserGetPayload<{ select: typeof USER_SELECT }>;

export function userMessage(row: UserRow, lastLogin?: Date | null): User {
  return create(UserSchema, {
    id: row.id,
    username: row.username,
    role: MESSAGE_OF_ROLE[row.role],
    teamId: row.team?.id ?? "",
    teamName: row.team?.name ?? "",
    disableTime: ts(row.disabledAt),
    createTime: ts(row.createdAt),
    lastLoginTime: ts(lastLogin),
  });
}

export const TEAM_SELECT = {
  id: true,
  name: true,
  requireReview: true,
  requireRollout: true,
  domains: { select: { pattern: true }, orderBy: { pattern: "asc" } },
  clusters: { select: { name: true }, orderBy: { name: "asc" } },
  secrets: { select: { name: true }, orderBy: { name: "asc" } },
  shares: { select: { kind: true, name: true }, orderBy: { name: "asc" } },
  _count: { select: { members: true } },
} as const;

/** A reference kind (auth/grants.ts) as the API names it, and back. */
export const SHARED_KINDS = [
  ["cluster", ResourceKind.CLUSTER],
  ["secret", ResourceKind.SECRET],
  ["listener", ResourceKind.LISTENER],
  ["routeConfiguration", ResourceKind.ROUTE_CONFIGURATION],
] as const;

export type SharedKind = (typeof SHARED_KINDS)[number][0];

export const sharedKindOf = (kind: ResourceKind): SharedKind | undefined =>
  SHARED_KINDS.find(([, k]) => k === kind)?.[0];

const resourceKindOf = (kind: string): ResourceKind =>
  SHARED_KINDS.find(([k]) => k === kind)?.[1] ?? ResourceKind.UNSPECIFIED;

export type TeamRow = Prisma.TeamGetPayload<{ select: typeof TEAM_SELECT }>;

export function teamMessage(row: TeamRow): Team {
  return create(TeamSchema, {
    id: row.id,
    name: row.name,
    requireReview: row.requireReview,
    requireRollout: row.requireRollout,
    domains: row.domains.map((d) => d.pattern),
    clusters: row.clusters.map((c) => c.name),
    memberCount: row._count.members,
    secrets: row.secrets.map((s) => s.name),
    shared: row.shares.map((share) =>
      create(SharedObjectSchema, { kind: resourceKindOf(share.kind), name: share.name }),
    ),
  });
}

export function tokenMessage(token: ApiTokenInfo): ApiToken {
  return create(ApiTokenSchema, {
    id: token.id,
    name: token.name,
    userId: token.userId,
    scopes: [...token.scopes],
    createTime: ts(token.createdAt),
    lastUsedTime: ts(token.lastUsedAt),
    expireTime: ts(token.expiresAt),
    revokeTime: ts(token.revokedAt),
  });
}

/**
 * A page of audit events as ListAuditEvents answers it: the events that fit in 4 MiB encoded
 * (api/answer-bytes.ts; each event's detail is at most 64 KiB, auth/audit-bounds.ts, but a page
 * may hold 1000), and the token of the next page: after the last event sent, when the page was
 * cut or more are stored.
 */
export function auditPageMessage(
  page: AuditPage,
  maxBytes = ANSWER_MAX_BYTES,
): { events: AuditEvent[]; nextPageToken: string } {
  const all = page.events.map(auditEventMessage);
  const events = all.slice(0, itemsWithinBytes(AuditEventSchema, all, maxBytes));
  const last = events.at(-1);
  return {
    events,
    nextPageToken:
      events.length < all.length && last !== undefined ? last.id : (page.nextCursor ?? ""),
  };
}

export function auditEventMessage(event: {
  id: string;
  at: Date;
  actor: string;
  actorKind: string;
  action: string;
  target: string | null;
  ip: string | null;
  detail: unknown;
}): AuditEvent {
  const detail =
    event.detail !== null && typeof event.detail === "object" && !Array.isArray(event.detail)
      ? (event.detail as JsonObject)
      : { value: (event.detail ?? null) as JsonObject[string] };
  return create(AuditEventSchema, {
    id: event.id,
    time: ts(event.at),
    actor: event.actor,
    actorKind: event.actorKind,
    action: event.action,
    target: event.target ?? "",
    ip: event.ip ?? "",
    detail,
  });
}

/** AlreadyExists for a unique violation (P2002), with `message`; anything else is rethrown. */
export function uniqueViolation(error: unknown, message: string): never {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
    throw new ConnectError(message, Code.AlreadyExists, undefined, undefined, error);
  throw error;
}

export function formatLifetime(ms: number): string {
  const days = ms / 86_400_000;
  return Number.isInteger(days) ? `${days} days` : `${Math.round(ms / 3_600_000)} hours`;
}

export async function loadTeam(db: PrismaClient | TransactionClient, id: string): Promise<TeamRow> {
  const row = await db.team.findUnique({ where: { id }, select: TEAM_SELECT });
  if (row === null) throw new ConnectError(`team ${id} does not exist`, Code.NotFound);
  return row;
}
