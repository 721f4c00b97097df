/**
 * Signing in for tests, through the real API: Login (a session cookie), then CreateToken with that
 * cookie, exactly as the console and `switchyard login` do; privileged calls on a session that
 * enters its password again when asked, as the console prompts for it. Nothing is written to the
 * database behind the server's back.
 */
import { type Client, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import {
  AccessService,
  ReauthenticationRequiredSchema,
  Role,
} from "@switchyard/proto/switchyard/v1/access_pb";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { RolloutService } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";

/** SWITCHYARD_ADMIN_PASSWORD of every test server: the first admin is "admin" with it. */
export const ADMIN_PASSWORD = "first-operator-test-password";
/** The password tests give the accounts they create. */
export const USER_PASSWORD = "test-user-password";
/**
 * Passwords the server's policy takes (auth/passwords.ts: 12 characters or more, zxcvbn score 3
 * or more, not the username), for tests that set one; passwords.spec.ts checks each, and the two
 * above.
 */
export const STRONG_PASSWORDS = [
  "correct horse battery staple",
  "plum basket orbit fennel",
  "kCTmq6hCbFV9TTeXzdSKXL6n",
  "a brand new password",
] as const;
/** Passwords of 12 characters or more that the policy refuses as too easy to guess. */
export const WEAK_PASSWORDS = [
  "aaaaaaaaaaaa",
  "passwordpassword",
  "password1234",
  "1qaz2wsx3edc",
] as const;
export const ALL_SCOPES = ["config:read", "config:write", "publish", "status:read", "admin"];

/** Sends an API token. */
export const bearer =
  (token: string): Interceptor =>
  (next) =>
  (request) => {
    request.header.set("authorization", `Bearer ${token}`);
    return next(request);
  };

/** Sends a session cookie the way the console does: with an Origin of the server itself. */
export const sessionOf =
  (cookie: string, origin: string): Interceptor =>
  (next) =>
  (request) => {
    request.header.set("cookie", cookie);
    request.header.set("origin", origin);
    return next(request);
  };

export function accessClient(
  baseUrl: string,
  interceptors: Interceptor[] = [],
): Client<typeof AccessService> {
  return createClient(
    AccessService,
    createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors }),
  );
}

export type StatusClient = Client<typeof StatusService>;

export function statusClient(baseUrl: string, interceptors: Interceptor[] = []): StatusClient {
  return createClient(
    StatusService,
    createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors }),
  );
}

export type RolloutClient = Client<typeof RolloutService>;

export function rolloutClient(baseUrl: string, interceptors: Interceptor[] = []): RolloutClient {
  return createClient(
    RolloutService,
    createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors }),
  );
}

export function configClient(
  baseUrl: string,
  interceptors: Interceptor[] = [],
): Client<typeof ConfigService> {
  return createClient(
    ConfigService,
    createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors }),
  );
}

/** The error `call` is refused with; a call that succeeds fails the test. */
export async function refusal(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("expected a refusal");
}

/** Signs in; answers the `name=value` session cookie. */
export async function signIn(baseUrl: string, username: string, password: string): Promise<string> {
  let cookie: string | undefined;
  await accessClient(baseUrl).login(
    { username, password },
    {
      onHeader: (header) => {
        cookie = header.get("set-cookie")?.split(";", 1)[0];
      },
    },
  );
  if (cookie === undefined) throw new Error("Login answered without a session cookie");
  return cookie;
}

/**
 * Signs in and creates an API token with `scopes` (a privileged action, allowed by the password
 * just entered to sign in); answers its secret.
 */
export async function tokenFor(
  baseUrl: string,
  username: string,
  password: string,
  scopes: string[] = ALL_SCOPES,
): Promise<string> {
  const cookie = await signIn(baseUrl, username, password);
  const session = accessClient(baseUrl, [sessionOf(cookie, baseUrl)]);
  const { secret } = await session.createToken({ name: `test-${username}`, scopes });
  await session.logout({});
  return secret;
}

export const adminToken = (baseUrl: string) => tokenFor(baseUrl, "admin", ADMIN_PASSWORD);

/**
 * Enters `password` again on the session `cookie` when the server refuses a call for it (the
 * ReauthenticationRequired detail: a privileged call whose password is older than the window),
 * then makes the call once more: what the console's prompt does.
 */
export const reauthenticating =
  (baseUrl: string, cookie: string, password: string): Interceptor =>
  (next) =>
  async (request) => {
    try {
      return await next(request);
    } catch (error) {
      if (ConnectError.from(error).findDetails(ReauthenticationRequiredSchema).length === 0)
        throw error;
      await accessClient(baseUrl, [sessionOf(cookie, baseUrl)]).reauthenticate({ password });
      return next(request);
    }
  };

/**
 * AccessService as `username` (default: the first admin) on a console session of its own, a real
 * Login, that enters the password again whenever a call asks for it: for the privileged calls
 * (creating accounts, changing roles, teams' domains and review, cluster owners: the README's
 * Access control), which an API token may not make.
 */
export async function privilegedAccess(
  baseUrl: string,
  username = "admin",
  password = ADMIN_PASSWORD,
): Promise<Client<typeof AccessService>> {
  const cookie = await signIn(baseUrl, username, password);
  return accessClient(baseUrl, [
    reauthenticating(baseUrl, cookie, password),
    sessionOf(cookie, baseUrl),
  ]);
}

/** Creates an account as the first admin (privilegedAccess); answers its id. */
export async function createAccount(
  baseUrl: string,
  username: string,
  role: Role,
  teamId = "",
): Promise<string> {
  const user = await (await privilegedAccess(baseUrl)).createUser({
    username,
    password: USER_PASSWORD,
    role,
    teamId,
  });
  return user.id;
}

export { Role };
