import type { CallerRole } from "./nav-roles";
import type { resourceKindLabels } from "./resource-kinds";

/*
 * What the console offers to change, per role and ownership (README "Roles and ownership";
 * server: packages/server/src/auth/authorize.ts). It only decides which controls to show: the
 * server checks every call against the objects as stored, whatever the page offered.
 */

/** The configuration kinds, as the editors and lists name them: one per ResourceKind. */
export type ConfigKindLabel = (typeof resourceKindLabels)[keyof typeof resourceKindLabels];

export interface Writer {
  readonly role: CallerRole | undefined;
  /** A member's team, with the clusters it owns (WhoAmI). */
  readonly team?: { readonly name: string; readonly clusters: readonly string[] } | undefined;
}

export type WriteAccess =
  | { readonly t: "allowed" }
  /** The role is not known yet (WhoAmI under way): offer nothing new, take nothing away. */
  | { readonly t: "unknown" }
  /** `reason` says why, and who can change it, in one sentence. */
  | { readonly t: "denied"; readonly reason: string };

const ALLOWED: WriteAccess = { t: "allowed" };
const denied = (reason: string): WriteAccess => ({ t: "denied", reason });

/**
 * Whether `writer` may change the object `name` of `kind` (create one when `name` is undefined).
 * While the role is unknown the answer is "unknown". A member's route configuration is offered:
 * each virtual host in it is their team's or not (virtualHostAccess), and the server checks each.
 */
export function writeAccess(writer: Writer, kind: ConfigKindLabel, name?: string): WriteAccess {
  switch (writer.role) {
    case undefined:
      return { t: "unknown" };
    case "admin":
      return ALLOWED;
    case "viewer":
      return denied("You have read-only access (viewer): an admin or a team member changes this.");
    case "member":
      break;
  }
  // Members change clusters and routes only; any other kind (one added to the proto too): admins.
  if (kind !== "cluster" && kind !== "route configuration")
    return denied(`Only admins change ${kind}s; members change their team’s routes and clusters.`);
  if (writer.team === undefined)
    return denied("You are in no team yet: an admin adds you to the team that owns this.");
  if (kind === "cluster" && name !== undefined && !writer.team.clusters.includes(name))
    return denied(
      `Cluster “${name}” is not owned by team ${writer.team.name}: an admin assigns clusters to teams.`,
    );
  return ALLOWED;
}

/**
 * Whether `writer` may change (or remove) the virtual host `name` of a route configuration. The
 * server names its owner by its domains (VirtualHost.owner_team, "" when no single team's patterns
 * cover them all); `ownerTeam` is undefined for a virtual host not saved yet, whose domains the
 * server checks when it is saved. Only a member's answer depends on the owner.
 */
export function virtualHostAccess(
  writer: Writer,
  name: string,
  ownerTeam: string | undefined,
): WriteAccess {
  const access = writeAccess(writer, "route configuration");
  if (access.t !== "allowed" || writer.role !== "member" || ownerTeam === undefined) return access;
  if (ownerTeam === writer.team?.name) return ALLOWED;
  return denied(
    ownerTeam === ""
      ? `Virtual host “${name}” is owned by no team (no one team’s domain patterns cover all its domains): an admin assigns domains.`
      : `Virtual host “${name}” is owned by team ${ownerTeam}: its members or an admin change it.`,
  );
}

/**
 * Whether `writer` may delete a whole route configuration: a member only when every one of its
 * virtual hosts is their team's (the server checks each, as for any change).
 */
export function routeConfigDeleteAccess(
  writer: Writer,
  virtualHosts: readonly { readonly name: string; readonly ownerTeam: string }[],
): WriteAccess {
  for (const vh of virtualHosts) {
    const access = virtualHostAccess(writer, vh.name, vh.ownerTeam);
    if (access.t === "denied") return access;
  }
  return writeAccess(writer, "route configuration");
}
