import type { PrismaClient } from "@switchyard/db";
import { recordAudit } from "./audit.js";
import type { LoginLimiter } from "./login-limiter.js";
import { auditActor, type Principal } from "./principal.js";
import { markSessionAuthenticated, type SessionClock } from "./sessions.js";
import { authenticate } from "./users.js";

export interface ReauthenticateRequest extends SessionClock {
  /** The caller, on a console session. */
  readonly principal: Principal;
  readonly password: string;
  /** The client's address: the rate limit and audit key, as for a login. */
  readonly ip: string;
  /** What the password is entered for, for the audit event ("Reauthenticate", "CreateToken"). */
  readonly purpose: string;
}

export type ReauthenticateResult =
  /** The session's password counts as entered at `authenticatedAt`. */
  | { readonly t: "ok"; readonly authenticatedAt: Date }
  | { readonly t: "invalid"; readonly message: string }
  | { readonly t: "limited"; readonly retryAfterS: number; readonly message: string }
  /** An API token (it has no session to mark), or a session that ended meanwhile. */
  | { readonly t: "no-session"; readonly message: string };

/**
 * The caller enters their password again on their session (issue 44, point 6): the attempt is
 * counted by the login limits before the password is checked, exactly as a login is (the same
 * username + address counters, so guesses here and at Login add up), and recorded ("reauthenticate",
 * or "login.failed" with detail.reason "reauthentication"). On success the session's
 * `authenticatedAt` is now: privileged actions are allowed on it for REAUTH_WINDOW_MS.
 */
export async function reauthenticate(
  prisma: PrismaClient,
  limiter: LoginLimiter,
  request: ReauthenticateRequest,
): Promise<ReauthenticateResult> {
  const { principal, ip, purpose } = request;
  const via = principal.via;
  if (via.t !== "session")
    return {
      t: "no-session",
      message:
        "an API token cannot enter a password: privileged actions need a console session " +
        "(sign in to the console; the switchyard command signs in for them)",
    };
  const allowance = await limiter.begin(principal.username, ip);
  if (allowance.t === "limited") {
    await recordAudit(prisma, {
      ...auditActor(principal),
      action: "login.failed",
      ip,
      detail: { reason: "rate-limited", purpose },
    });
    return {
      t: "limited",
      retryAfterS: allowance.retryAfterS,
      message: `too many attempts, retry in ${allowance.retryAfterS} s`,
    };
  }
  const user = await authenticate(prisma, principal.username, request.password);
  if (user === null || user.id !== principal.userId) {
    await recordAudit(prisma, {
      ...auditActor(principal),
      action: "login.failed",
      ip,
      detail: { reason: "reauthentication", purpose },
    });
    return { t: "invalid", message: `your current password is wrong (${purpose})` };
  }
  await limiter.succeeded(principal.username, ip);
  const now = request.now?.() ?? new Date();
  if (!(await markSessionAuthenticated(prisma, via.sessionId, now)))
    return { t: "no-session", message: "your session has ended: sign in again" };
  await recordAudit(prisma, {
    ...auditActor(principal),
    action: "reauthenticate",
    ip,
    detail: { purpose },
  });
  return { t: "ok", authenticatedAt: now };
}
