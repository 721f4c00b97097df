import type { PrismaClient } from "@switchyard/db";

/**
 * The fleet's convergence timeline: how each published version converged, from the tallies every
 * replica writes (XdsVersionConvergence, fleet/status-writer.ts). `sumTallies` is the pure part:
 * it adds up the replicas' counts and finds when 50/99/100% of all targets held the version.
 */

export const DEFAULT_TIMELINE_VERSIONS = 30;
export const MAX_TIMELINE_VERSIONS = 200;

/** One replica's tally of one version, as stored. */
export interface StoredTally {
  readonly targeted: number;
  /** Ascending. */
  readonly convergedMs: readonly number[];
  readonly nacked: number;
  readonly nackedEver: number;
  readonly firstNackAt: number | null;
  readonly updatedAt: number;
}

export interface VersionConvergence {
  readonly version: number;
  readonly publishedAt: number;
  readonly targeted: number;
  readonly converged: number;
  readonly alreadyHeld: number;
  readonly nacked: number;
  readonly nackedEver: number;
  readonly firstNackAt: number | undefined;
  /** Publish → when half, 99% and all of the targets held the version; undefined until then. */
  readonly msTo50: number | undefined;
  readonly msTo99: number | undefined;
  readonly msTo100: number | undefined;
  readonly replicas: number;
  readonly updatedAt: number | undefined;
}

/**
 * The version's convergence over every replica. The time to a share of the targets is the
 * converged time of the target at that rank (nearest rank: the ceil(share × targeted)-th to
 * converge); undefined while fewer have.
 */
export function sumTallies(
  version: number,
  publishedAt: number,
  tallies: readonly StoredTally[],
): VersionConvergence {
  let targeted = 0;
  let nacked = 0;
  let nackedEver = 0;
  let firstNackAt: number | undefined;
  let updatedAt: number | undefined;
  for (const tally of tallies) {
    targeted += tally.targeted;
    nacked += tally.nacked;
    nackedEver += tally.nackedEver;
    if (
      tally.firstNackAt !== null &&
      (firstNackAt === undefined || tally.firstNackAt < firstNackAt)
    )
      firstNackAt = tally.firstNackAt;
    if (updatedAt === undefined || tally.updatedAt > updatedAt) updatedAt = tally.updatedAt;
  }
  // Every replica's converged times, ascending (a few lists of at most a fleet's nodes).
  const times = tallies.flatMap((tally) => tally.convergedMs).sort((a, b) => a - b);
  const at = (share: number): number | undefined =>
    targeted === 0 ? undefined : times[Math.max(1, Math.ceil(share * targeted)) - 1];
  let alreadyHeld = 0;
  while (alreadyHeld < times.length && times[alreadyHeld] === 0) alreadyHeld += 1;
  return {
    version,
    publishedAt,
    targeted,
    converged: times.length,
    alreadyHeld,
    nacked,
    nackedEver,
    firstNackAt,
    msTo50: at(0.5),
    msTo99: at(0.99),
    msTo100: at(1),
    replicas: tallies.length,
    updatedAt,
  };
}

/**
 * The convergence of the newest `limit` published versions (older than `beforeVersion` when
 * given), newest first: two reads, the versions and their tallies.
 */
export async function readVersionConvergence(
  prisma: PrismaClient,
  options: { readonly limit: number; readonly beforeVersion?: number | undefined },
): Promise<VersionConvergence[]> {
  const versions = await prisma.snapshot.findMany({
    where: options.beforeVersion === undefined ? {} : { version: { lt: options.beforeVersion } },
    orderBy: { version: "desc" },
    take: options.limit,
    select: { version: true, createdAt: true },
  });
  if (versions.length === 0) return [];
  const rows = await prisma.xdsVersionConvergence.findMany({
    where: { version: { in: versions.map((v) => v.version) } },
  });
  const byVersion = new Map<number, StoredTally[]>();
  for (const row of rows) {
    let tallies = byVersion.get(row.version);
    if (tallies === undefined) {
      tallies = [];
      byVersion.set(row.version, tallies);
    }
    tallies.push({
      targeted: row.targeted,
      convergedMs: row.convergedMs,
      nacked: row.nacked,
      nackedEver: row.nackedEver,
      firstNackAt: row.firstNackAt?.getTime() ?? null,
      updatedAt: row.updatedAt.getTime(),
    });
  }
  return versions.map((v) =>
    sumTallies(v.version, v.createdAt.getTime(), byVersion.get(v.version) ?? []),
  );
}
