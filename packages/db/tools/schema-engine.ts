// Prisma's schema engine, built to WASM (@prisma/schema-engine-wasm), driven over the pg driver
// adapter: the native engine cannot be downloaded here. Authoring only (see author-migration.ts);
// applying migrations does not need it (src/migrate.ts says why).

import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQueryable,
} from "@prisma/driver-adapter-utils";
import * as engineModule from "@prisma/schema-engine-wasm/schema_engine_bg";
import pg from "pg";

export type SchemaEngine = engineModule.SchemaEngine;

// The global exists in Node; its types come with TypeScript's DOM lib, which this package omits.
declare const WebAssembly: {
  instantiate(
    bytes: Uint8Array,
    imports: Record<string, object>,
  ): Promise<{ instance: { exports: Record<string, unknown> } }>;
};

let loaded: Promise<typeof engineModule> | undefined;

/**
 * The package's entry point imports the .wasm file as an ES module, which Node 20 cannot do; so
 * instantiate the module by hand and hand it to the wasm-bindgen glue, as that entry point would.
 */
function loadEngineModule(): Promise<typeof engineModule> {
  loaded ??= (async () => {
    const gluePath = createRequire(import.meta.url).resolve(
      "@prisma/schema-engine-wasm/schema_engine_bg",
    );
    const bytes = await readFile(gluePath.replace(/\.js$/, ".wasm"));
    const { instance } = await WebAssembly.instantiate(bytes, {
      "./schema_engine_bg.js": engineModule,
    });
    // Where the engine's Rust panics leave their message. It traps right after, in a task nobody
    // awaits ("RuntimeError: unreachable"), so say what happened now.
    (globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY = {
      set_message(message: string) {
        process.stderr.write(`The Prisma schema engine (WASM) panicked: ${message}\n`);
      },
    };
    engineModule.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return engineModule;
  })();
  return loaded;
}

/**
 * A schema engine working on the Postgres server at `serverUrl` (its database is the engine's
 * "main" database; shadow databases are created beside it). `close()` frees the engine and every
 * connection.
 */
export async function openSchemaEngine(
  serverUrl: string,
  schema: { readonly path: string; readonly content: string },
  log: (message: string) => void = () => {},
): Promise<{ engine: SchemaEngine; close(): Promise<void> }> {
  const { SchemaEngine } = await loadEngineModule();
  const adapters = new ExplicitShadowAdapterFactory(serverUrl);
  try {
    const engine = await SchemaEngine.new(
      { datamodels: [[schema.path, schema.content]] },
      log,
      bindMigrationAwareSqlAdapterFactory(adapters),
    );
    return {
      engine,
      async close() {
        engine.free();
        await adapters.close();
      },
    };
  } catch (error) {
    await adapters.close();
    throw error;
  }
}

/**
 * @prisma/adapter-pg's own factory, as of 7.10, is unfit for the schema engine in three ways,
 * each worked around here:
 * - given a connection string, its shadow database pool ignores the shadow database name (pg
 *   lets the string win) and silently works on the main database: here pools get explicit fields;
 * - it drops the shadow database while its pool still holds connections: here the pool ends first
 *   and the drop is FORCEd;
 * - it rejects Postgres `"char"` columns (OID 18: pg_constraint.contype and the like), which the
 *   engine's introspection selects and reads as Character values: see withCharColumns.
 */
class ExplicitShadowAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = "postgres";
  readonly adapterName = "@switchyard/db";
  readonly #server: pg.PoolConfig;
  readonly #database: string;
  readonly #pools = new Set<pg.Pool>();

  constructor(serverUrl: string) {
    const url = new URL(serverUrl);
    this.#server = {
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    };
    this.#database = decodeURIComponent(url.pathname.slice(1)) || "postgres";
  }

  async connect(): Promise<SqlDriverAdapter> {
    return withCharColumns(await new PrismaPg(this.#pool(this.#database)).connect());
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    const name = `prisma_shadow_${randomBytes(6).toString("hex")}`;
    await this.#admin(`CREATE DATABASE "${name}"`);
    const pool = this.#pool(name);
    const adapter = withCharColumns(await new PrismaPg(pool).connect());
    const release = adapter.dispose.bind(adapter);
    return Object.assign(adapter, {
      dispose: async () => {
        await release();
        await this.#end(pool);
        await this.#admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      },
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools].map((pool) => this.#end(pool)));
  }

  #pool(database: string): pg.Pool {
    const pool = new pg.Pool({ ...this.#server, database });
    pool.on("connect", disguiseCharColumns);
    this.#pools.add(pool);
    return pool;
  }

  async #end(pool: pg.Pool): Promise<void> {
    this.#pools.delete(pool);
    await pool.end();
  }

  async #admin(sql: string): Promise<void> {
    const client = new pg.Client({ ...this.#server, database: this.#database });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }
}

const CHAR_OID = 18;
const TEXT_OID = 25;

/** Result rows array -> indexes of its `"char"` columns, for withCharColumns to restore. */
const charColumns = new WeakMap<unknown[], number[]>();

type QueryCallback = (error: Error | null, result: unknown) => void;

/**
 * First half of the `"char"` fix, on each pg connection: report `"char"` result columns as text,
 * which adapter-pg accepts (the value, a one-character string, is the same), and remember which
 * they were, keyed by the rows array adapter-pg passes on unchanged.
 */
function disguiseCharColumns(client: pg.PoolClient): void {
  const original = client.query.bind(client) as (...args: unknown[]) => unknown;
  const disguise = (result: unknown): unknown => {
    for (const one of Array.isArray(result) ? result : [result]) {
      const { fields, rows } = (one ?? {}) as Partial<pg.QueryResult<unknown[]>>;
      const indexes: number[] = [];
      fields?.forEach((field, index) => {
        if (field.dataTypeID === CHAR_OID) {
          field.dataTypeID = TEXT_OID;
          indexes.push(index);
        }
      });
      if (indexes.length > 0 && rows) charColumns.set(rows, indexes);
    }
    return result;
  };
  const patched = (...args: unknown[]): unknown => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === "function") {
      args[last] = (error: Error | null, result: unknown) =>
        (callback as QueryCallback)(error, error ? result : disguise(result));
      return original(...args);
    }
    const returned = original(...args);
    return returned instanceof Promise ? returned.then(disguise) : returned;
  };
  client.query = patched as typeof client.query;
}

/** Second half: give the engine the Character column type it expects for those columns. */
function withCharColumns<T extends SqlQueryable>(queryable: T): T {
  const queryRaw = queryable.queryRaw.bind(queryable);
  queryable.queryRaw = async (query) => {
    const result = await queryRaw(query);
    for (const index of charColumns.get(result.rows) ?? []) {
      result.columnTypes[index] = ColumnTypeEnum.Character;
    }
    return result;
  };
  const adapter = queryable as T & Partial<SqlDriverAdapter>;
  if (adapter.startTransaction) {
    const startTransaction = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (isolationLevel) =>
      withCharColumns(await startTransaction(isolationLevel));
  }
  return queryable;
}
