import { Code, ConnectError } from "@connectrpc/connect";
import { Prisma, type PrismaClient, type TransactionClient } from "@switchyard/db";
import { quotedInput } from "@switchyard/snapshot";
import {
  checkPasswordPolicy,
  hashPassword,
  verifyAgainstDummy,
  verifyPassword,
} from "./passwords.js";
import { PRINCIPAL_SELECT, type PrincipalRow, type Role } from "./principal.js";

const USERNAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Usernames compare case-insensitively: stored and looked up lower-case. */
export function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}

/** Throws InvalidArgument unless `username` (normalized) is 1-64 of a-z 0-9 . _ - */
export function checkUsername(username: string): string {
  const name = normalizeUsername(username);
  if (!USERNAME.test(name))
    throw new ConnectError(
      `username ${quotedInput(username)} must be 1 to 64 characters of a-z, 0-9, ".", "_" ` +
        `and "-", starting with a letter or digit`,
      Code.InvalidArgument,
    );
  return name;
}

export interface CreateUserOptions {
  readonly username: string;
  readonly password: string;
  readonly role: Role;
  /** Only for a MEMBER. */
  readonly teamId?: string | null;
}

/**
 * Creates an account with an argon2id hash of its password. Throws InvalidArgument for a bad
 * username, a weak password or a team on a non-member, AlreadyExists for a taken username.
 */
export async function createUser(
  db: PrismaClient | TransactionClient,
  options: CreateUserOptions,
): Promise<PrincipalRow> {
  const username = checkUsername(options.username);
  await checkPasswordPolicy(options.password, username);
  const teamId = options.teamId ?? null;
  if (teamId !== null && options.role !== "MEMBER")
    throw new ConnectError(
      `only members belong to a team; ${username} would be ${options.role.toLowerCase()}`,
      Code.InvalidArgument,
    );
  const passwordHash = await hashPassword(options.password);
  try {
    return await db.user.create({
      data: { username, passwordHash, role: options.role, teamId },
      select: PRINCIPAL_SELECT,
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
      throw new ConnectError(
        `user ${username} already exists`,
        Code.AlreadyExists,
        undefined,
        undefined,
        error,
      );
    throw error;
  }
}

/**
 * The enabled account with this username and password, or null. Unknown and disabled accounts
 * cost one dummy verification, so the answer's timing does not reveal which usernames exist.
 */
export async function authenticate(
  prisma: PrismaClient,
  username: string,
  password: string,
): Promise<PrincipalRow | null> {
  const user = await prisma.user.findUnique({
    where: { username: normalizeUsername(username) },
    select: { ...PRINCIPAL_SELECT, passwordHash: true },
  });
  if (user === null || user.disabledAt !== null)
    return verifyAgainstDummy(password).then(() => null);
  if (!(await verifyPassword(user.passwordHash, password))) return null;
  const { passwordHash: _, ...row } = user;
  return row;
}

/**
 * Replaces a password (after checking the policy). Callers should then end the user's other
 * sessions (revokeUserSessions with the current one kept).
 */
export async function setPassword(
  prisma: PrismaClient,
  userId: string,
  password: string,
): Promise<void> {
  const { username } = await prisma.user.findUniqueOrThrow({
    where: { id: userId },
    select: { username: true },
  });
  await checkPasswordPolicy(password, username);
  await prisma.user.update({
    where: { id: userId },
    data: { passwordHash: await hashPassword(password) },
  });
}
