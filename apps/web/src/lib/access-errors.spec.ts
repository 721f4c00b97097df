import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import {
  accessFailureOf,
  DOMAIN_FIELD_RULES,
  TEAM_FIELD_RULES,
  TOKEN_FIELD_RULES,
  USER_FIELD_RULES,
} from "./access-errors";

const refused = (message: string, code = Code.InvalidArgument) => new ConnectError(message, code);

// The messages are the server's own (packages/server/src/auth/users.ts, passwords.ts, tokens.ts,
// ownership.ts and access/access-service.ts); the console tests pin them end to end.
describe("a refused access call's message goes to the field it concerns", () => {
  it.each([
    ["the password is 5 characters long; use at least 12", "password"],
    ["the password is too easy to guess (strength 0 of 4, at least 3 needed): ...", "password"],
    ['the password contains the username "sam", the first thing an attacker tries', "password"],
    [
      'username "Bad Name" must be 1 to 64 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit',
      "username",
    ],
    ["role is required: admin, member or viewer", "role"],
    ["only members belong to a team; vic would be viewer", "teamId"],
  ])("user: %s → %s", (message, field) => {
    expect(accessFailureOf(refused(message), USER_FIELD_RULES).field).toBe(field);
  });

  it("a taken username is the username's problem", () => {
    const failure = accessFailureOf(
      refused("user sam already exists", Code.AlreadyExists),
      USER_FIELD_RULES,
    );
    expect(failure).toEqual({
      field: "username",
      message: "user sam already exists",
      code: Code.AlreadyExists,
    });
  });

  it.each([
    ['team name "" must be 1 to 64 characters without control characters', "name"],
    ["team shop already exists", "name"],
    [
      'domain pattern "shop..com" is neither a host name ("api.example.com") nor a wildcard below one ("*.example.com")',
      "domains",
    ],
    ["domain *.shop.example.com already belongs to team shop", "domains"],
  ])("team: %s → %s", (message, field) => {
    expect(accessFailureOf(refused(message), TEAM_FIELD_RULES).field).toBe(field);
  });

  it("every refusal of a domain to add is the pattern's", () => {
    for (const message of [
      'domain pattern "not a domain" is neither a host name ("api.example.com") nor a wildcard below one ("*.example.com")',
      "domain *.shop.example.com already belongs to team shop: remove it there first",
    ])
      expect(accessFailureOf(refused(message), DOMAIN_FIELD_RULES).field).toBe("pattern");
  });

  it.each([
    ["a token name is 1 to 100 characters", "name"],
    [
      "a token needs at least one scope (config:read, config:write, publish, status:read, admin)",
      "scopes",
    ],
  ])("token: %s → %s", (message, field) => {
    expect(accessFailureOf(refused(message), TOKEN_FIELD_RULES).field).toBe(field);
  });

  it("a refusal that is not about the input (permission, server error) is the whole form's", () => {
    const denied = accessFailureOf(
      refused("the password is wrong", Code.PermissionDenied),
      USER_FIELD_RULES,
    );
    expect(denied.field).toBeUndefined();
    expect(denied.message).toBe("the password is wrong");
    expect(accessFailureOf(new Error("Failed to fetch"), USER_FIELD_RULES).field).toBeUndefined();
  });
});
