import { Code, ConnectError } from "@connectrpc/connect";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import { quotedInput } from "@switchyard/snapshot";
import {
  isTokenScope,
  PRINCIPAL_SELECT,
  type Principal,
  principalOf,
  TOKEN_SCOPES,
  type TokenScope,
} from "./principal.js";
import { randomSecret, sha256Hex } from "./secrets.js";
import type { SessionClock } from "./sessions.js";

/** Every token starts with it, so leaked tokens are easy to spot (secret scanners, logs). */
export const TOKEN_PREFIX = "sy_";
/** `lastUsedAt` is written at most this often per token. */
export const LAST_USED_RESOLUTION_MS = 60 * 1000;

export interface CreateApiTokenOptions extends SessionClock {
  readonly userId: string;
  /** The owner's label, 1 to 100 characters. */
  readonly name: string;
  readonly scopes: readonly string[];
  /** Null or absent: never expires. */
  readonly expiresAt?: Date | null;
}

/** A token as listed: everything but the secret, which is never kept. */
export interface ApiTokenInfo {
  readonly id: string;
  readonly name: string;
  readonly userId: string;
  readonly scopes: readonly TokenScope[];
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly expiresAt: Date | null;
  readonly revokedAt: Date | null;
}

export interface CreatedApiToken {
  /** "sy_" + 43 base64url characters. Shown to the user once; only its sha256 is stored. */
  readonly secret: string;
  readonly token: ApiTokenInfo;
}

const INFO_SELECT = {
  id: true,
  name: true,
  userId: true,
  scopes: true,
  createdAt: true,
  lastUsedAt: true,
  expiresAt: true,
  revokedAt: true,
} as const;

/** Throws InvalidArgument for an empty name, no scope, or an unknown scope. */
export async function createApiToken(
  prisma: PrismaClient | TransactionClient,
  options: CreateApiTokenOptions,
): Promise<CreatedApiToken> {
  const name = options.name.trim();
  if (name === "" || name.length > 100)
    throw new ConnectError("a token name is 1 to 100 characters", Code.InvalidArgument);
  const unknown = options.scopes.filter((scope) => !isTokenScope(scope));
  if (unknown.length > 0)
    throw new ConnectError(
      `unknown token scope ${unknown.map((s) => quotedInput(s)).join(", ")}; ` +
        `scopes are ${TOKEN_SCOPES.join(", ")}`,
      Code.InvalidArgument,
    );
  if (options.scopes.length === 0)
    throw new ConnectError(
      `a token needs at least one scope (${TOKEN_SCOPES.join(", ")})`,
      Code.InvalidArgument,
    );
  const scopes = [...new Set(options.scopes)].sort();
  const now = options.now?.() ?? new Date();
  const secret = TOKEN_PREFIX + randomSecret();
  const row = await prisma.apiToken.create({
    data: {
      name,
      userId: options.userId,
      secretHash: sha256Hex(secret),
      scopes,
      createdAt: now,
      expiresAt: options.expiresAt ?? null,
    },
    select: INFO_SELECT,
  });
  return { secret, token: infoOf(row) };
}

/**
 * The principal of a token's secret (as sent in `Authorization: Bearer sy_...`), or null when it
 * is unknown, revoked, expired, or its user is disabled. Reads the database on every call and
 * caches nothing, so a revoked token fails on the very next call.
 */
export async function resolveApiToken(
  prisma: PrismaClient,
  secret: string,
  options: SessionClock = {},
): Promise<Principal | null> {
  if (!secret.startsWith(TOKEN_PREFIX)) return null;
  const now = options.now?.() ?? new Date();
  const secretHash = sha256Hex(secret);
  const token = await prisma.apiToken.findUnique({
    where: { secretHash },
    select: { ...INFO_SELECT, user: { select: PRINCIPAL_SELECT } },
  });
  if (
    token === null ||
    token.revokedAt !== null ||
    (token.expiresAt !== null && token.expiresAt <= now) ||
    token.user.disabledAt !== null
  )
    return null;
  if (
    token.lastUsedAt === null ||
    now.getTime() - token.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS
  ) {
    await prisma.apiToken.updateMany({
      where: {
        id: token.id,
        OR: [
          { lastUsedAt: null },
          { lastUsedAt: { lte: new Date(now.getTime() - LAST_USED_RESOLUTION_MS) } },
        ],
      },
      data: { lastUsedAt: now },
    });
  }
  return principalOf(token.user, {
    t: "token",
    tokenId: token.id,
    tokenName: token.name,
    scopes: token.scopes.filter(isTokenScope),
  });
}

/** The token in an `Authorization` header ("Bearer sy_..."), or null. */
export function bearerToken(authorization: string | null | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  return match?.[1] ?? null;
}

/** A user's tokens, newest first, revoked ones included (they show as revoked). */
export async function listApiTokens(prisma: PrismaClient, userId: string): Promise<ApiTokenInfo[]> {
  const rows = await prisma.apiToken.findMany({
    where: { userId },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    select: INFO_SELECT,
  });
  return rows.map(infoOf);
}

/**
 * Revokes a token at once. Pass `userId` to revoke only if it is that user's (a member revoking
 * their own); omit it for an admin. Answers the token as it now is, or null when there is no such
 * (own) token. Revoking twice keeps the first revocation time.
 */
export async function revokeApiToken(
  prisma: PrismaClient | TransactionClient,
  tokenId: string,
  options: SessionClock & { readonly userId?: string } = {},
): Promise<ApiTokenInfo | null> {
  const now = options.now?.() ?? new Date();
  const where = {
    id: tokenId,
    ...(options.userId === undefined ? {} : { userId: options.userId }),
  };
  await prisma.apiToken.updateMany({
    where: { ...where, revokedAt: null },
    data: { revokedAt: now },
  });
  const row = await prisma.apiToken.findFirst({ where, select: INFO_SELECT });
  return row === null ? null : infoOf(row);
}

/** Revokes every live token of a user (disable, offboarding). Answers how many. */
export async function revokeUserApiTokens(
  prisma: PrismaClient,
  userId: string,
  options: SessionClock = {},
): Promise<number> {
  const { count } = await prisma.apiToken.updateMany({
    where: { userId, revokedAt: null },
    data: { revokedAt: options.now?.() ?? new Date() },
  });
  return count;
}

function infoOf(row: {
  id: string;
  name: string;
  userId: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}): ApiTokenInfo {
  return { ...row, scopes: row.scopes.filter(isTokenScope) };
}
