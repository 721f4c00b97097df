import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@switchyard/db";
import { recordAudit, SYSTEM_ACTOR } from "./audit.js";
import { checkPasswordPolicy, hashPassword } from "./passwords.js";

export const INITIAL_ADMIN_USERNAME = "admin";

/** Serializes first-admin creation across replicas; distinct from the publish lock ("SWYD"). */
const INITIAL_ADMIN_LOCK = 0x53_57_41_44; // "SWAD"

export interface EnsureInitialAdminOptions {
  /**
   * SWITCHYARD_ADMIN_PASSWORD when set (checked against the policy); else one is generated, which
   * passes it (initial-admin.spec.ts).
   */
  readonly password?: string | undefined;
}

export type InitialAdmin =
  /** Some account already exists: nothing was done. */
  | { readonly t: "exists" }
  /**
   * `admin` was created. `generatedPassword` is set when no password was given: print it once
   * (it is stored nowhere else) and tell the operator to change it.
   */
  | { readonly t: "created"; readonly username: string; readonly generatedPassword: string | null };

/**
 * On a database with no account, creates `admin` (role ADMIN). Idempotent, and safe when replicas
 * start together: the check and the insert run in one transaction under an advisory lock, so
 * exactly one replica creates it and the others answer "exists".
 */
export async function ensureInitialAdmin(
  prisma: PrismaClient,
  options: EnsureInitialAdminOptions = {},
): Promise<InitialAdmin> {
  if ((await prisma.user.count()) > 0) return { t: "exists" };
  if (options.password !== undefined)
    await checkPasswordPolicy(options.password, INITIAL_ADMIN_USERNAME);
  // 18 random bytes: 24 base64url characters, 144 bits.
  const generatedPassword =
    options.password === undefined ? randomBytes(18).toString("base64url") : null;
  // Hashed before the lock, so the lock is held for milliseconds, not an argon2 run.
  const passwordHash = await hashPassword(options.password ?? generatedPassword ?? "");
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${INITIAL_ADMIN_LOCK})`;
    if ((await tx.user.count()) > 0) return { t: "exists" } as const;
    await tx.user.create({
      data: { username: INITIAL_ADMIN_USERNAME, passwordHash, role: "ADMIN" },
    });
    await recordAudit(tx, {
      ...SYSTEM_ACTOR,
      action: "user.create",
      target: `user/${INITIAL_ADMIN_USERNAME}`,
      detail: {
        role: "ADMIN",
        password: generatedPassword === null ? "SWITCHYARD_ADMIN_PASSWORD" : "generated",
      },
    });
    return { t: "created", username: INITIAL_ADMIN_USERNAME, generatedPassword } as const;
  });
}
