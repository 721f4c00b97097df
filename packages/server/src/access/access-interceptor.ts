/**
 * The one gate in front of every API method (auth/index.ts, "On every API request"):
 * credentials, then CSRF for cookie-authenticated mutations, then the method's access rule
 * (access-rules.ts), then, for a privileged method (privileged-actions.ts), a password entered
 * within the re-authentication window. Handlers of "per-object" methods then authorize against
 * the stored objects (config-guard.ts). Nothing is cached: a revoked token or ended session fails
 * on the next call.
 */
import { create, type DescMethod } from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import { ReauthenticationRequiredSchema } from "@switchyard/proto/switchyard/v1/access_pb";
import {
  assertAllowed,
  authorize,
  bearerToken,
  freshAuthentication,
  type LoginLimiter,
  type Principal,
  REAUTH_WINDOW_MS,
  readSessionCookie,
  reauthenticate,
  recordAudit,
  resolveApiToken,
  resolveSession,
} from "../auth/index.js";
import { accessRuleOf } from "./access-rules.js";
import { type Privilege, privilegeOf } from "./privileged-actions.js";
import { PASSWORD_PROVEN, PRINCIPAL, REQUEST_ORIGIN } from "./request-context.js";

export const NOT_SIGNED_IN =
  "not signed in: sign in to the console, run `switchyard login`, or send an API token " +
  "(Authorization: Bearer sy_...)";

/**
 * The caller of a request: a bearer API token first (an explicit credential wins over an ambient
 * cookie), else the session cookie. Throws Unauthenticated, saying which credential failed.
 */
export async function authenticateRequest(
  prisma: PrismaClient,
  header: Headers,
): Promise<Principal> {
  const authorization = header.get("authorization");
  if (authorization !== null) {
    const secret = bearerToken(authorization);
    if (secret === null)
      throw new ConnectError(
        "the Authorization header must be `Bearer sy_...` (an API token)",
        Code.Unauthenticated,
      );
    const principal = await resolveApiToken(prisma, secret);
    if (principal === null)
      throw new ConnectError(
        "the API token is unknown, revoked or expired, or its user is disabled: create a new one " +
          "(switchyard login, or the console's API tokens page)",
        Code.Unauthenticated,
      );
    return principal;
  }
  const cookie = readSessionCookie(header.get("cookie"));
  if (cookie !== null) {
    const principal = await resolveSession(prisma, cookie);
    if (principal === null)
      throw new ConnectError(
        "your session has ended (expired, signed out, or the account changed): sign in again",
        Code.Unauthenticated,
      );
    return principal;
  }
  throw new ConnectError(NOT_SIGNED_IN, Code.Unauthenticated);
}

/**
 * Whether a cookie-carrying request comes from the console's own pages. Browsers set
 * Sec-Fetch-Site (scripts cannot forge it); otherwise the Origin header must name this host.
 * SameSite=Strict on the cookie is the first line; this is the second (OWASP CSRF cheat sheet,
 * "Verifying Origin With Standard Headers").
 */
export function isSameOrigin(header: Headers): boolean {
  const site = header.get("sec-fetch-site");
  if (site !== null) return site === "same-origin";
  const origin = header.get("origin");
  const host = header.get("host");
  if (origin === null || host === null) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/**
 * Records API token use without flooding the audit log: the token's lastUsedAt is kept by
 * resolveApiToken (once a minute); a "token.use" event is written at most once per token per
 * `intervalMs` by each replica (first use, then once per interval of activity).
 */
export class TokenUseRecorder {
  readonly #last = new Map<string, number>();
  constructor(
    private readonly prisma: PrismaClient,
    private readonly intervalMs = 10 * 60 * 1000,
  ) {}

  async seen(principal: Principal, method: string, ip: string): Promise<void> {
    if (principal.via.t !== "token") return;
    const now = Date.now();
    const last = this.#last.get(principal.via.tokenId);
    if (last !== undefined && now - last < this.intervalMs) return;
    this.#last.set(principal.via.tokenId, now);
    await recordAudit(this.prisma, {
      actor: principal.username,
      actorKind: "token",
      action: "token.use",
      target: `token/${principal.via.tokenId}`,
      ip,
      detail: { token: principal.via.tokenName, method },
    });
  }
}

/**
 * A privileged method's gate (issue 44, point 6): the caller's password entered on their session
 * within REAUTH_WINDOW_MS, or given in the request's own password field, which is then checked
 * here as a re-authentication (counted by the login limits). An API token never passes. Answers
 * the caller as it now stands, and whether the request's password was checked.
 */
async function requireFreshPassword(
  deps: { readonly prisma: PrismaClient; readonly limiter: LoginLimiter },
  principal: Principal,
  method: DescMethod,
  privilege: Extract<Privilege, { t: "privileged" }>,
  message: unknown,
  ip: string,
): Promise<{ readonly principal: Principal; readonly proven: boolean }> {
  const given =
    privilege.proof === undefined
      ? undefined
      : (message as Record<string, unknown> | null)?.[privilege.proof];
  if (typeof given === "string" && given !== "" && principal.via.t === "session") {
    const result = await reauthenticate(deps.prisma, deps.limiter, {
      principal,
      password: given,
      ip,
      purpose: method.name,
    });
    switch (result.t) {
      case "invalid":
        throw new ConnectError(result.message, Code.PermissionDenied);
      case "limited":
        throw new ConnectError(result.message, Code.ResourceExhausted);
      case "no-session":
        throw new ConnectError(result.message, Code.Unauthenticated);
      case "ok":
        return {
          principal: {
            ...principal,
            via: { ...principal.via, authenticatedAt: result.authenticatedAt },
          },
          proven: true,
        };
    }
  }
  const decision = freshAuthentication(principal, privilege.what, new Date());
  if (decision.t === "reauthenticate")
    throw new ConnectError(decision.message, Code.PermissionDenied, undefined, [
      {
        desc: ReauthenticationRequiredSchema,
        value: create(ReauthenticationRequiredSchema, {
          method: `${method.parent.typeName}/${method.name}`,
          windowSeconds: REAUTH_WINDOW_MS / 1000,
        }),
      },
    ]);
  assertAllowed(decision);
  return { principal, proven: false };
}

export function createAccessInterceptor(options: {
  readonly prisma: PrismaClient;
  readonly limiter: LoginLimiter;
  readonly tokenUse: TokenUseRecorder;
}): Interceptor {
  const { prisma, tokenUse } = options;
  return (next) => async (request) => {
    const methodName = `${request.method.parent.typeName}/${request.method.name}`;
    const rule = accessRuleOf(request.method);
    const privilege = privilegeOf(request.method);
    if (rule === undefined || privilege === undefined)
      throw new ConnectError(
        `internal: ${methodName} has no ${rule === undefined ? "access rule (access-rules.ts)" : "privilege classification (privileged-actions.ts)"}, so it is refused`,
        Code.PermissionDenied,
      );
    if (rule.t === "public") return next(request);

    // Authenticated before the body was read (body-policy.ts), or now.
    const principal =
      request.contextValues.get(PRINCIPAL) ?? (await authenticateRequest(prisma, request.header));
    if (
      principal.via.t === "session" &&
      request.method.idempotency !== MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS &&
      !isSameOrigin(request.header)
    )
      throw new ConnectError(
        `cross-site request refused: ${request.method.name} with a session cookie must come from ` +
          "the console's own pages (Origin or Sec-Fetch-Site); scripts use an API token",
        Code.PermissionDenied,
      );

    switch (rule.t) {
      case "signed-in":
        break;
      case "fixed": {
        const resource =
          typeof rule.resource === "function"
            ? rule.resource(principal, request.stream ? null : request.message)
            : rule.resource;
        assertAllowed(authorize(principal, rule.action, resource));
        break;
      }
      case "per-object": {
        if (!rule.roles.includes(principal.role))
          throw new ConnectError(
            principal.role === "VIEWER"
              ? `viewer ${principal.username} has read-only access`
              : `only an admin may call ${request.method.name}`,
            Code.PermissionDenied,
          );
        if (principal.via.t === "token" && !principal.via.scopes.includes(rule.scope))
          throw new ConnectError(
            `API token ${principal.via.tokenName} of ${principal.username} lacks scope ` +
              `${rule.scope} (it has ${principal.via.scopes.join(", ") || "none"}); create a token with it`,
            Code.PermissionDenied,
          );
        break;
      }
    }
    const ip = request.contextValues.get(REQUEST_ORIGIN).ip;
    let caller = principal;
    if (privilege.t === "privileged") {
      const fresh = await requireFreshPassword(
        options,
        principal,
        request.method,
        privilege,
        request.stream ? null : request.message,
        ip,
      );
      caller = fresh.principal;
      request.contextValues.set(PASSWORD_PROVEN, fresh.proven);
    }
    request.contextValues.set(PRINCIPAL, caller);
    await tokenUse.seen(caller, methodName, ip);
    return next(request);
  };
}
