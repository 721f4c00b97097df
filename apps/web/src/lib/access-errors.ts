import { Code, ConnectError } from "@connectrpc/connect";

/*
 * The access API (packages/server/src/access/access-service.ts) refuses bad input with one
 * message per call and no field path. Each form lists which of its fields a message concerns, by
 * the way the server words it, so the message shows at that field instead of in a toast.
 */

/** An API error's own message, without Connect's "[code]" prefix, for a toast. */
export function messageOf(error: unknown): string {
  return ConnectError.from(error).rawMessage;
}

/** A form field and the server messages that concern it (tested against the server's wording). */
export interface FieldRule<F extends string> {
  readonly field: F;
  readonly match: RegExp;
}

/**
 * Where to show a refused call's message: at a field (`field` set) when the refusal is about the
 * input (InvalidArgument, AlreadyExists, NotFound of a referenced object) and a rule matches it,
 * otherwise for the whole form. `message` is the server's, without Connect's "[code]" prefix.
 */
export function accessFailureOf<F extends string>(
  error: unknown,
  rules: readonly FieldRule<F>[],
): { readonly field: F | undefined; readonly message: string; readonly code: Code } {
  const e = ConnectError.from(error);
  const message = e.rawMessage;
  const aboutInput =
    e.code === Code.InvalidArgument || e.code === Code.AlreadyExists || e.code === Code.NotFound;
  const rule = aboutInput ? rules.find((r) => r.match.test(message)) : undefined;
  return { field: rule?.field, message, code: e.code };
}

/** CreateUser and UpdateUser (users.ts checkUsername, passwords.ts checkPasswordPolicy). */
export const USER_FIELD_RULES: readonly FieldRule<
  "username" | "password" | "currentPassword" | "role" | "teamId"
>[] = [
  { field: "currentPassword", match: /^your current password / },
  { field: "username", match: /^username |^user \S+ already exists/ },
  { field: "password", match: /^the password /i },
  { field: "role", match: /^role /i },
  { field: "teamId", match: /^only members belong to a team|^team(_id)? /i },
];

/** CreateTeam and UpdateTeam (teamNameArg, normalizeDomainPattern, the domain uniqueness check). */
export const TEAM_FIELD_RULES: readonly FieldRule<"name" | "domains">[] = [
  { field: "name", match: /^team name |^team .+ already exists$/ },
  { field: "domains", match: /^domain (pattern )?/ },
];

/** AddTeamDomain: every refusal of its input is about the pattern. */
export const DOMAIN_FIELD_RULES: readonly FieldRule<"pattern">[] = [
  { field: "pattern", match: /^domain / },
];

/** CreateToken (tokens.ts createApiToken). */
export const TOKEN_FIELD_RULES: readonly FieldRule<"name" | "scopes" | "expiresInDays">[] = [
  { field: "name", match: /^a token name / },
  { field: "scopes", match: /scope/ },
  { field: "expiresInDays", match: /^expire_time / },
];
