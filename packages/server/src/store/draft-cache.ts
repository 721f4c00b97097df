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
  specOfSource,
} from "@switchyard/snapshot";
import { rowsById, type Stored } from "./config-store.js";
import { type LoadedRow, type ObjectTable, RowCache } from "./row-cache.js";

/** One stored object as the draft cache keeps it: its canonical spec and source object. */
interface Entry<T> {
  /** Parsed from `source.json`: object keys in canonical (sorted) order, an immutable instance. */
  readonly spec: T;
  readonly source: SourceObject;
}

/** A kind's rows of the draft, by revision (row-cache.ts), as canonical specs and sources. */
function kindCache<T extends { name: string }>(
  kind: SourceKind,
  table: ObjectTable,
  load: (db: TransactionClient, ids: string[]) => Promise<LoadedRow<Stored<T>>[]>,
  alwaysReload = false,
): RowCache<Entry<T>> {
  return new RowCache<Entry<T>>({
    table,
    alwaysReload,
    nameOf: (entry) => entry.spec.name,
    load: async (db, ids) =>
      (await load(db, ids)).map((row) => {
        const source = sourceObject(kind, row.value.spec.name, row.value.spec);
        return { ...row, value: { spec: specOfSource(kind, source.json) as T, source } };
      }),
  });
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

  readonly #clusters = kindCache<ClusterSpec>("cluster", "Cluster", rowsById.cluster);
  readonly #listeners = kindCache<ListenerSpec>("listener", "Listener", rowsById.listener);
  readonly #routeConfigurations = kindCache<RouteConfigurationSpec>(
    "routeConfiguration",
    "RouteConfiguration",
    rowsById.routeConfiguration,
  );
  readonly #nodeGroups = kindCache<NodeGroupSpec>(
    "nodeGroup",
    "NodeGroup",
    rowsById.nodeGroup,
    true,
  );
  readonly #runtimeLayers = kindCache<RuntimeLayerSpec>(
    "runtimeLayer",
    "RuntimeLayer",
    rowsById.runtimeLayer,
  );
  readonly #secrets = kindCache<SecretSpec>("secret", "Secret", rowsById.secret);

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
