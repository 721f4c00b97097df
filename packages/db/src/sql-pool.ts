import pg from "pg";
import type { Prisma } from "../generated/prisma/client.js";

/**
 * A `pg` pool of its own, for the one write that is on the hot path of a fleet: node status
 * (thousands of rows a second while a change fans out). Statements are built with `Prisma.sql`,
 * as every raw query is, and sent to the driver as they are.
 *
 * Through Prisma's raw queries, each parameter crosses into the query compiler and back as JSON,
 * and the statement runs through its query interpreter: a status write's parameters are whole
 * columns of JSON text (the server's store/bulk-sql.ts), escaped and parsed once more. Writing
 * the status of 1,000 nodes (a type row each, and their nodes' updatedAt) took 23 ms of the
 * writing process's CPU through Prisma and 12 ms here (twenty writes each way, four times over).
 */
export interface SqlPool {
  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back
   * when it rejects (with its error). A statement running longer than `statementTimeoutMs` is
   * cancelled by Postgres, and a connection not free within `connectTimeoutMs` fails the call.
   */
  transaction<T>(work: (run: SqlRunner) => Promise<T>): Promise<T>;
  /** Closes every connection. */
  close(): Promise<void>;
}

/** Runs one statement; resolves with its rows (empty unless it returns some). */
export type SqlRunner = <Row = Record<string, unknown>>(statement: Prisma.Sql) => Promise<Row[]>;

export interface SqlPoolOptions {
  /** Most connections. Default 1: the callers write one transaction at a time. */
  readonly maxConnections?: number;
  readonly statementTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
  /**
   * How long a connection may sit idle before it is closed (the next call opens another).
   * Default 0: kept open, for a caller that writes every second or so.
   */
  readonly idleTimeoutMs?: number;
  /** An idle connection's error (the server went away); the next call reconnects. */
  readonly onIdleError?: (error: Error) => void;
}

export function createSqlPool(databaseUrl: string, options: SqlPoolOptions = {}): SqlPool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.maxConnections ?? 1,
    idleTimeoutMillis: options.idleTimeoutMs ?? 0,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 15_000,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
  });
  // Without a listener, an idle connection's error would end the process.
  pool.on("error", (error) => options.onIdleError?.(error));
  return {
    async transaction(work) {
      const client = await pool.connect();
      const run: SqlRunner = async <Row>(statement: Prisma.Sql) =>
        (await client.query({ text: statement.text, values: statement.values })).rows as Row[];
      try {
        await client.query("BEGIN");
        const result = await work(run);
        await client.query("COMMIT");
        client.release();
        return result;
      } catch (error) {
        // A connection whose rollback fails too is not given back to the pool.
        const rolledBack = await client.query("ROLLBACK").then(
          () => true,
          () => false,
        );
        client.release(!rolledBack);
        throw error;
      }
    },
    close: () => pool.end(),
  };
}
