import type { PrismaClient, TransactionClient } from "@switchyard/db";
import type { Stored } from "./config-store.js";

interface Cached<T> {
  readonly revision: number;
  readonly stored: Stored<T>;
}

/** One kind's rows as a list reads them: id, row revision, and the object. */
export interface ListRow<T> {
  readonly id: string;
  readonly revision: number;
  readonly stored: Stored<T>;
}

/**
 * A kind's stored objects for the List* calls, kept between calls and refreshed by row revision
 * (every write to an object increments its `revision`: draft-store.ts), as the draft cache does
 * for publishing (draft-cache.ts). A list of 5,000 routes then costs one query of ids and
 * revisions and the rows that changed, not every route through Prisma on every call. Rows are
 * read with their own revision, so a write landing between the two queries is seen next time,
 * never recorded under an older revision. Specs are immutable and shared: callers map them to
 * messages and must not alter them.
 */
export class ListCache<T extends { readonly name: string }> {
  readonly #entries = new Map<string, Cached<T>>();
  readonly #table: string;
  readonly #load: (db: PrismaClient | TransactionClient, ids: string[]) => Promise<ListRow<T>[]>;

  constructor(
    table: "Cluster" | "RouteConfiguration",
    load: (db: PrismaClient | TransactionClient, ids: string[]) => Promise<ListRow<T>[]>,
  ) {
    this.#table = table;
    this.#load = load;
  }

  /** Every object of the kind, sorted by name. */
  async list(db: PrismaClient | TransactionClient): Promise<Stored<T>[]> {
    const rows = await db.$queryRawUnsafe<Array<{ id: string; revision: number; updatedAt: Date }>>(
      `SELECT "id"::text AS id, "revision", "updatedAt" FROM "${this.#table}"`,
    );
    const live = new Set<string>();
    const stale: string[] = [];
    const out: Stored<T>[] = [];
    for (const row of rows) {
      live.add(row.id);
      const cached = this.#entries.get(row.id);
      // updatedAt too: a write outside the draft (a cluster's owner team) touches it alone.
      if (
        cached?.revision === row.revision &&
        cached.stored.updatedAt.getTime() === row.updatedAt.getTime()
      )
        out.push(cached.stored);
      else stale.push(row.id);
    }
    for (const id of this.#entries.keys()) if (!live.has(id)) this.#entries.delete(id);
    for (let i = 0; i < stale.length; i += 10_000) {
      for (const row of await this.#load(db, stale.slice(i, i + 10_000))) {
        const known = this.#entries.get(row.id);
        if (!known || known.revision <= row.revision)
          this.#entries.set(row.id, { revision: row.revision, stored: row.stored });
        out.push(row.stored);
      }
    }
    return out.sort((a, b) => (a.spec.name < b.spec.name ? -1 : a.spec.name > b.spec.name ? 1 : 0));
  }
}
