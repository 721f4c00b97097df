/**
 * `switchyard user ...` and `switchyard team ...`: accounts and teams, for admins (reads with the
 * API token; the privileged changes on a session signed in with the admin's password: cli.ts).
 */
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import {
  type AccessService,
  Role,
  type Team,
  type User,
} from "@switchyard/proto/switchyard/v1/access_pb";
import { ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import { CliError } from "./errors.js";
import { type Output, table } from "./output.js";

type Access = Client<typeof AccessService>;

const ROLES: Record<string, Role> = {
  admin: Role.ADMIN,
  member: Role.MEMBER,
  viewer: Role.VIEWER,
};
const ROLE_NAMES: Record<Role, string> = {
  [Role.UNSPECIFIED]: "-",
  [Role.ADMIN]: "admin",
  [Role.MEMBER]: "member",
  [Role.VIEWER]: "viewer",
};

/** `--role`'s value as a Role; a CliError naming the choices otherwise. */
export function roleArg(value: string): Role {
  const role = ROLES[value.trim().toLowerCase()];
  if (role === undefined)
    throw new CliError(`--role ${JSON.stringify(value)}: use admin, member or viewer`);
  return role;
}

async function teamByName(access: Access, name: string): Promise<Team> {
  const { teams } = await access.listTeams({});
  const team = teams.find((t) => t.name === name);
  if (team === undefined)
    throw new CliError(
      `no team is named ${JSON.stringify(name)}; teams: ${teams.map((t) => t.name).join(", ") || "none yet"}`,
    );
  return team;
}

async function userByName(access: Access, username: string): Promise<User> {
  const { users } = await access.listUsers({});
  const user = users.find((u) => u.username === username.trim().toLowerCase());
  if (user === undefined) throw new CliError(`no user is named ${JSON.stringify(username)}`);
  return user;
}

/** A team option: "" (none) stays "", a name becomes that team's id. */
async function teamIdArg(access: Access, name: string): Promise<string> {
  return name === "" ? "" : (await teamByName(access, name)).id;
}

const when = (t: User["createTime"]) => (t ? timestampDate(t).toISOString() : "-");

export async function userList(access: Access, out: Output): Promise<void> {
  const { users } = await access.listUsers({});
  out.out(
    `${table(
      ["USERNAME", "ROLE", "TEAM", "STATUS", "LAST LOGIN", "CREATED"],
      users.map((u) => [
        u.username,
        ROLE_NAMES[u.role],
        u.teamName || "-",
        u.disableTime ? "disabled" : "active",
        when(u.lastLoginTime),
        when(u.createTime),
      ]),
    )}\n`,
  );
}

export interface UserCreateOptions {
  readonly role: string;
  readonly team?: string | undefined;
}

/** Creates an account; the password comes from standard input (never an argument: `ps`). */
export async function userCreate(
  access: Access,
  username: string,
  options: UserCreateOptions,
  password: string,
  out: Output,
): Promise<void> {
  const user = await access.createUser({
    username,
    password,
    role: roleArg(options.role),
    teamId: await teamIdArg(access, options.team ?? ""),
  });
  out.out(
    `Created ${user.username} (${ROLE_NAMES[user.role]}${user.teamName ? `, team ${user.teamName}` : ""}).\n`,
  );
}

export interface UserUpdateOptions {
  readonly role?: string | undefined;
  /** A team name, or "" for none. */
  readonly team?: string | undefined;
  readonly disable?: boolean | undefined;
  readonly enable?: boolean | undefined;
  readonly passwordStdin?: boolean | undefined;
}

/** `password`: the new one, read from standard input with --password-stdin. */
export async function userUpdate(
  access: Access,
  username: string,
  options: UserUpdateOptions,
  password: string | undefined,
  out: Output,
): Promise<void> {
  if (options.disable && options.enable)
    throw new CliError("--disable and --enable contradict each other: pass one");
  const user = await userByName(access, username);
  const updated = await access.updateUser({
    id: user.id,
    ...(options.role === undefined ? {} : { role: roleArg(options.role) }),
    ...(options.team === undefined ? {} : { teamId: await teamIdArg(access, options.team) }),
    ...(options.disable ? { disabled: true } : options.enable ? { disabled: false } : {}),
    ...(password === undefined ? {} : { password }),
  });
  out.out(
    `Updated ${updated.username}: ${ROLE_NAMES[updated.role]}` +
      `${updated.teamName ? `, team ${updated.teamName}` : ""}` +
      `${updated.disableTime ? ", disabled" : ""}` +
      `${password === undefined ? "" : ", new password (their sessions ended)"}.\n`,
  );
}

export async function teamList(access: Access, out: Output): Promise<void> {
  const { teams } = await access.listTeams({});
  out.out(
    `${table(
      ["NAME", "DOMAINS", "CLUSTERS", "SECRETS", "SHARED WITH IT", "MEMBERS", "REVIEW", "ROLLOUTS"],
      teams.map((t) => [
        t.name,
        t.domains.join(",") || "-",
        t.clusters.join(",") || "-",
        t.secrets.join(",") || "-",
        t.shared.map((o) => `${SHARE_KIND_WORDS.get(o.kind) ?? "?"}/${o.name}`).join(",") || "-",
        String(t.memberCount),
        t.requireReview ? "required" : "-",
        t.requireRollout ? "required" : "-",
      ]),
    )}\n`,
  );
}

export async function teamCreate(
  access: Access,
  name: string,
  options: { domain: string[]; requireReview?: boolean | undefined },
  out: Output,
): Promise<void> {
  const team = await access.createTeam({
    name,
    domains: options.domain,
    requireReview: options.requireReview === true,
  });
  out.out(
    `Created team ${team.name}${team.domains.length > 0 ? ` owning ${team.domains.join(", ")}` : ""}` +
      `${team.requireReview ? " (requires review)" : ""}.\n`,
  );
}

export interface TeamUpdateOptions {
  readonly rename?: string | undefined;
  readonly requireReview?: boolean | undefined;
  readonly requireRollout?: boolean | undefined;
}

export async function teamUpdate(
  access: Access,
  name: string,
  options: TeamUpdateOptions,
  out: Output,
): Promise<void> {
  if (
    options.rename === undefined &&
    options.requireReview === undefined &&
    options.requireRollout === undefined
  )
    throw new CliError(
      "nothing to change: pass --rename NAME, --[no-]require-review or --[no-]require-rollout",
    );
  const team = await teamByName(access, name);
  const updated = await access.updateTeam({
    id: team.id,
    ...(options.rename === undefined ? {} : { name: options.rename }),
    ...(options.requireReview === undefined ? {} : { requireReview: options.requireReview }),
    ...(options.requireRollout === undefined ? {} : { requireRollout: options.requireRollout }),
  });
  out.out(
    `Updated team ${updated.name}: ${updated.requireReview ? "requires review" : "members publish"}` +
      `${updated.requireRollout ? "; its changes are to go out as rollouts" : ""}.\n`,
  );
}

export async function teamDomain(
  access: Access,
  change: "add" | "remove",
  name: string,
  pattern: string,
  out: Output,
): Promise<void> {
  const team = await teamByName(access, name);
  const request = { teamId: team.id, pattern };
  const updated =
    change === "add" ? await access.addTeamDomain(request) : await access.removeTeamDomain(request);
  out.out(`Team ${updated.name} owns: ${updated.domains.join(", ") || "no domain"}.\n`);
}

/** `switchyard team set-secret-owner SECRET TEAM` (TEAM "" : no owner). */
export async function secretOwner(
  access: Access,
  secret: string,
  teamName: string,
  out: Output,
): Promise<void> {
  await access.setSecretOwner({ secret, teamId: await teamIdArg(access, teamName) });
  out.out(
    teamName === ""
      ? `Secret ${secret} is owned by no team.\n`
      : `Secret ${secret} is owned by team ${teamName}: its clusters may name it.\n`,
  );
}

/** The kinds `switchyard share` takes, as the command line writes them. */
export const SHARE_KINDS: ReadonlyMap<string, ResourceKind> = new Map([
  ["cluster", ResourceKind.CLUSTER],
  ["secret", ResourceKind.SECRET],
  ["listener", ResourceKind.LISTENER],
  ["route-configuration", ResourceKind.ROUTE_CONFIGURATION],
]);

const SHARE_KIND_WORDS = new Map([...SHARE_KINDS].map(([word, kind]) => [kind, word]));

/**
 * `switchyard share KIND NAME --team T...` (or `--none`): the teams besides its owner whose
 * objects may name it.
 */
export async function share(
  access: Access,
  kindWord: string,
  name: string,
  options: { team: string[]; none?: boolean | undefined },
  out: Output,
): Promise<void> {
  const kind = SHARE_KINDS.get(kindWord);
  if (kind === undefined)
    throw new CliError(
      `${JSON.stringify(kindWord)} is not something a team can name: use ${[...SHARE_KINDS.keys()].join(", ")}`,
    );
  if (options.team.length === 0 && options.none !== true)
    throw new CliError(
      "name the teams it is shared with (--team TEAM, repeated), or --none to share it with no team",
    );
  if (options.team.length > 0 && options.none === true)
    throw new CliError("--none and --team contradict each other: give one");
  const teamIds = await Promise.all(options.team.map((t) => teamIdArg(access, t)));
  const sharing = await access.setSharing({ kind, name, teamIds });
  out.out(
    sharing.teams.length === 0
      ? `${kindWord} ${name} is shared with no team: only its owner's objects may name it.\n`
      : `${kindWord} ${name} is shared with team${sharing.teams.length > 1 ? "s" : ""} ${sharing.teams.join(", ")}.\n`,
  );
}

export async function teamDelete(access: Access, name: string, out: Output): Promise<void> {
  const team = await teamByName(access, name);
  await access.deleteTeam({ id: team.id });
  out.out(
    `Deleted team ${team.name}: ${team.memberCount} member(s) left without a team, ` +
      `${team.clusters.length} cluster(s) unowned.\n`,
  );
}

/** `switchyard team set-owner CLUSTER TEAM` (TEAM "" : no owner). */
export async function clusterOwner(
  access: Access,
  cluster: string,
  teamName: string,
  out: Output,
): Promise<void> {
  await access.setClusterOwner({ cluster, teamId: await teamIdArg(access, teamName) });
  out.out(
    teamName === ""
      ? `Cluster ${cluster} is owned by no team.\n`
      : `Cluster ${cluster} is owned by team ${teamName}.\n`,
  );
}
