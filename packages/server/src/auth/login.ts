import type { PrismaClient } from "@switchyard/db";
import { recordAudit } from "./audit.js";
import type { LoginLimiter } from "./login-limiter.js";
import { type Principal, principalOf } from "./principal.js";
import { type CreatedSession, createSession, type SessionClock } from "./sessions.js";
import { authenticate, normalizeUsername } from "./users.js";

export interface LoginRequest extends SessionClock {
  readonly username: string;
  readonly password: string;
  /** The client's address (after trusted-proxy handling): the rate limit and audit key. */
  readonly ip: string;
  readonly userAgent?: string | null;
  /** Session lifetime; defaults to DEFAULT_SESSION_TTL_MS. */
  readonly sessionTtlMs?: number;
}

export type LoginResult =
  | { readonly t: "ok"; readonly principal: Principal; readonly session: CreatedSession }
  /** Wrong username or password, or a disabled account: one answer for all, by design. */
  | { readonly t: "invalid"; readonly message: string }
  | { readonly t: "limited"; readonly retryAfterS: number; readonly message: string };

/**
 * A console or CLI login: the rate limit, the password check, the session, and the audit event
 * ("login", or "login.failed" with detail.reason "credentials" or "rate-limited").
 */
export async function login(
  prisma: PrismaClient,
  limiter: LoginLimiter,
  request: LoginRequest,
): Promise<LoginResult> {
  // Audit names the attempted account as typed (bounded): it may not exist.
  const attempted = normalizeUsername(request.username).slice(0, 100);
  const failed = (reason: string) =>
    recordAudit(prisma, {
      actor: attempted,
      actorKind: "user",
      action: "login.failed",
      ip: request.ip,
      detail: { reason, userAgent: request.userAgent ?? null },
    });

  // Counted before the password is checked (login-limiter.ts), given back if it was right.
  const allowance = await limiter.begin(attempted, request.ip);
  if (allowance.t === "limited") {
    await failed("rate-limited");
    return {
      t: "limited",
      retryAfterS: allowance.retryAfterS,
      message: `too many attempts, retry in ${allowance.retryAfterS} s`,
    };
  }
  const user = await authenticate(prisma, attempted, request.password);
  if (user === null) {
    await failed("credentials");
    return { t: "invalid", message: "wrong username or password" };
  }
  await limiter.succeeded(attempted, request.ip);
  const session = await createSession(prisma, {
    userId: user.id,
    ip: request.ip,
    userAgent: request.userAgent ?? null,
    ...(request.sessionTtlMs === undefined ? {} : { ttlMs: request.sessionTtlMs }),
    ...(request.now === undefined ? {} : { now: request.now }),
  });
  await recordAudit(prisma, {
    actor: user.username,
    actorKind: "user",
    action: "login",
    ip: request.ip,
    detail: { userAgent: request.userAgent ?? null },
  });
  return {
    t: "ok",
    principal: principalOf(user, {
      t: "session",
      sessionId: session.id,
      authenticatedAt: session.authenticatedAt,
    }),
    session,
  };
}
