import type { TransactionClient } from "@switchyard/db";
import {
  type ClusterSpec,
  type CompileMemo,
  type ConfigSpec,
  type ListenerSpec,
  type NodeGroupSpec,
  type RouteConfigurationSpec,
  type RuntimeLayerSpec,
  type SecretSpec,
  type SourceKind,
  type SourceObject,
  sourceObject,
} from "@switchyard/snapshot";
import {
  clusterInclude,
  clusterSpecOfRow,
  listenerInclude,
  listenerSpecOfRow,
  nodeGroupInclude,
  nodeGroupSpecOfRow,
  routeConfigurationInclude,
  routeConfigurationSpecOfRow,
  runtimeLayerSpecOfRow,
  secretSpecOfRow,
} from "./config-store.js";

/** One stored object as last read: its row revision, canonical spec and source object. */
interface Entry<T> {
  readonly revision: number;
  /** Parsed from `source.json`: object keys in canonical (sorted) order, an immutable instance. */
  readonly spec: T;
  readonly source: SourceObject;
}

interface KindReader<T> {
  readonly kind: SourceKind;
  readonly table:
    | "Cluster"
    | "Listener"
    | "RouteConfiguration"
    | "NodeGroup"
    | "RuntimeLayer"
    | "Secret";
  /** Rows whose revision alone does not tell a change (node groups: membership cascades). */
  readonly alwaysReload: boolean;
  load(
    db: TransactionClient,
    ids: readonly string[],
  ): Promise<Array<{ id: string; revision: number; spec: T }>>;
}

const byName = (a: { name: string }, b: { name: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** A row set as huge `IN` lists would exceed Postgres' bind-parameter limit: load in chunks. */
async function inChunks<R>(
  ids: readonly string[],
  load: (chunk: string[]) => Promise<R[]>,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < ids.length; i += 10_000) out.push(...(await load(ids.slice(i, i + 10_000))));
  return out;
}

class KindCache<T extends { name: string }> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #reader: KindReader<T>;

  constructor(reader: KindReader<T>) {
    this.#reader = reader;
  }

  /**
   * The kind's objects as the transaction `db` sees them, loading only rows that are new or whose
   * revision changed since last read. Unchanged objects come back as the same instances.
   */
  async read(db: TransactionClient): Promise<Entry<T>[]> {
    const rows = await db.$queryRawUnsafe<Array<{ id: string; revision: number }>>(
      `SELECT "id"::text AS id, "revision" FROM "${this.#reader.table}"`,
    );
    const result: Entry<T>[] = [];
    const stale: string[] = [];
    const live = new Set<string>();
    for (const row of rows) {
      live.add(row.id);
      const entry = this.#entries.get(row.id);
      if (entry && entry.revision === row.revision && !this.#reader.alwaysReload)
        result.push(entry);
      else stale.push(row.id);
    }
    for (const id of this.#entries.keys()) if (!live.has(id)) this.#entries.delete(id);
    const loaded = await inChunks(stale, (chunk) => this.#reader.load(db, chunk));
    for (const row of loaded) {
      const source = sourceObject(this.#reader.kind, row.spec.name, row.spec);
      const entry: Entry<T> = {
        revision: row.revision,
        spec: JSON.parse(source.json) as T,
        source,
      };
      const known = this.#entries.get(row.id);
      if (!known || known.revision <= row.revision) this.#entries.set(row.id, entry);
      result.push(entry);
    }
    return result.sort((a, b) => byName(a.spec, b.spec));
  }
}

/** A consistent read of the draft, with what publishing it needs. */
export interface DraftRead {
  /** Canonical spec: unchanged objects are the same instances from one read to the next. */
  readonly spec: ConfigSpec;
  /** Source objects in kind then name order (as `sourceObjects(spec)` gives). */
  readonly objects: readonly SourceObject[];
}

/**
 * The server's copy of the draft, refreshed per transaction by row revision: publishing a
 * one-object change on a fleet-sized config reads and compiles one object, not all of them.
 * Every write to the draft increments the object's `revision` (see draft-store.ts); a change made
 * behind Switchyard's back without doing so is not seen until the server restarts.
 */
export class DraftCache {
  /** Remembers encodings of unchanged spec instances across compiles (see CompileMemo). */
  readonly memo: CompileMemo = new WeakMap();

  readonly #clusters = new KindCache<ClusterSpec>({
    kind: "cluster",
    table: "Cluster",
    alwaysReload: false,
    load: async (db, ids) =>
      (await db.cluster.findMany({ where: { id: { in: [...ids] } }, include: clusterInclude })).map(
        (row) => ({ id: row.id, revision: row.revision, spec: clusterSpecOfRow(row) }),
      ),
  });
  readonly #listeners = new KindCache<ListenerSpec>({
    kind: "listener",
    table: "Listener",
    alwaysReload: false,
    load: async (db, ids) =>
      (
        await db.listener.findMany({ where: { id: { in: [...ids] } }, include: listenerInclude })
      ).map((row) => ({ id: row.id, revision: row.revision, spec: listenerSpecOfRow(row) })),
  });
  readonly #routeConfigurations = new KindCache<RouteConfigurationSpec>({
    kind: "routeConfiguration",
    table: "RouteConfiguration",
    alwaysReload: false,
    load: async (db, ids) =>
      (
        await db.routeConfiguration.findMany({
          where: { id: { in: [...ids] } },
          include: routeConfigurationInclude,
        })
      ).map((row) => ({
        id: row.id,
        revision: row.revision,
        spec: routeConfigurationSpecOfRow(row),
      })),
  });
  readonly #nodeGroups = new KindCache<NodeGroupSpec>({
    kind: "nodeGroup",
    table: "NodeGroup",
    alwaysReload: true,
    load: async (db, ids) =>
      (
        await db.nodeGroup.findMany({ where: { id: { in: [...ids] } }, include: nodeGroupInclude })
      ).map((row) => ({ id: row.id, revision: row.revision, spec: nodeGroupSpecOfRow(row) })),
  });

  readonly #runtimeLayers = new KindCache<RuntimeLayerSpec>({
    kind: "runtimeLayer",
    table: "RuntimeLayer",
    alwaysReload: false,
    load: async (db, ids) =>
      (await db.runtimeLayer.findMany({ where: { id: { in: [...ids] } } })).map((row) => ({
        id: row.id,
        revision: row.revision,
        spec: runtimeLayerSpecOfRow(row),
      })),
  });

  readonly #secrets = new KindCache<SecretSpec>({
    kind: "secret",
    table: "Secret",
    alwaysReload: false,
    load: async (db, ids) =>
      (await db.secret.findMany({ where: { id: { in: [...ids] } } })).map((row) => ({
        id: row.id,
        revision: row.revision,
        spec: secretSpecOfRow(row),
      })),
  });

  /** Reads the draft as transaction `db` sees it (run it in a repeatable-read transaction). */
  async read(db: TransactionClient): Promise<DraftRead> {
    // One after another: a transaction is one connection, which runs one query at a time.
    const clusters = await this.#clusters.read(db);
    const listeners = await this.#listeners.read(db);
    const routeConfigurations = await this.#routeConfigurations.read(db);
    const nodeGroups = await this.#nodeGroups.read(db);
    const runtimeLayers = await this.#runtimeLayers.read(db);
    const secrets = await this.#secrets.read(db);
    return {
      spec: {
        clusters: clusters.map((e) => e.spec),
        listeners: listeners.map((e) => e.spec),
        routeConfigurations: routeConfigurations.map((e) => e.spec),
        nodeGroups: nodeGroups.map((e) => e.spec),
        runtimeLayers: runtimeLayers.map((e) => e.spec),
        secrets: secrets.map((e) => e.spec),
      },
      objects: [
        ...clusters,
        ...listeners,
        ...routeConfigurations,
        ...nodeGroups,
        ...runtimeLayers,
        ...secrets,
      ].map((e) => e.source),
    };
  }
}
