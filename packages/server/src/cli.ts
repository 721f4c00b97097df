import * as path from "node:path";
import { DbError } from "@switchyard/db";
import { Command, InvalidArgumentError } from "commander";
import { pino } from "pino";
import { startSwitchyard } from "./app.js";
import { readEnv } from "./env.js";
import { StartupError } from "./startup-error.js";

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(`"${value}" is not a port number (0-65535)`);
  return n;
}

/** Where `npm start` keeps the embedded database: `.data/` at the repository root. */
function defaultDataDir(): string {
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), ".data");
}

async function serve(flags: {
  httpPort?: number;
  xdsPort?: number;
  dataDir?: string;
  host?: string;
}): Promise<void> {
  const env = readEnv();
  const logger = pino({ level: env.SWITCHYARD_LOG_LEVEL, base: null });
  const dataDir = path.resolve(flags.dataDir ?? env.SWITCHYARD_DATA_DIR ?? defaultDataDir());
  const app = await startSwitchyard({
    httpPort: flags.httpPort ?? env.SWITCHYARD_HTTP_PORT,
    xdsPort: flags.xdsPort ?? env.SWITCHYARD_XDS_PORT,
    host: flags.host ?? env.SWITCHYARD_HOST,
    databaseUrl: env.DATABASE_URL,
    dataDir: path.join(dataDir, "postgres"),
    webConsole: true,
    logger,
  });
  const shown =
    env.SWITCHYARD_HOST === "127.0.0.1" || env.SWITCHYARD_HOST === "::1"
      ? "localhost"
      : (flags.host ?? env.SWITCHYARD_HOST);
  process.stdout.write(
    [
      "",
      "  Switchyard is running",
      `  Console:  http://${shown}:${app.httpPort}`,
      `  xDS:      ${shown}:${app.xdsPort}  (gRPC, plaintext; ADS)`,
      `  Database: ${env.DATABASE_URL === undefined ? `embedded PostgreSQL in ${dataDir}` : "DATABASE_URL"}`,
      "",
      "  Press Ctrl-C to stop.",
      "",
      "",
    ].join("\n"),
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      process.stderr.write("stopping already; waiting for PostgreSQL to shut down cleanly\n");
      return;
    }
    stopping = true;
    logger.info({ signal }, "stopping");
    app.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "error while stopping");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

export function createCli(): Command {
  const program = new Command("switchyard")
    .description("Switchyard: an Envoy control plane with a web console")
    .showHelpAfterError();
  program
    .command("serve")
    .description(
      "run the console, its API and the xDS server (with an embedded PostgreSQL unless DATABASE_URL is set)",
    )
    .option(
      "--http-port <port>",
      "console and API port (env SWITCHYARD_HTTP_PORT, default 3000)",
      port,
    )
    .option("--xds-port <port>", "xDS gRPC port (env SWITCHYARD_XDS_PORT, default 18000)", port)
    .option(
      "--host <address>",
      "address to bind both servers to (env SWITCHYARD_HOST, default 127.0.0.1)",
    )
    .option(
      "--data-dir <dir>",
      "where the embedded PostgreSQL keeps its data (env SWITCHYARD_DATA_DIR, default ./.data)",
    )
    .action(serve);
  return program;
}

/** Runs the CLI; a StartupError or bad input prints one line and exits non-zero. */
export async function main(argv: readonly string[]): Promise<void> {
  try {
    await createCli().parseAsync([...argv]);
  } catch (error) {
    // Errors the user can fix are one line; anything else is a bug and keeps its stack.
    if (error instanceof StartupError || error instanceof DbError) {
      process.stderr.write(`switchyard: ${error.message}\n`);
    } else {
      process.stderr.write(
        `switchyard: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    }
    process.exit(1);
  }
}
