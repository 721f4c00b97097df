import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/prisma/client.js";

export interface PrismaClientOptions {
  /** Most connections the pool opens. Default: 10 (pg's default). */
  readonly maxConnections?: number;
}

/**
 * A Prisma client for `databaseUrl`: the engine-free client (WASM query compiler) over a `pg` pool
 * through @prisma/adapter-pg. Create one per process and `$disconnect()` it on shutdown.
 */
export function createPrismaClient(
  databaseUrl: string,
  options: PrismaClientOptions = {},
): PrismaClient {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    ...(options.maxConnections === undefined ? {} : { max: options.maxConnections }),
  });
  return new PrismaClient({ adapter });
}
