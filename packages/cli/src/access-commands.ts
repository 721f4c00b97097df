/**
 * `switchyard login`, `logout`, `whoami` and `token ...`: signing the CLI in with an API token;
 * and the console session, signed in with a password, that what a token may not do runs on.
 */
import * as os from "node:os";
import { createInterface } from "node:readline";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  type Client,
  Code,
  ConnectError,
  createClient,
  type Interceptor,
} from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AccessService, type ApiToken } from "@switchyard/proto/switchyard/v1/access_pb";
import { readEnv } from "@switchyard/server/env";
import { connectAccess } from "./client.js";
import {
  forgetCredential,
  serverKey,
  storeCredential,
  storedCredential,
  tokenOf,
} from "./credentials.js";
import { CliError } from "./errors.js";
import { cliIo, readStdin, stdinIsTerminal } from "./io.js";
import { type Output, table } from "./output.js";

/** The scopes `switchyard login` asks for: everything; a token never exceeds its user's role. */
const LOGIN_SCOPES = ["config:read", "config:write", "publish", "status:read", "admin"];

export interface LoginInput {
  readonly username?: string | undefined;
  readonly passwordStdin?: boolean | undefined;
}

/** Asks on the terminal; with `hidden`, what is typed is not echoed. */
function ask(question: string, hidden: boolean): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  if (hidden) {
    const write = (rl as unknown as { _writeToOutput: (text: string) => void })._writeToOutput;
    (rl as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = (text) => {
      if (text.startsWith(question)) write.call(rl, text);
    };
  }
  return new Promise((resolve) =>
    rl.question(question, (answer) => {
      rl.close();
      if (hidden) process.stdout.write("\n");
      resolve(answer);
    }),
  );
}

/** A new password: from standard input with --password-stdin, else asked on a terminal. */
export async function newPassword(
  passwordStdin: boolean | undefined,
  prompt: string,
): Promise<string> {
  if (passwordStdin) return (await readStdin()).replace(/\r?\n$/, "");
  if (stdinIsTerminal()) return ask(prompt, true);
  throw new CliError(
    "no password: pipe it with --password-stdin, or run the command in a terminal",
  );
}

/** Whose password a session is signed in with: --username, the stored login's, the token's. */
async function usernameOf(server: string, input: LoginInput): Promise<string | undefined> {
  if (input.username !== undefined) return input.username;
  const stored = storedCredential(server)?.username;
  if (stored !== undefined) return stored;
  if (tokenOf(server) !== undefined) {
    const me = await connectAccess(server)
      .whoAmI({})
      .catch((error: unknown) => {
        // An expired or revoked token names nobody: ask, as without one.
        if (ConnectError.from(error).code === Code.Unauthenticated) return undefined;
        throw error;
      });
    if (me?.user !== undefined) return me.user.username;
  }
  if (stdinIsTerminal()) return (await ask("Username: ", false)).trim();
  return undefined;
}

type SessionWork<T> = (session: Client<typeof AccessService>, username: string) => Promise<T>;

/**
 * A console session for the CLI, for what API tokens may not do (create or revoke tokens:
 * authorize.ts): signs in with the user's password (standard input with --password-stdin, else
 * SWITCHYARD_PASSWORD, else asked on a terminal), runs `work`, and signs out.
 */
function withSession<T>(server: string, input: LoginInput, work: SessionWork<T>): Promise<T> {
  return signedIn(server, input, ", pipe it with --password-stdin", work);
}

/**
 * The same for a privileged action (the server's access/privileged-actions.ts: creating accounts,
 * changing roles and teams, teams' review and domains, cluster owners), which an API token may
 * not take and a session only within a few minutes of entering its password, as a login does.
 * The password is SWITCHYARD_PASSWORD or asked on a terminal: these commands' standard input
 * is the account's new password when they take one.
 */
export function asPrivileged<T>(
  server: string,
  username: string | undefined,
  work: (session: Client<typeof AccessService>) => Promise<T>,
): Promise<T> {
  return signedIn(server, { username }, "", (session) => work(session));
}

async function signedIn<T>(
  server: string,
  input: LoginInput,
  stdinHint: string,
  work: SessionWork<T>,
): Promise<T> {
  const origin = serverKey(server);
  const username = await usernameOf(server, input);
  if (!username)
    throw new CliError("no username: pass --username, or run the command in a terminal");
  const fromEnv = readEnv(cliIo().env).SWITCHYARD_PASSWORD;
  let password: string;
  if (input.passwordStdin) password = (await readStdin()).replace(/\r?\n$/, "");
  else if (fromEnv !== undefined) password = fromEnv;
  else if (stdinIsTerminal()) password = await ask(`Password for ${username}: `, true);
  else
    throw new CliError(
      `no password for ${username}: this command signs in with it (an API token may not do ` +
        `this); set SWITCHYARD_PASSWORD${stdinHint}, or run the command in a terminal`,
    );

  let cookie: string | undefined;
  const anonymous = createClient(
    AccessService,
    createConnectTransport({ baseUrl: server, httpVersion: "1.1" }),
  );
  try {
    await anonymous.login(
      { username, password },
      { onHeader: (header) => (cookie = header.get("set-cookie")?.split(";", 1)[0]) },
    );
  } catch (error) {
    const connectError = ConnectError.from(error);
    if (connectError.code === Code.Unauthenticated || connectError.code === Code.ResourceExhausted)
      throw new CliError(`login to ${origin} failed: ${connectError.rawMessage}`);
    throw error;
  }
  if (cookie === undefined) throw new CliError(`${origin} answered the login without a session`);
  // Used the way the console uses its session: the cookie, and this server as Origin (CSRF).
  const sessionHeaders: Interceptor = (next) => (request) => {
    request.header.set("cookie", cookie as string);
    request.header.set("origin", origin);
    return next(request);
  };
  const session = createClient(
    AccessService,
    createConnectTransport({ baseUrl: server, httpVersion: "1.1", interceptors: [sessionHeaders] }),
  );
  try {
    return await work(session, username);
  } finally {
    await session.logout({});
  }
}

/** Signs in with a password and stores a new API token for `server` (credentials.ts). */
export async function login(server: string, input: LoginInput, out: Output): Promise<void> {
  await withSession(server, input, async (session, username) => {
    // A token outlives the session: the server allows it because the password was just entered.
    const created = await session.createToken({
      name: `switchyard CLI on ${os.hostname()}`.slice(0, 100),
      scopes: LOGIN_SCOPES,
    });
    storeCredential(server, {
      token: created.secret,
      tokenId: created.token?.id ?? "",
      username,
      server: serverKey(server),
      loggedInAt: new Date().toISOString(),
    });
    out.out(
      `Logged in to ${serverKey(server)} as ${username}. The API token is stored for this server, ` +
        "and commands talk to it unless --server or SWITCHYARD_SERVER names another.\n",
    );
  });
}

export async function logout(server: string, out: Output): Promise<void> {
  const stored = storedCredential(server);
  if (stored === undefined) {
    out.out(`not logged in to ${serverKey(server)}; nothing to do\n`);
    return;
  }
  // Logout with a token revokes it on the server; an already revoked one is forgotten all the same.
  try {
    await createClient(
      AccessService,
      createConnectTransport({
        baseUrl: server,
        httpVersion: "1.1",
        interceptors: [
          (next) => (request) => {
            request.header.set("authorization", `Bearer ${stored.token}`);
            return next(request);
          },
        ],
      }),
    ).logout({});
  } catch (error) {
    if (ConnectError.from(error).code !== Code.Unauthenticated) throw error;
  }
  forgetCredential(server);
  out.out(`Logged out of ${serverKey(server)}: the token is revoked and forgotten.\n`);
}

export async function whoami(server: string, out: Output): Promise<void> {
  const me = await connectAccess(server).whoAmI({});
  const user = me.user;
  const role = ["", "admin", "member", "viewer"][user?.role ?? 0] ?? "";
  out.out(
    `${user?.username} (${role}${me.team ? `, team ${me.team.name}` : ""}) via ${me.via}` +
      `${me.scopes.length > 0 ? ` [${me.scopes.join(", ")}]` : ""}\n`,
  );
}

const when = (t: ApiToken["createTime"]) => (t ? timestampDate(t).toISOString() : "-");

export async function tokenCreate(
  server: string,
  options: LoginInput & { name: string; scope: string[] },
  out: Output,
): Promise<void> {
  const created = await withSession(server, options, (session) =>
    session.createToken({
      name: options.name,
      scopes: options.scope.length > 0 ? options.scope : ["config:read", "status:read"],
    }),
  );
  out.out(
    `${created.secret}\n\nToken ${created.token?.id} (${created.token?.scopes.join(", ")}). ` +
      "The secret above is shown only this once.\n",
  );
}

export async function tokenList(server: string, out: Output): Promise<void> {
  const { tokens } = await connectAccess(server).listTokens({});
  out.out(
    `${table(
      ["ID", "NAME", "SCOPES", "CREATED", "LAST USED", "REVOKED"],
      tokens.map((t) => [
        t.id,
        t.name,
        t.scopes.join(","),
        when(t.createTime),
        when(t.lastUsedTime),
        when(t.revokeTime),
      ]),
    )}\n`,
  );
}

export async function tokenRevoke(
  server: string,
  id: string,
  options: LoginInput,
  out: Output,
): Promise<void> {
  const token = await withSession(server, options, (session) => session.revokeToken({ id }));
  out.out(`Revoked token ${token.id} (${token.name}).\n`);
}
