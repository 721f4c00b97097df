import type { PrismaClient } from "@switchyard/db";
import { PRINCIPAL_SELECT, type Principal, principalOf } from "./principal.js";
import { randomSecret, sha256Hex } from "./secrets.js";

/** A session's default lifetime: a working day. It does not slide: activity does not extend it. */
export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** `lastSeenAt` is written at most this often per session, so reads do not each cost a write. */
export const LAST_SEEN_RESOLUTION_MS = 60 * 1000;

export interface SessionClock {
  /** The current time; tests pass a hand-driven clock. */
  readonly now?: () => Date;
}

export interface CreateSessionOptions extends SessionClock {
  readonly userId: string;
  readonly ip?: string | null;
  readonly userAgent?: string | null;
  /** Defaults to DEFAULT_SESSION_TTL_MS. */
  readonly ttlMs?: number;
}

export interface CreatedSession {
  /** The cookie value. Only its sha256 is stored: give it to the client, then forget it. */
  readonly secret: string;
  /** The stored row's id (sha256 of the secret), for revokeSession and audit. */
  readonly id: string;
  readonly expiresAt: Date;
  /** The login's time: the password was entered then. */
  readonly authenticatedAt: Date;
}

export async function createSession(
  prisma: PrismaClient,
  options: CreateSessionOptions,
): Promise<CreatedSession> {
  const now = options.now?.() ?? new Date();
  const secret = randomSecret();
  const id = sha256Hex(secret);
  const expiresAt = new Date(now.getTime() + (options.ttlMs ?? DEFAULT_SESSION_TTL_MS));
  await prisma.session.create({
    data: {
      id,
      userId: options.userId,
      createdAt: now,
      lastSeenAt: now,
      // A login is an entered password.
      authenticatedAt: now,
      expiresAt,
      ip: options.ip ?? null,
      // User agents are client-chosen text: bound what one login can store.
      userAgent: options.userAgent?.slice(0, 512) ?? null,
    },
  });
  return { secret, id, expiresAt, authenticatedAt: now };
}

/**
 * The principal of a session cookie's secret, or null when the session is unknown, revoked,
 * expired, or its user is disabled. Reads the database every time (no cache), so a revoke or a
 * disable takes effect on the very next request.
 */
export async function resolveSession(
  prisma: PrismaClient,
  secret: string,
  options: SessionClock = {},
): Promise<Principal | null> {
  if (secret === "") return null;
  const now = options.now?.() ?? new Date();
  const id = sha256Hex(secret);
  const session = await prisma.session.findUnique({
    where: { id },
    select: {
      expiresAt: true,
      lastSeenAt: true,
      authenticatedAt: true,
      user: { select: PRINCIPAL_SELECT },
    },
  });
  if (session === null || session.expiresAt <= now || session.user.disabledAt !== null) return null;
  if (now.getTime() - session.lastSeenAt.getTime() >= LAST_SEEN_RESOLUTION_MS) {
    // Conditional, so replicas serving the same session at once write it once.
    await prisma.session.updateMany({
      where: { id, lastSeenAt: { lte: new Date(now.getTime() - LAST_SEEN_RESOLUTION_MS) } },
      data: { lastSeenAt: now },
    });
  }
  return principalOf(session.user, {
    t: "session",
    sessionId: id,
    authenticatedAt: session.authenticatedAt,
  });
}

/**
 * Records that the session's password was just entered again (Reauthenticate): privileged actions
 * are allowed on it for the re-authentication window from `at`. Answers whether the session
 * still exists.
 */
export async function markSessionAuthenticated(
  prisma: PrismaClient,
  sessionId: string,
  at: Date,
): Promise<boolean> {
  const { count } = await prisma.session.updateMany({
    where: { id: sessionId },
    data: { authenticatedAt: at },
  });
  return count > 0;
}

/** Ends one session (logout). Answers whether it existed. */
export async function revokeSession(prisma: PrismaClient, sessionId: string): Promise<boolean> {
  const { count } = await prisma.session.deleteMany({ where: { id: sessionId } });
  return count > 0;
}

/**
 * Ends every session of a user (password change, disable, "log out everywhere"), except
 * `keepSessionId` when given (the session that changed the password). Answers how many ended.
 */
export async function revokeUserSessions(
  prisma: PrismaClient,
  userId: string,
  keepSessionId?: string,
): Promise<number> {
  const { count } = await prisma.session.deleteMany({
    where: { userId, ...(keepSessionId === undefined ? {} : { id: { not: keepSessionId } }) },
  });
  return count;
}

/** Deletes sessions that expired before `before`; call now and then (they no longer resolve). */
export async function deleteExpiredSessions(prisma: PrismaClient, before: Date): Promise<number> {
  const { count } = await prisma.session.deleteMany({ where: { expiresAt: { lt: before } } });
  return count;
}
