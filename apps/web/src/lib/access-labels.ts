import { Role, RoleSchema } from "@switchyard/proto/switchyard/v1/access_pb";
import { enumValueNames } from "./proto-enum";

/** A role as the console names it. */
export const ROLE_LABELS: Record<Role, string> = {
  [Role.UNSPECIFIED]: "unknown",
  [Role.ADMIN]: "admin",
  [Role.MEMBER]: "member",
  [Role.VIEWER]: "viewer",
};

/** The role select's options, with what each role may do (README "Roles and ownership"). */
export const ROLE_OPTIONS = [
  { value: String(Role.MEMBER), label: "Member: edits what their team owns" },
  { value: String(Role.VIEWER), label: "Viewer: reads" },
  { value: String(Role.ADMIN), label: "Admin: everything" },
] as const;

const roles: readonly Role[] = enumValueNames(RoleSchema, Role).map((name) => Role[name]);

/** A role select's value back as a Role; UNSPECIFIED for anything else. */
export function roleOf(value: string): Role {
  return roles.find((role) => role === Number(value)) ?? Role.UNSPECIFIED;
}

/** The API token scopes (server: auth/principal.ts TOKEN_SCOPES), with what each allows. */
export const TOKEN_SCOPES = [
  {
    scope: "config:read",
    label: "Read configuration",
    roles: [Role.ADMIN, Role.MEMBER, Role.VIEWER],
  },
  {
    scope: "status:read",
    label: "Read node status",
    roles: [Role.ADMIN, Role.MEMBER, Role.VIEWER],
  },
  { scope: "config:write", label: "Change configuration", roles: [Role.ADMIN, Role.MEMBER] },
  { scope: "publish", label: "Publish and roll back", roles: [Role.ADMIN, Role.MEMBER] },
  { scope: "admin", label: "Users, teams, ownership, audit", roles: [Role.ADMIN] },
] as const;

/** The scopes a user with `role` can use: a token never exceeds its user's role. */
export function scopesFor(role: Role): readonly (typeof TOKEN_SCOPES)[number][] {
  return TOKEN_SCOPES.filter((s) => (s.roles as readonly Role[]).includes(role));
}

/** A token's expiry choices, in days; 0: never. */
/** The server allows 90 days at most (SWITCHYARD_TOKEN_MAX_LIFETIME): no token lives forever. */
export const TOKEN_EXPIRY_DAYS = [
  { value: "90", label: "In 90 days" },
  { value: "30", label: "In 30 days" },
  { value: "7", label: "In 7 days" },
  { value: "1", label: "Tomorrow" },
] as const;
