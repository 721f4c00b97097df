/**
 * switchyard.v1.AccessService: sign-in, accounts, teams and their domains, API tokens and the
 * audit log. One function holding the service's 18 handlers, each a few checks around auth/
 * (where the rules live) and access-messages.ts (arguments and messages): one map of the
 * service, longer than most files here, rather than its methods scattered by topic.
 */

import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import {
  type AccessService,
  Role as RoleMessage,
  SharingSchema,
} from "@switchyard/proto/switchyard/v1/access_pb";
import { quotedInput } from "@switchyard/snapshot";
import {
  assertAllowed,
  auditActor,
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
  REAUTH_WINDOW_MS,
  reauthenticate,
  recordAudit,
  revokeApiToken,
  sessionCookie,
} from "../auth/index.js";
import type { XdsServerInfo } from "../xds-advertise.js";
import {
  auditPageMessage,
  formatLifetime,
  idArg,
  loadTeam,
  roleArg,
  type SharedKind,
  sharedKindOf,
  TEAM_SELECT,
  teamMessage,
  teamNameArg,
  tokenMessage,
  ts,
  USER_SELECT,
  type UserRow,
  uniqueViolation,
  userMessage,
} from "./access-messages.js";
import { callerOf, ipOf, PASSWORD_PROVEN, REQUEST_ORIGIN } from "./request-context.js";

const KIND_LABELS: Readonly<Record<SharedKind, string>> = {
  cluster: "cluster",
  secret: "secret",
  listener: "listener",
  routeConfiguration: "route configuration",
};

/** Whether the draft holds `name` of `kind`. */
async function objectExists(tx: TransactionClient, kind: SharedKind, name: string) {
  const where = { where: { name }, select: { name: true } } as const;
  switch (kind) {
    case "cluster":
      return (await tx.cluster.findUnique(where)) !== null;
    case "secret":
      return (await tx.secret.findUnique(where)) !== null;
    case "listener":
      return (await tx.listener.findUnique(where)) !== null;
    case "routeConfiguration":
      return (await tx.routeConfiguration.findUnique(where)) !== null;
  }
}

export interface AccessServiceOptions {
  readonly prisma: PrismaClient;
  readonly limiter: LoginLimiter;
  /** The longest an API token may live (SWITCHYARD_TOKEN_MAX_LIFETIME). Default 90 days. */
  readonly tokenMaxLifetimeMs?: number;
  /**
   * How proxies reach this server's xDS port, for a caller that reached the API by `requestHost`
   * (its Host header): WhoAmI's `server` (xds-advertise.ts).
   */
  readonly serverInfo?: (requestHost: string | undefined) => XdsServerInfo;
}

export const DEFAULT_TOKEN_MAX_LIFETIME_MS = 90 * 86_400_000;

/** switchyard.v1.AccessService: sign-in, accounts, teams and ownership, API tokens, audit. */
export function createAccessService(
  options: AccessServiceOptions,
): ServiceImpl<typeof AccessService> {
  const { prisma, limiter } = options;
  const tokenMaxLifetimeMs = options.tokenMaxLifetimeMs ?? DEFAULT_TOKEN_MAX_LIFETIME_MS;

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

    async reauthenticate(request, context) {
      const caller = callerOf(context);
      if (caller.via.t === "session" && request.password === "")
        throw new ConnectError("password is required", Code.InvalidArgument);
      const result = await reauthenticate(prisma, limiter, {
        principal: caller,
        password: request.password,
        ip: ipOf(context),
        purpose: "Reauthenticate",
      });
      switch (result.t) {
        case "no-session":
          throw new ConnectError(
            result.message,
            caller.via.t === "token" ? Code.PermissionDenied : Code.Unauthenticated,
          );
        case "limited":
          throw new ConnectError(result.message, Code.ResourceExhausted);
        case "invalid":
          throw new ConnectError(result.message, Code.PermissionDenied);
        case "ok":
          return {
            expireTime: ts(new Date(result.authenticatedAt.getTime() + REAUTH_WINDOW_MS)),
          };
      }
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
        server: options.serverInfo?.(
          context.requestHeader.get("host") ?? context.requestHeader.get(":authority") ?? undefined,
        ),
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
      if (request.password !== undefined) {
        const target = await prisma.user.findUnique({ where: { id }, select: { username: true } });
        if (target === null) throw new ConnectError(`user ${id} does not exist`, Code.NotFound);
        await checkPasswordPolicy(request.password, target.username);
      }
      // Checked by the access interceptor when given (UpdateUser's proof, privileged-actions.ts).
      if (self && request.password !== undefined && !context.values.get(PASSWORD_PROVEN))
        throw new ConnectError(
          "your current password is required to change your password",
          Code.InvalidArgument,
        );
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
              ...(request.requireRollout === undefined
                ? {}
                : { requireRollout: request.requireRollout }),
            },
            select: TEAM_SELECT,
          });
          const fields = (team: typeof before) => ({
            name: team.name,
            requireReview: team.requireReview,
            requireRollout: team.requireRollout,
          });
          await audit(tx, context, caller, "team.update", `team/${before.name}`, {
            diff: { before: fields(before), after: fields(after) },
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

    async setSecretOwner(request, context) {
      const caller = callerOf(context);
      const teamId = request.teamId === "" ? null : idArg(request.teamId, "team_id");
      if (request.secret === "") throw new ConnectError("secret is required", Code.InvalidArgument);
      await prisma.$transaction(async (tx) => {
        const before = await tx.secret.findUnique({
          where: { name: request.secret },
          select: { ownerTeam: { select: { name: true } } },
        });
        if (before === null)
          throw new ConnectError(
            `secret "${request.secret}" does not exist in the draft`,
            Code.NotFound,
          );
        const team = teamId === null ? null : await loadTeam(tx, teamId);
        await tx.secret.update({ where: { name: request.secret }, data: { ownerTeamId: teamId } });
        await audit(tx, context, caller, "secret.owner", `secret/${request.secret}`, {
          diff: { before: before.ownerTeam?.name ?? null, after: team?.name ?? null },
        });
      });
      return {};
    },

    async setSharing(request, context) {
      const caller = callerOf(context);
      const kind = sharedKindOf(request.kind);
      if (kind === undefined)
        throw new ConnectError(
          "kind must be RESOURCE_KIND_CLUSTER, _SECRET, _LISTENER or _ROUTE_CONFIGURATION: what a team's objects can name",
          Code.InvalidArgument,
        );
      if (request.name === "") throw new ConnectError("name is required", Code.InvalidArgument);
      const teamIds = [...new Set(request.teamIds.map((id) => idArg(id, "team_ids")))];
      return prisma.$transaction(async (tx) => {
        if (!(await objectExists(tx, kind, request.name)))
          throw new ConnectError(
            `${KIND_LABELS[kind]} ${quotedInput(request.name)} does not exist in the draft`,
            Code.NotFound,
          );
        const teams = await tx.team.findMany({
          where: { id: { in: teamIds } },
          select: { id: true, name: true },
        });
        const missing = teamIds.filter((id) => !teams.some((t) => t.id === id));
        if (missing.length > 0)
          throw new ConnectError(`team ${missing[0]} does not exist`, Code.NotFound);
        const where = { kind, name: request.name };
        const before = await tx.share.findMany({
          where,
          select: { team: { select: { name: true } } },
        });
        await tx.share.deleteMany({ where });
        if (teams.length > 0)
          await tx.share.createMany({
            data: teams.map((t) => ({ kind, name: request.name, teamId: t.id })),
          });
        const names = teams.map((t) => t.name).sort();
        await audit(tx, context, caller, "share.set", `${kind}/${request.name}`, {
          diff: { before: before.map((b) => b.team.name).sort(), after: names },
        });
        return create(SharingSchema, { kind: request.kind, name: request.name, teams: names });
      });
    },

    async createToken(request, context) {
      // A privileged action: the access interceptor saw the caller's password entered within the
      // last minutes, or checked the request's own (privileged-actions.ts).
      const caller = callerOf(context);
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
      return auditPageMessage(page);
    },
  };
}
