import { Code, ConnectError } from "@connectrpc/connect";
import { type Algorithm, hash, verify } from "@node-rs/argon2";
import { passwordStrength } from "./password-strength.js";

/** `Algorithm.Argon2id`: the d.ts declares a const enum, which isolated modules cannot read. */
const ARGON2ID = 2 as Algorithm.Argon2id;

/**
 * NIST SP 800-63B asks for at least 8 characters and no composition rules; 12 leaves a margin
 * for accounts that can change every team's routes.
 */
export const PASSWORD_MIN_LENGTH = 12;
/** argon2 takes any length; the cap stops a megabyte "password" from costing a request. */
export const PASSWORD_MAX_LENGTH = 1024;
/**
 * The least zxcvbn score a new password needs (password-strength.ts): 3 is "safely unguessable",
 * what NIST SP 800-63B section 5.1.1.2 asks for in its words: no password found in lists of
 * commonly used or compromised ones, no repetitive or sequential characters, no username.
 */
export const PASSWORD_MIN_SCORE = 3;
/** Words any password of this server's accounts is tried against first, besides the username. */
const PRODUCT_WORDS = ["switchyard", "envoy", "console", "xds"];
/**
 * A username this long or longer is refused anywhere inside a password; a shorter one (any
 * password of 12 characters might hold a two-letter name by chance) only as the whole of it.
 */
const USERNAME_INSIDE_MIN_LENGTH = 3;

/**
 * Throws InvalidArgument naming the rule a new password for `username` breaks and what to do:
 * its length, the username in it (case-insensitive), or a zxcvbn score under PASSWORD_MIN_SCORE
 * with zxcvbn's reason. Every path that sets a password calls it: the first admin, CreateUser and
 * UpdateUser (a change or a reset).
 */
export async function checkPasswordPolicy(password: string, username: string): Promise<void> {
  if (password.length < PASSWORD_MIN_LENGTH)
    throw new ConnectError(
      `the password is ${password.length} characters long; use at least ${PASSWORD_MIN_LENGTH}`,
      Code.InvalidArgument,
    );
  if (password.length > PASSWORD_MAX_LENGTH)
    throw new ConnectError(
      `the password is longer than ${PASSWORD_MAX_LENGTH} characters`,
      Code.InvalidArgument,
    );
  const name = username.trim().toLowerCase();
  const lower = password.toLowerCase();
  if (
    name !== "" &&
    (lower === name || (name.length >= USERNAME_INSIDE_MIN_LENGTH && lower.includes(name)))
  )
    throw new ConnectError(
      `the password contains the username "${name}", the first thing an attacker tries: choose one without it`,
      Code.InvalidArgument,
    );
  const strength = await passwordStrength(password, [name, ...PRODUCT_WORDS]);
  if (strength.score < PASSWORD_MIN_SCORE) {
    const why = [strength.warning, ...strength.suggestions].filter((text) => text !== "");
    throw new ConnectError(
      `the password is too easy to guess (strength ${strength.score} of 4, at least ${PASSWORD_MIN_SCORE} needed)${why.length > 0 ? `: ${why.join(" ")}` : "."} A few random words, or a password manager's generated password, will do.`,
      Code.InvalidArgument,
    );
  }
}

/**
 * The PHC string ("$argon2id$v=19$m=19456,t=2,p=1$salt$hash") of an argon2id hash with the
 * library's defaults (OWASP's first recommended setting: 19 MiB, 2 passes, 1 lane), random salt.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

/**
 * Whether `password` matches `passwordHash`. The comparison inside argon2 is constant-time; a
 * malformed hash counts as a mismatch (never an exception), so a corrupt row cannot be told apart
 * from a wrong password by its answer.
 */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  if (password.length > PASSWORD_MAX_LENGTH) return false;
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Does the work of one verification and answers false: called when the username is unknown or
 * disabled, so the time a failed login takes does not reveal whether the account exists.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword("switchyard-dummy-password-never-matches");
  await verifyPassword(await dummyHash, password);
  return false;
}
