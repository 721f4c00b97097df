import type { CallerRole } from "./nav-roles";

/*
 * What the console offers to change, per role and ownership (README "Roles and ownership";
 * server: packages/server/src/auth/authorize.ts). It only decides which controls to show: the
 * server checks every call against the objects as stored, whatever the page offered.
 */

/** The configuration kinds, as the editors and lists name them. */
export type ConfigKindLabel =
  | "cluster"
  | "route configuration"
  | "listener"
  | "node group"
  | "runtime layer";

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
 * While the role is unknown the answer is "unknown". A member's route configuration is offered: the
 * server decides per virtual host, by domain, and refuses another team's.
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
  if (kind === "listener" || kind === "node group" || kind === "runtime layer")
    return denied(`Only admins change ${kind}s; members change their team’s routes and clusters.`);
  if (writer.team === undefined)
    return denied("You are in no team yet: an admin adds you to the team that owns this.");
  if (kind === "cluster" && name !== undefined && !writer.team.clusters.includes(name))
    return denied(
      `Cluster “${name}” is not owned by team ${writer.team.name}: an admin assigns clusters to teams.`,
    );
  return ALLOWED;
}
