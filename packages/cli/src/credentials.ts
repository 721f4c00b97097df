/**
 * Where `switchyard login` keeps API tokens: `$XDG_CONFIG_HOME/switchyard/credentials.json`
 * (default `~/.config`), one token per server origin, readable by the user only (0600 in a 0700
 * folder). `SWITCHYARD_TOKEN` takes precedence over the file. The latest login names the server
 * client commands talk to when neither --server nor SWITCHYARD_SERVER does, so a server started
 * on another port is logged in to once and then followed (test/cli-server-moves.e2e.spec.ts).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { readEnv } from "@switchyard/server/env";
import { CliError } from "./errors.js";
import { cliIo } from "./io.js";

export interface StoredCredential {
  readonly token: string;
  readonly tokenId: string;
  readonly username: string;
  /** The server the login was made for, as given to `switchyard login` (unset in older files). */
  readonly server?: string | undefined;
  /** When, ISO 8601 (unset in older files). */
  readonly loggedInAt?: string | undefined;
}

interface CredentialsFile {
  readonly servers: Record<string, StoredCredential>;
  /** The origin of the latest login: the server client commands talk to unless told another. */
  readonly current?: string | undefined;
}

/** The server client commands talk to when neither --server nor SWITCHYARD_SERVER names one. */
export const DEFAULT_SERVER = "http://localhost:3000";

export function credentialsPath(): string {
  const base = readEnv(cliIo().env).XDG_CONFIG_HOME ?? path.join(os.homedir(), ".config");
  return path.join(base, "switchyard", "credentials.json");
}

/** The key a server's credential is stored under: its origin ("http://localhost:3000"). */
export function serverKey(server: string): string {
  try {
    return new URL(server).origin;
  } catch (error) {
    throw new CliError(`--server ${JSON.stringify(server)} is not a URL (http://host:port)`, {
      cause: error,
    });
  }
}

function readFile(): CredentialsFile {
  const file = credentialsPath();
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { servers: {} };
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<CredentialsFile>;
    return { servers: parsed.servers ?? {}, current: parsed.current };
  } catch (error) {
    throw new CliError(`${file} is not valid JSON: fix or delete it, then run switchyard login`, {
      cause: error,
    });
  }
}

function writeFile(content: CredentialsFile): void {
  const file = credentialsPath();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Written aside then renamed, so a crash never leaves half a file; 0600 from the start.
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
}

export function storedCredential(server: string): StoredCredential | undefined {
  return readFile().servers[serverKey(server)];
}

/** Stores `credential` for `server`, which becomes the server of the latest login. */
export function storeCredential(server: string, credential: StoredCredential): void {
  const content = readFile();
  const key = serverKey(server);
  writeFile({ servers: { ...content.servers, [key]: credential }, current: key });
}

export function forgetCredential(server: string): boolean {
  const content = readFile();
  const key = serverKey(server);
  if (!(key in content.servers)) return false;
  const { [key]: _, ...rest } = content.servers;
  writeFile({ servers: rest, current: content.current === key ? undefined : content.current });
  return true;
}

/** The latest login still stored: the server it names (its origin) and its credential. */
export function latestLogin(): { server: string; credential: StoredCredential } | undefined {
  const { servers, current } = readFile();
  const credential = current === undefined ? undefined : servers[current];
  return current === undefined || credential === undefined
    ? undefined
    : { server: current, credential };
}

/**
 * The server client commands talk to, and what named it: --server, else SWITCHYARD_SERVER, else
 * the latest `switchyard login`'s, else DEFAULT_SERVER.
 */
export type ServerChoice = {
  readonly url: string;
  readonly from: "--server" | "SWITCHYARD_SERVER" | "login" | "default";
};

export function chooseServer(flag: string | undefined): ServerChoice {
  if (flag !== undefined) return { url: flag, from: "--server" };
  const env = readEnv(cliIo().env).SWITCHYARD_SERVER;
  if (env !== undefined) return { url: env, from: "SWITCHYARD_SERVER" };
  const latest = latestLogin();
  if (latest !== undefined) return { url: latest.server, from: "login" };
  return { url: DEFAULT_SERVER, from: "default" };
}

/** The token client commands send: SWITCHYARD_TOKEN, else the one stored for `server`. */
export function tokenOf(server: string): string | undefined {
  return readEnv(cliIo().env).SWITCHYARD_TOKEN ?? storedCredential(server)?.token;
}
