/**
 * Pruning (`switchyard apply --prune`): which stored objects an apply deletes because the files do
 * not hold them. Pure: the handlers load each object's owner team and pass it in.
 *
 * What may be pruned is what Envoy documents hold (clusters, listeners, route configurations,
 * secrets, runtime layers; never node groups, which only Switchyard has), narrowed by a selector
 * and, for a member, by ownership: a member's prune covers only their team's objects, so it never
 * deletes another team's clusters or the objects only admins write.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { SourceKind } from "@switchyard/snapshot";

/** The kinds an Envoy document holds, in the order deletions are made (referrers first). */
export const PRUNABLE_KINDS: readonly SourceKind[] = [
  "listener",
  "routeConfiguration",
  "cluster",
  "runtimeLayer",
  "secret",
];

const KIND_NAMES: Readonly<Record<string, SourceKind>> = {
  cluster: "cluster",
  listener: "listener",
  route: "routeConfiguration",
  routeconfiguration: "routeConfiguration",
  runtime: "runtimeLayer",
  runtimelayer: "runtimeLayer",
  secret: "secret",
};

/** Every term an object must match; an absent term matches everything. */
export interface PruneSelector {
  readonly kind?: SourceKind;
  readonly team?: string;
  /** A name, or a prefix when `prefix` is set (the selector's value ended in "*"). */
  readonly name?: { readonly value: string; readonly prefix: boolean };
}

const invalid = (message: string) => new ConnectError(message, Code.InvalidArgument);

/**
 * Parses "kind=cluster,team=payments,name=payments-*". Throws InvalidArgument naming the term
 * it cannot read.
 */
export function parseSelector(text: string): PruneSelector {
  const selector: { kind?: SourceKind; team?: string; name?: NonNullable<PruneSelector["name"]> } =
    {};
  const terms = text.split(",").map((term) => term.trim());
  if (terms.length === 1 && terms[0] === "") return selector;
  for (const term of terms) {
    const match = /^([a-z]+)\s*=\s*(\S+)$/.exec(term);
    if (!match) throw invalid(`selector term "${term}" is not KEY=VALUE (kind, team or name)`);
    const [, key, value = ""] = match;
    if (key !== undefined && key in selector)
      throw invalid(`selector names "${key}" twice: an object matches one value of each key`);
    switch (key) {
      case "kind": {
        const kind = KIND_NAMES[value.toLowerCase().replace(/[-_]/g, "").replace(/s$/, "")];
        if (kind === undefined)
          throw invalid(
            `selector kind "${value}" is not a kind an apply prunes: cluster, listener, route, runtime or secret`,
          );
        selector.kind = kind;
        break;
      }
      case "team":
        selector.team = value;
        break;
      case "name":
        selector.name = value.endsWith("*")
          ? { value: value.slice(0, -1), prefix: true }
          : { value, prefix: false };
        break;
      default:
        throw invalid(`selector key "${key}" is unknown: use kind, team or name`);
    }
  }
  return selector;
}

/** A stored object a prune could delete, with the team owning it (null: admins'). */
export interface PruneCandidate {
  readonly kind: SourceKind;
  readonly name: string;
  readonly team: string | null;
}

function matches(selector: PruneSelector, candidate: PruneCandidate): boolean {
  if (selector.kind !== undefined && candidate.kind !== selector.kind) return false;
  if (selector.team !== undefined && candidate.team !== selector.team) return false;
  const name = selector.name;
  if (name !== undefined) {
    if (name.prefix ? !candidate.name.startsWith(name.value) : candidate.name !== name.value)
      return false;
  }
  return true;
}

/**
 * The selector a caller's prune runs with: a member's is narrowed to their team (refused when it
 * names another, or when they have none); an admin's is as given.
 */
export function callerSelector(
  selector: PruneSelector,
  caller: { readonly role: string; readonly team: { readonly name: string } | null },
): PruneSelector {
  if (caller.role === "ADMIN") return selector;
  if (caller.team === null)
    throw new ConnectError(
      "only a team's member or an admin prunes: you are in no team",
      Code.PermissionDenied,
    );
  if (selector.team !== undefined && selector.team !== caller.team.name)
    throw new ConnectError(
      `a member prunes only their own team's objects: team=${selector.team} is not team ${caller.team.name}`,
      Code.PermissionDenied,
    );
  return { ...selector, team: caller.team.name };
}

/**
 * What a prune deletes: the candidates the selector covers that the applied content does not
 * hold (`kept`: "kind/name" keys), in deletion order.
 */
export function prunedObjects(
  candidates: readonly PruneCandidate[],
  kept: ReadonlySet<string>,
  selector: PruneSelector,
): PruneCandidate[] {
  const pruned = candidates.filter(
    (candidate) =>
      PRUNABLE_KINDS.includes(candidate.kind) &&
      !kept.has(`${candidate.kind}/${candidate.name}`) &&
      matches(selector, candidate),
  );
  return pruned.sort(
    (a, b) =>
      PRUNABLE_KINDS.indexOf(a.kind) - PRUNABLE_KINDS.indexOf(b.kind) ||
      a.name.localeCompare(b.name),
  );
}

/**
 * Refuses a prune that would delete what its caller did not list (Prune.listed): the stored
 * configuration changed between the dry run that listed the deletions and the apply.
 */
export function assertListed(
  pruned: readonly PruneCandidate[],
  listed: readonly { readonly kind: SourceKind; readonly name: string }[],
): void {
  const shown = new Set(listed.map((object) => `${object.kind}/${object.name}`));
  const unlisted = pruned.filter((object) => !shown.has(`${object.kind}/${object.name}`));
  if (unlisted.length > 0)
    throw new ConnectError(
      `the prune would also delete ${unlisted.map((o) => `${o.kind} "${o.name}"`).join(", ")}, which was not listed: the configuration changed since; run the apply again`,
      Code.Aborted,
    );
}
