import type { PrismaClient, TransactionClient } from "@switchyard/db";

/** The tables of stored objects: each row has an `id`, a `revision` and an `updatedAt`. */
export type ObjectTable =
  | "Cluster"
  | "Listener"
  | "RouteConfiguration"
  | "NodeGroup"
  | "RuntimeLayer"
  | "Secret";

/** A row as a RowCache loads it, and what the cache keeps of it (`value`). */
export interface LoadedRow<E> {
  readonly id: string;
  readonly revision: number;
  readonly updatedAt: Date;
  readonly value: E;
}

export interface RowCacheOptions<E> {
  readonly table: ObjectTable;
  /** Loads these rows (at most 10,000 ids at a time: Postgres' bind-parameter limit). */
  readonly load: (db: PrismaClient | TransactionClient, ids: string[]) => Promise<LoadedRow<E>[]>;
  readonly nameOf: (value: E) => string;
  /** Rows whose revision alone does not tell a change (node groups: membership cascades). */
  readonly alwaysReload?: boolean;
}

interface Cached<E> {
  readonly revision: number;
  readonly updatedAt: number;
  readonly value: E;
}

/**
 * A table's stored objects kept between reads and refreshed by row revision: every write to an
 * object increments its `revision` (draft-store.ts), so a read costs one query of ids, revisions
 * and updatedAt plus the rows that changed. updatedAt counts too: a write outside the draft (a
 * cluster's owner team) touches it alone. Rows are loaded with their own revision, so a write
 * landing between the two queries is seen at the next read, never recorded under an older
 * revision. Unchanged objects come back as the same instances (the compile memo and the list
 * calls rely on it); they are shared and must not be altered. A change made behind Switchyard's
 * back without a new revision or updatedAt is not seen until the server restarts.
 */
export class RowCache<E> {
  readonly #entries = new Map<string, Cached<E>>();
  readonly #options: RowCacheOptions<E>;

  constructor(options: RowCacheOptions<E>) {
    this.#options = options;
  }

  /** Every object of the table as `db` sees it, sorted by name. */
  async read(db: PrismaClient | TransactionClient): Promise<E[]> {
    const { table, load, nameOf, alwaysReload = false } = this.#options;
    const rows = await db.$queryRawUnsafe<Array<{ id: string; revision: number; updatedAt: Date }>>(
      `SELECT "id"::text AS id, "revision", "updatedAt" FROM "${table}"`,
    );
    const live = new Set<string>();
    const stale: string[] = [];
    const out: E[] = [];
    for (const row of rows) {
      live.add(row.id);
      const cached = this.#entries.get(row.id);
      if (
        !alwaysReload &&
        cached?.revision === row.revision &&
        cached.updatedAt === row.updatedAt.getTime()
      )
        out.push(cached.value);
      else stale.push(row.id);
    }
    for (const id of this.#entries.keys()) if (!live.has(id)) this.#entries.delete(id);
    for (let i = 0; i < stale.length; i += 10_000) {
      for (const row of await load(db, stale.slice(i, i + 10_000))) {
        const known = this.#entries.get(row.id);
        if (!known || known.revision <= row.revision)
          this.#entries.set(row.id, {
            revision: row.revision,
            updatedAt: row.updatedAt.getTime(),
            value: row.value,
          });
        out.push(row.value);
      }
    }
    return out.sort((a, b) => {
      const [x, y] = [nameOf(a), nameOf(b)];
      return x < y ? -1 : x > y ? 1 : 0;
    });
  }
}

/**
 * `make` once per object: for what is derived from a RowCache's values (an API message, an
 * inventory line), which come back as the same instances while their row is unchanged. The
 * results are shared: never alter them.
 */
export function perInstance<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}
