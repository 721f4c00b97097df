import { create, type JsonObject } from "@bufbuild/protobuf";
import { type Timestamp, timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { Prisma, type PrismaClient, type TransactionClient } from "@switchyard/db";
import {
  type AccessService,
  type ApiToken,
  ApiTokenSchema,
  type AuditEvent,
  AuditEventSchema,
  Role as RoleMessage,
  type Team,
  TeamSchema,
  type User,
  UserSchema,
} from "@switchyard/proto/switchyard/v1/access_pb";
import {
  type ApiTokenInfo,
  assertAllowed,
  auditActor,
  authenticate,
  authorize,
  checkPasswordPolicy,
  clearSessionCookie,
  createApiToken,
  createUser,
  hashPassword,
  type LoginLimiter,
  listApiTokens,
  listAudit,
  login,
  normalizeDomainPattern,
  type Principal,
  type Role,
  recordAudit,
  revokeApiToken,
  sessionCookie,
} from "../auth/index.js";
import { callerOf, ipOf, REQUEST_ORIGIN } from "./request-context.js";

const ROLE_OF: Record<RoleMessage, Role | undefined> = {
  [RoleMessage.UNSPECIFIED]: undefined,
  [RoleMessage.ADMIN]: "ADMIN",
  [RoleMessage.MEMBER]: "MEMBER",
  [RoleMessage.VIEWER]: "VIEWER",
};
const MESSAGE_OF_ROLE: Record<Role, RoleMessage> = {
  ADMIN: RoleMessage.ADMIN,
  MEMBER: RoleMessage.MEMBER,
  VIEWER: RoleMessage.VIEWER,
};

function roleArg(role: RoleMessage): Role {
  const value = ROLE_OF[role];
  if (value === undefined)
    throw new ConnectError("role is required: admin, member or viewer", Code.InvalidArgument);
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id argument: InvalidArgument (saying which field) unless it is a UUID. */
function idArg(value: string, field: string): string {
  if (!UUID.test(value))
    throw new ConnectError(
      value === ""
        ? `${field} is required`
        : `${field} ${JSON.stringify(value)} is not an id this server gave`,
      Code.InvalidArgument,
    );
  return value.toLowerCase();
}

const TEAM_NAME = /^[^\s\p{Cc}](?:[^\p{Cc}]{0,62}[^\s\p{Cc}])?$/u;

function teamNameArg(name: string): string {
  const trimmed = name.trim();
  if (!TEAM_NAME.test(trimmed))
    throw new ConnectError(
      `team name ${JSON.stringify(name)} must be 1 to 64 characters without control characters`,
      Code.InvalidArgument,
    );
  return trimmed;
}

const ts = (date: Date | null | undefined): Timestamp | undefined =>
  date == null ? undefined : timestampFromDate(date);

const USER_SELECT = {
  id: true,
  username: true,
  role: true,
  disabledAt: true,
  createdAt: true,
  team: { select: { id: true, name: true } },
} as const;

type UserRow = Prisma.UserGetPayload<{ select: typeof USER_SELECT }>;

function userMessage(row: UserRow, lastLogin?: Date | null): User {
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

const TEAM_SELECT = {
  id: true,
  name: true,
  requireReview: true,
  domains: { select: { pattern: true }, orderBy: { pattern: "asc" } },
  clusters: { select: { name: true }, orderBy: { name: "asc" } },
  _count: { select: { members: true } },
} as const;

type TeamRow = Prisma.TeamGetPayload<{ select: typeof TEAM_SELECT }>;

function teamMessage(row: TeamRow): Team {
  return create(TeamSchema, {
    id: row.id,
    name: row.name,
    requireReview: row.requireReview,
    domains: row.domains.map((d) => d.pattern),
    clusters: row.clusters.map((c) => c.name),
    memberCount: row._count.members,
  });
}

function tokenMessage(token: ApiTokenInfo): ApiToken {
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
function uniqueViolation(error: unknown, message: string): never {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
    throw new ConnectError(message, Code.AlreadyExists, undefined, undefined, error);
  throw error;
}

function formatLifetime(ms: number): string {
  const days = ms / 86_400_000;
  return Number.isInteger(days) ? `${days} days` : `${Math.round(ms / 3_600_000)} hours`;
}

async function loadTeam(db: PrismaClient | TransactionClient, id: string): Promise<TeamRow> {
  const row = await db.team.findUnique({ where: { id }, select: TEAM_SELECT });
  if (row === null) throw new ConnectError(`team ${id} does not exist`, Code.NotFound);
  return row;
}

export interface AccessServiceOptions {
  readonly prisma: PrismaClient;
  readonly limiter: LoginLimiter;
  /** The longest an API token may live (SWITCHYARD_TOKEN_MAX_LIFETIME). Default 90 days. */
  readonly tokenMaxLifetimeMs?: number;
}

export const DEFAULT_TOKEN_MAX_LIFETIME_MS = 90 * 86_400_000;

/** switchyard.v1.AccessService: sign-in, accounts, teams and ownership, API tokens, audit. */
export function createAccessService(
  options: AccessServiceOptions,
): ServiceImpl<typeof AccessService> {
  const { prisma, limiter } = options;
  const tokenMaxLifetimeMs = options.tokenMaxLifetimeMs ?? DEFAULT_TOKEN_MAX_LIFETIME_MS;

  /**
   * Throws unless `password` is the caller's: what an action needs that a stolen session or token
   * must not be enough for. Guesses count against the login limits, as logins do.
   */
  const confirmPassword = async (
    caller: Principal,
    password: string,
    context: HandlerContext,
    purpose: string,
  ) => {
    if (password === "")
      throw new ConnectError(`your current password is required ${purpose}`, Code.InvalidArgument);
    const ip = ipOf(context);
    const allowance = await limiter.begin(caller.username, ip);
    if (allowance.t === "limited")
      throw new ConnectError(
        `too many attempts, retry in ${allowance.retryAfterS} s`,
        Code.ResourceExhausted,
      );
    const user = await authenticate(prisma, caller.username, password);
    if (user === null || user.id !== caller.userId) {
      await recordAudit(prisma, {
        ...auditActor(caller),
        action: "login.failed",
        ip,
        detail: { reason: "confirmation", purpose },
      });
      throw new ConnectError(`your current password is wrong (${purpose})`, Code.PermissionDenied);
    }
    await limiter.succeeded(caller.username, ip);
  };

  const audit = (
    db: PrismaClient | TransactionClient,
    context: HandlerContext,
    caller: Principal,
    action: string,
    target: string,
    detail: Record<string, unknown>,
  ) => recordAudit(db, { ...auditActor(caller), action, target, ip: ipOf(context), detail });

  return {
    async login(request, context) {
      if (request.username.trim() === "")
        throw new ConnectError("username is required", Code.InvalidArgument);
      if (request.password === "")
        throw new ConnectError("password is required", Code.InvalidArgument);
      const origin = context.values.get(REQUEST_ORIGIN);
      const result = await login(prisma, limiter, {
        username: request.username,
        password: request.password,
        ip: origin.ip,
        userAgent: context.requestHeader.get("user-agent"),
      });
      switch (result.t) {
        case "limited":
          throw new ConnectError(result.message, Code.ResourceExhausted);
        case "invalid":
          throw new ConnectError(result.message, Code.Unauthenticated);
        case "ok": {
          const { session } = result;
          context.responseHeader.append(
            "set-cookie",
            sessionCookie(session.secret, {
              secure: origin.secure,
              maxAgeS: (session.expiresAt.getTime() - Date.now()) / 1000,
            }),
          );
          const user = await prisma.user.findUniqueOrThrow({
            where: { id: result.principal.userId },
            select: USER_SELECT,
          });
          return { user: userMessage(user), expireTime: ts(session.expiresAt) };
        }
      }
    },

    async logout(_request, context) {
      const caller = callerOf(context);
      const via = caller.via;
      await prisma.$transaction(async (tx) => {
        if (via.t === "session") await tx.session.deleteMany({ where: { id: via.sessionId } });
        else await revokeApiToken(tx, via.tokenId);
        await audit(tx, context, caller, "logout", `user/${caller.username}`, {
          via: via.t,
          ...(via.t === "token" ? { token: via.tokenName } : {}),
        });
      });
      if (via.t === "session")
        context.responseHeader.append(
          "set-cookie",
          clearSessionCookie({ secure: context.values.get(REQUEST_ORIGIN).secure }),
        );
      return {};
    },

    async whoAmI(_request, context) {
      const caller = callerOf(context);
      const user = await prisma.user.findUniqueOrThrow({
        where: { id: caller.userId },
        select: USER_SELECT,
      });
      return {
        user: userMessage(user),
        team:
          caller.team === null ? undefined : teamMessage(await loadTeam(prisma, caller.team.id)),
        via: caller.via.t,
        scopes: caller.via.t === "token" ? [...caller.via.scopes] : [],
      };
    },

    async listUsers() {
      const rows = await prisma.user.findMany({
        select: USER_SELECT,
        orderBy: { username: "asc" },
      });
      // The audit log is the record of sign-ins (index action, at): one grouped read, not one
      // per user. Actors are usernames, which never change.
      const logins = await prisma.auditEvent.groupBy({
        by: ["actor"],
        where: { action: "login", actor: { in: rows.map((row) => row.username) } },
        _max: { at: true },
      });
      const lastLogin = new Map(logins.map((l) => [l.actor, l._max.at]));
      return { users: rows.map((row) => userMessage(row, lastLogin.get(row.username))) };
    },

    async createUser(request, context) {
      const caller = callerOf(context);
      const role = roleArg(request.role);
      const teamId = request.teamId === "" ? null : idArg(request.teamId, "team_id");
      return prisma.$transaction(async (tx) => {
        if (teamId !== null) await loadTeam(tx, teamId);
        const row = await createUser(tx, {
          username: request.username,
          password: request.password,
          role,
          teamId,
        });
        await audit(tx, context, caller, "user.create", `user/${row.username}`, {
          diff: { before: null, after: { role, team: row.team?.name ?? null } },
        });
        return userMessage(
          await tx.user.findUniqueOrThrow({ where: { id: row.id }, select: USER_SELECT }),
        );
      });
    },

    async updateUser(request, context) {
      const caller = callerOf(context);
      const id = idArg(request.id, "id");
      const self = id === caller.userId;
      const changesAccount =
        request.role !== undefined ||
        request.teamId !== undefined ||
        request.disabled !== undefined;
      // The interceptor allowed "manage" on this account: an admin, or the user themselves (by
      // session). Only an admin changes roles, teams and disabling, and never their own.
      if (changesAccount && caller.role !== "ADMIN")
        throw new ConnectError(
          "only an admin may change roles, teams or disable accounts",
          Code.PermissionDenied,
        );
      if (
        self &&
        (request.disabled === true || (request.role ?? RoleMessage.ADMIN) !== RoleMessage.ADMIN)
      )
        throw new ConnectError(
          "an admin cannot demote or disable their own account: ask another admin",
          Code.FailedPrecondition,
        );
      if (request.password !== undefined) checkPasswordPolicy(request.password);
      if (self && request.password !== undefined)
        await confirmPassword(caller, request.currentPassword, context, "to change your password");
      const passwordHash =
        request.password === undefined ? undefined : await hashPassword(request.password);
      return prisma.$transaction(async (tx) => {
        const before = await tx.user.findUnique({ where: { id }, select: USER_SELECT });
        if (before === null) throw new ConnectError(`user ${id} does not exist`, Code.NotFound);
        const role = request.role === undefined ? before.role : roleArg(request.role);
        let teamId =
          request.teamId === undefined
            ? (before.team?.id ?? null)
            : request.teamId === ""
              ? null
              : idArg(request.teamId, "team_id");
        if (request.teamId !== undefined && teamId !== null && role !== "MEMBER")
          throw new ConnectError(
            `only members belong to a team; ${before.username} would be ${role.toLowerCase()}`,
            Code.InvalidArgument,
          );
        if (role !== "MEMBER") teamId = null;
        if (teamId !== null && teamId !== before.team?.id) await loadTeam(tx, teamId);
        const disabledAt =
          request.disabled === undefined
            ? before.disabledAt
            : request.disabled
              ? (before.disabledAt ?? new Date())
              : null;
        const after = await tx.user.update({
          where: { id },
          data: {
            role,
            teamId,
            disabledAt,
            ...(passwordHash === undefined ? {} : { passwordHash }),
          },
          select: USER_SELECT,
        });
        // A new password or a disabled account ends the sessions it had (the caller's own kept).
        if (passwordHash !== undefined || (disabledAt !== null && before.disabledAt === null))
          await tx.session.deleteMany({
            where: {
              userId: id,
              ...(caller.via.t === "session" ? { id: { not: caller.via.sessionId } } : {}),
            },
          });
        // Disabled: every token ends. A new password: so do the tokens made with the old one, or
        // a stolen session (unless keep_tokens).
        const revokeTokens =
          (disabledAt !== null && before.disabledAt === null) ||
          (passwordHash !== undefined && !request.keepTokens);
        const revoked = revokeTokens
          ? (
              await tx.apiToken.updateMany({
                where: { userId: id, revokedAt: null },
                data: { revokedAt: new Date() },
              })
            ).count
          : 0;
        const summary = (row: UserRow) => ({
          role: row.role,
          team: row.team?.name ?? null,
          disabled: row.disabledAt !== null,
        });
        await audit(tx, context, caller, "user.update", `user/${before.username}`, {
          diff: { before: summary(before), after: summary(after) },
          ...(passwordHash === undefined ? {} : { password: "changed" }),
          ...(revoked > 0 ? { tokensRevoked: revoked } : {}),
        });
        return userMessage(after);
      });
    },

    async listTeams() {
      const rows = await prisma.team.findMany({ select: TEAM_SELECT, orderBy: { name: "asc" } });
      return { teams: rows.map(teamMessage) };
    },

    async createTeam(request, context) {
      const caller = callerOf(context);
      const name = teamNameArg(request.name);
      const domains = [...new Set(request.domains.map(normalizeDomainPattern))];
      try {
        return await prisma.$transaction(async (tx) => {
          const taken = await tx.teamDomain.findFirst({
            where: { pattern: { in: domains } },
            select: { pattern: true, team: { select: { name: true } } },
          });
          if (taken !== null)
            throw new ConnectError(
              `domain ${taken.pattern} already belongs to team ${taken.team.name}`,
              Code.AlreadyExists,
            );
          const row = await tx.team.create({
            data: {
              name,
              requireReview: request.requireReview,
              domains: { create: domains.map((pattern) => ({ pattern })) },
            },
            select: TEAM_SELECT,
          });
          await audit(tx, context, caller, "team.create", `team/${name}`, {
            diff: { before: null, after: { requireReview: row.requireReview, domains } },
          });
          return teamMessage(row);
        });
      } catch (error) {
        uniqueViolation(error, `team ${name} already exists`);
      }
    },

    async updateTeam(request, context) {
      const caller = callerOf(context);
      const id = idArg(request.id, "id");
      const name = request.name === undefined ? undefined : teamNameArg(request.name);
      try {
        return await prisma.$transaction(async (tx) => {
          const before = await loadTeam(tx, id);
          const after = await tx.team.update({
            where: { id },
            data: {
              ...(name === undefined ? {} : { name }),
              ...(request.requireReview === undefined
                ? {}
                : { requireReview: request.requireReview }),
            },
            select: TEAM_SELECT,
          });
          await audit(tx, context, caller, "team.update", `team/${before.name}`, {
            diff: {
              before: { name: before.name, requireReview: before.requireReview },
              after: { name: after.name, requireReview: after.requireReview },
            },
          });
          return teamMessage(after);
        });
      } catch (error) {
        uniqueViolation(error, `team ${name} already exists`);
      }
    },

    async deleteTeam(request, context) {
      const caller = callerOf(context);
      const id = idArg(request.id, "id");
      await prisma.$transaction(async (tx) => {
        const before = await loadTeam(tx, id);
        // Members lose their team and its clusters their owner (onDelete: SetNull); its domains go.
        await tx.team.delete({ where: { id } });
        await audit(tx, context, caller, "team.delete", `team/${before.name}`, {
          diff: { before: teamMessage(before).domains, after: null },
          clusters: before.clusters.map((c) => c.name),
        });
      });
      return {};
    },

    async addTeamDomain(request, context) {
      const caller = callerOf(context);
      const id = idArg(request.teamId, "team_id");
      const pattern = normalizeDomainPattern(request.pattern);
      return prisma.$transaction(async (tx) => {
        const team = await loadTeam(tx, id);
        const taken = await tx.teamDomain.findUnique({
          where: { pattern },
          select: { team: { select: { name: true } } },
        });
        if (taken !== null)
          throw new ConnectError(
            `domain ${pattern} already belongs to team ${taken.team.name}: remove it there first`,
            Code.AlreadyExists,
          );
        await tx.teamDomain.create({ data: { pattern, teamId: id } });
        await audit(tx, context, caller, "team.domain.add", `team/${team.name}`, { pattern });
        return teamMessage(await loadTeam(tx, id));
      });
    },

    async removeTeamDomain(request, context) {
      const caller = callerOf(context);
      const id = idArg(request.teamId, "team_id");
      const pattern = normalizeDomainPattern(request.pattern);
      return prisma.$transaction(async (tx) => {
        const team = await loadTeam(tx, id);
        const { count } = await tx.teamDomain.deleteMany({ where: { pattern, teamId: id } });
        if (count === 0)
          throw new ConnectError(`team ${team.name} does not own ${pattern}`, Code.NotFound);
        await audit(tx, context, caller, "team.domain.remove", `team/${team.name}`, { pattern });
        return teamMessage(await loadTeam(tx, id));
      });
    },

    async setClusterOwner(request, context) {
      const caller = callerOf(context);
      const teamId = request.teamId === "" ? null : idArg(request.teamId, "team_id");
      if (request.cluster === "")
        throw new ConnectError("cluster is required", Code.InvalidArgument);
      await prisma.$transaction(async (tx) => {
        const before = await tx.cluster.findUnique({
          where: { name: request.cluster },
          select: { ownerTeam: { select: { name: true } } },
        });
        if (before === null)
          throw new ConnectError(
            `cluster "${request.cluster}" does not exist in the draft`,
            Code.NotFound,
          );
        const team = teamId === null ? null : await loadTeam(tx, teamId);
        await tx.cluster.update({
          where: { name: request.cluster },
          data: { ownerTeamId: teamId },
        });
        await audit(tx, context, caller, "cluster.owner", `cluster/${request.cluster}`, {
          diff: { before: before.ownerTeam?.name ?? null, after: team?.name ?? null },
        });
      });
      return {};
    },

    async createToken(request, context) {
      const caller = callerOf(context);
      await confirmPassword(caller, request.password, context, "to create an API token");
      const latest = Date.now() + tokenMaxLifetimeMs;
      const expiresAt =
        request.expireTime === undefined ? new Date(latest) : timestampDate(request.expireTime);
      // A minute's grace: a client computing "now + the maximum" is not refused for its clock.
      if (expiresAt.getTime() > latest + 60_000)
        throw new ConnectError(
          `expire_time may be at most ${formatLifetime(tokenMaxLifetimeMs)} from now (SWITCHYARD_TOKEN_MAX_LIFETIME); make a new token before this one expires`,
          Code.InvalidArgument,
        );
      return prisma.$transaction(async (tx) => {
        const created = await createApiToken(tx, {
          userId: caller.userId,
          name: request.name,
          scopes: request.scopes,
          expiresAt,
        });
        await audit(tx, context, caller, "token.create", `token/${created.token.id}`, {
          name: created.token.name,
          scopes: [...created.token.scopes],
        });
        return { token: tokenMessage(created.token), secret: created.secret };
      });
    },

    async listTokens(request, context) {
      const caller = callerOf(context);
      const userId = request.userId === "" ? caller.userId : idArg(request.userId, "user_id");
      return { tokens: (await listApiTokens(prisma, userId)).map(tokenMessage) };
    },

    async revokeToken(request, context) {
      const caller = callerOf(context);
      const id = idArg(request.id, "id");
      return prisma.$transaction(async (tx) => {
        const token = await tx.apiToken.findUnique({
          where: { id },
          select: { userId: true, name: true, user: { select: { username: true } } },
        });
        if (token === null) throw new ConnectError(`API token ${id} does not exist`, Code.NotFound);
        assertAllowed(authorize(caller, "manage", { kind: "token", ownerUserId: token.userId }));
        const revoked = await revokeApiToken(tx, id);
        if (revoked === null)
          throw new ConnectError(`API token ${id} does not exist`, Code.NotFound);
        await audit(tx, context, caller, "token.revoke", `token/${id}`, {
          name: token.name,
          owner: token.user.username,
        });
        return tokenMessage(revoked);
      });
    },

    async listAuditEvents(request) {
      const page = await listAudit(prisma, {
        limit: request.pageSize === 0 ? 100 : request.pageSize,
        cursor: request.pageToken,
        ...(request.actor === "" ? {} : { actor: request.actor }),
        ...(request.action === "" ? {} : { action: request.action }),
        ...(request.target === "" ? {} : { target: request.target }),
        ...(request.startTime === undefined ? {} : { since: timestampDate(request.startTime) }),
        ...(request.endTime === undefined ? {} : { until: timestampDate(request.endTime) }),
      });
      return {
        events: page.events.map(auditEventMessage),
        nextPageToken: page.nextCursor ?? "",
      };
    },
  };
}
