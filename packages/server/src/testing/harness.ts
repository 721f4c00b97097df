import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Client, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { type Logger, pino } from "pino";
import { type Switchyard, type SwitchyardOptions, startSwitchyard } from "../app.js";
import {
  ADMIN_PASSWORD,
  adminToken,
  createAccount,
  Role,
  signIn,
  tokenFor,
  USER_PASSWORD,
} from "./auth.js";

export interface Harness {
  readonly database: TestDatabase;
  readonly app: Switchyard;
  /**
   * The console API signed in as `username` (default "admin") with an all-scopes API token. An
   * account other than "admin" is created on first use, as an admin: so a version's author is
   * that username.
   */
  api(username?: string): Client<typeof ConfigService>;
  /** The API token of `username` (as `api` creates it). */
  token(username?: string): Promise<string>;
  /** A new console session of `admin` (a real Login): the "name=value" cookie. */
  sessionCookie(): Promise<string>;
  /**
   * Sets every session's password as entered `ms` ago (the stored time), to see what the
   * re-authentication window allows without waiting for it.
   */
  passwordEnteredAgo(ms: number): Promise<void>;
  /** The console's base URL, e.g. http://127.0.0.1:41234 */
  readonly baseUrl: string;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  webConsole?: boolean;
  seed?: (database: TestDatabase) => Promise<void>;
  logger?: Logger;
  /**
   * Options of the app beyond the database and console (e.g. staleAfterMs); `xdsPort` for a
   * test that restarts the server where its clients look for it (default: a free port).
   */
  app?: Partial<Pick<SwitchyardOptions, "xdsPort">> &
    Pick<
      SwitchyardOptions,
      | "staleAfterMs"
      | "retainDisconnectedMs"
      | "secretsKey"
      | "xdsAuthorities"
      | "memberFileDirs"
      | "xdsSecurity"
      | "loginLimits"
      | "trustedProxies"
      | "consoleHosts"
      | "loadReportIntervalMs"
      | "envoySchemaFiles"
      | "advertiseXdsAddress"
      | "xdsMaxResponseBytes"
    >;
}

/**
 * Token authentication for the xDS port, which serves secrets to authenticated clients only: a
 * credentials file (removed when the process exits) accepting one new token for every node group,
 * and the header a client sends it in.
 */
export function xdsTokenAuth(): {
  readonly xdsSecurity: NonNullable<SwitchyardOptions["xdsSecurity"]>;
  readonly headers: Readonly<Record<string, string>>;
} {
  const token = `syx_${randomBytes(24).toString("base64url")}`;
  const folder = mkdtempSync(join(tmpdir(), "switchyard-xds-credentials-"));
  process.once("exit", () => rmSync(folder, { recursive: true, force: true }));
  const credentialsFile = join(folder, "credentials.yaml");
  const sha256 = createHash("sha256").update(token).digest("hex");
  writeFileSync(
    credentialsFile,
    `tokens:\n- name: test\n  sha256: ${sha256}\n  nodeGroups: ["*"]\n`,
  );
  return {
    xdsSecurity: { mode: "token", credentialsFile },
    headers: { authorization: `Bearer ${token}` },
  };
}

/**
 * A Switchyard on `databaseUrl`, on free ports of 127.0.0.1: what startHarness runs, and what a
 * test restarts on the same database (another secrets key, say).
 */
export function startAppOn(
  databaseUrl: string,
  options: Omit<HarnessOptions, "seed"> = {},
): Promise<Switchyard> {
  return startSwitchyard({
    httpPort: 0,
    xdsPort: 0,
    host: "127.0.0.1",
    databaseUrl,
    dataDir: "unused-with-a-database-url",
    webConsole: options.webConsole ?? false,
    logger: options.logger ?? pino({ level: process.env.SY_TEST_LOG ?? "silent" }),
    adminPassword: ADMIN_PASSWORD,
    ...options.app,
  });
}

/**
 * A Switchyard process on a fresh test database (real Postgres), on free ports. `seed` runs
 * before the server starts, for tests that need stored objects from the beginning.
 */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const database = await createTestDatabase();
  await options.seed?.(database);
  const app = await startAppOn(database.url, options);
  const baseUrl = `http://127.0.0.1:${app.httpPort}`;
  const tokens = new Map<string, Promise<string>>();
  const token = (username = "admin"): Promise<string> => {
    let secret = tokens.get(username);
    if (secret === undefined) {
      secret =
        username === "admin"
          ? adminToken(baseUrl)
          : createAccount(baseUrl, username, Role.ADMIN).then(() =>
              tokenFor(baseUrl, username, USER_PASSWORD),
            );
      tokens.set(username, secret);
    }
    return secret;
  };
  return {
    database,
    app,
    baseUrl,
    api: (username = "admin") =>
      createClient(
        ConfigService,
        createConnectTransport({
          baseUrl,
          httpVersion: "1.1",
          interceptors: [
            (next) => async (request) => {
              request.header.set("authorization", `Bearer ${await token(username)}`);
              return next(request);
            },
          ],
        }),
      ),
    token,
    sessionCookie: () => signIn(baseUrl, "admin", ADMIN_PASSWORD),
    passwordEnteredAgo: async (ms) => {
      await database.prisma.session.updateMany({
        data: { authenticatedAt: new Date(Date.now() - ms) },
      });
    },
    stop: async () => {
      await app.stop();
      await database.drop();
    },
  };
}
