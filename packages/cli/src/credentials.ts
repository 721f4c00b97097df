/**
 * Where `switchyard login` keeps API tokens: `$XDG_CONFIG_HOME/switchyard/credentials.json`
 * (default `~/.config`), one token per server origin, readable by the user only (0600 in a 0700
 * folder). `SWITCHYARD_TOKEN` takes precedence over the file.
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
}

interface CredentialsFile {
  readonly servers: Record<string, StoredCredential>;
}

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
    return { servers: parsed.servers ?? {} };
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

export function storeCredential(server: string, credential: StoredCredential): void {
  const content = readFile();
  writeFile({ servers: { ...content.servers, [serverKey(server)]: credential } });
}

export function forgetCredential(server: string): boolean {
  const content = readFile();
  const key = serverKey(server);
  if (!(key in content.servers)) return false;
  const { [key]: _, ...rest } = content.servers;
  writeFile({ servers: rest });
  return true;
}

/** The token client commands send: SWITCHYARD_TOKEN, else the one stored for `server`. */
export function tokenOf(server: string): string | undefined {
  return readEnv(cliIo().env).SWITCHYARD_TOKEN ?? storedCredential(server)?.token;
}
