/**
 * The `switchyard` command tree (commander): every command with its flags and help, in the order
 * `switchyard --help` lists them, each action a line or two calling this package's command
 * modules (the client commands) or @switchyard/server's `serve`. Long because the tree is whole here, so the CLI reads as its help does.
 */
import { DbError } from "@switchyard/db/errors";
import { ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import { DURATION_HINT, durationMs } from "@switchyard/server/duration";
import { MAX_XDS_WORKERS, parseResponseBytes } from "@switchyard/server/env";
import { StartupError } from "@switchyard/server/startup-error";
import { DEFAULT_XDS_AUTHORITY, parseAuthorities } from "@switchyard/server/xds-authority";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import * as accessCommands from "./access-commands.js";
import { envoyBootstrap, envoyFileBootstrap, grpcBootstrap } from "./bootstrap.js";
import { askServer, checkReach } from "./bootstrap-server.js";
import {
  CliError,
  connect,
  connectAccess,
  connectRollout,
  connectRouting,
  explain,
} from "./client.js";
import * as commands from "./commands.js";
import { chooseServer, type ServerChoice } from "./credentials.js";
import type { EndpointOptions } from "./endpoint-commands.js";
import * as endpointCommands from "./endpoint-commands.js";
import { failingWith, failureCode, sameFailureCode } from "./errors.js";
import * as historyCommands from "./history-commands.js";
import { type CliIo, cliIo, processIo, withCliIo } from "./io.js";
import { KIND_HELP, parseKind } from "./kinds.js";
import * as loadCommands from "./load-commands.js";
import { type Output, outputFormat } from "./output.js";
import * as publishCommands from "./publish-commands.js";
import type { PublishRolloutFlags } from "./publish-rollout.js";
import * as reviewCommands from "./review-commands.js";
import * as rolloutCommands from "./rollout-commands.js";
import * as rolloutRunCommands from "./rollout-run-commands.js";
import * as rolloutWait from "./rollout-wait.js";
import * as routeCommands from "./route-commands.js";
import * as schemaCommands from "./schema-commands.js";
import * as secretCommands from "./secret-commands.js";
import * as statusCommands from "./status-commands.js";
import * as teamCommands from "./team-commands.js";

/** `switchyard user create`'s flags. */
type UserCreateFlags = { role: string; team?: string; passwordStdin?: boolean };

/** The options of a command that asks for a password: whose, and read how. */
const usernameOption = (meaning: string) => new Option("--username <name>", meaning);
const passwordStdinOption = () =>
  new Option("--password-stdin", "read the password from standard input (scripts)");

function fileFormat(value: string): "yaml" | "json" {
  if (value !== "yaml" && value !== "json")
    throw new InvalidArgumentError(`"${value}" is not a file format: use yaml or json`);
  return value;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(`"${value}" is not a port number (0-65535)`);
  return n;
}

function workerCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > MAX_XDS_WORKERS)
    throw new InvalidArgumentError(
      `"${value}" is not a number of xDS workers (0-${MAX_XDS_WORKERS}; 0 serves xDS in the main process)`,
    );
  return n;
}

function responseBytes(value: string): number {
  const bytes = parseResponseBytes(value);
  if (typeof bytes !== "number") throw new InvalidArgumentError(bytes.problem);
  return bytes;
}

function authMode(value: string): "none" | "mtls" | "token" {
  if (value !== "none" && value !== "mtls" && value !== "token")
    throw new InvalidArgumentError(`"${value}" is not an xDS auth mode: none, mtls or token`);
  return value;
}

function duration(value: string): number {
  const ms = durationMs(value);
  if (ms === undefined)
    throw new InvalidArgumentError(`"${value}" is not a duration: ${DURATION_HINT}`);
  return ms;
}

function hostNames(value: string): readonly string[] {
  return value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
}

function authorities(value: string): readonly string[] {
  const parsed = parseAuthorities(value);
  if (typeof parsed === "string") throw new InvalidArgumentError(parsed);
  return parsed;
}

/** The run's standard output (cli/io.ts). */
const stdout: Output = { out: (text) => cliIo().out(text) };

const TYPE_HELP =
  'the type of the resources the files give without "@type" (Envoy Gateway\'s per-type files, istioctl proxy-config cluster -o json): listeners, clusters, routes, endpoints or secrets; a file named listeners.yaml, NAME.clusters.yaml, ... holds its own';

/** The server client commands talk to (credentials.ts's chooseServer). */
function serverOf(program: Command): ServerChoice {
  return chooseServer((program.opts() as { server?: string }).server);
}

/**
 * Runs a client command against the server, with a client made by `connectTo`; API failures
 * become one readable CliError.
 */
function withClient<C, A extends unknown[]>(
  program: Command,
  connectTo: (server: string) => C,
  run: (client: C, ...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const server = serverOf(program);
    try {
      await run(connectTo(server.url), ...args);
    } catch (error) {
      throw error instanceof CliError ? error : sameFailureCode(error, explain(error, server));
    }
  };
}

function clientAction<A extends unknown[]>(
  program: Command,
  run: (client: ReturnType<typeof connect>, ...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return withClient(program, connect, run);
}

/** A command that publishes: the config client, and the rollout client to print what it started. */
function publishAction<A extends unknown[]>(
  program: Command,
  run: (
    client: ReturnType<typeof connect>,
    rollouts: ReturnType<typeof connectRollout>,
    ...args: A
  ) => Promise<void>,
): (...args: A) => Promise<void> {
  return withClient(
    program,
    (server) => ({ config: connect(server), rollouts: connectRollout(server) }),
    (clients, ...args: A) => run(clients.config, clients.rollouts, ...args),
  );
}

/** --accept-warnings, on every command that publishes (issue 46): past predicted rejections. */
const acceptWarningsOption = () =>
  new Option(
    "--accept-warnings",
    "publish although validation predicts that some node group's clients will reject the version (NACK it); without it such a publish is refused, naming each",
  );

/** --abort-rollout, on every command that publishes a change of its own. */
const abortRolloutOption = () =>
  new Option(
    "--abort-rollout",
    "a node group the version changes has a rollout running: abort it (its nodes get this version) instead of being refused",
  );

export function createCli(): Command {
  const program = new Command("switchyard")
    // Settings subcommands inherit: usage errors and --help throw (runCli answers their exit
    // code) and write where the run writes.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => cliIo().out(text),
      writeErr: (text) => cliIo().err(text),
    })
    .description("Switchyard: an Envoy control plane with a web console")
    .option(
      "--server <url>",
      "the Switchyard server for client commands (env SWITCHYARD_SERVER; default: the one `switchyard login` last signed in to, else http://localhost:3000)",
    )
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
      "--advertise-xds-address <host:port>",
      "where proxies reach the xDS port, when not --host and --xds-port (a load balancer, a published container port): what `switchyard bootstrap` and the console write (env SWITCHYARD_ADVERTISE_XDS_ADDRESS)",
    )
    .option(
      "--xds-workers <count>",
      "worker processes serving xDS on the xDS port, so a change reaches the fleet on every core while the API stays responsive; 0 serves xDS in this process (env SWITCHYARD_XDS_WORKERS, default: one per core)",
      workerCount,
    )
    .option(
      "--xds-max-response-bytes <bytes>",
      'the largest xDS response sent ("4MiB", "65536"): larger ones are split where the protocol allows (Delta; SotW EDS, RDS, SDS, RTDS), and a publish whose SotW listeners or clusters, or one resource, would not fit is refused; raise it only when your proxies\' gRPC clients accept larger messages (env SWITCHYARD_XDS_MAX_RESPONSE_BYTES, default 4MiB, gRPC\'s default max receive message size)',
      responseBytes,
    )
    .option(
      "--xds-authority <names>",
      `xdstp:// authorities served, comma-separated, or none (env SWITCHYARD_XDS_AUTHORITY, default ${DEFAULT_XDS_AUTHORITY})`,
      authorities,
    )
    .option(
      "--host <address>",
      "address to bind both servers to (env SWITCHYARD_HOST, default 127.0.0.1)",
    )
    .option(
      "--data-dir <dir>",
      "where the embedded PostgreSQL keeps its data (env SWITCHYARD_DATA_DIR, default ./.data)",
    )
    .option(
      "--stale-after <duration>",
      "a node type unanswered this long shows STALE (env SWITCHYARD_STALE_AFTER, default 30s)",
      duration,
    )
    .option(
      "--load-report-interval <duration>",
      "how often proxies report the load of clusters that report it (LRS; env SWITCHYARD_LOAD_REPORT_INTERVAL, default 10s)",
      duration,
    )
    .option(
      "--node-retention <duration>",
      "how long a disconnected node stays listed (env SWITCHYARD_NODE_RETENTION, default 24h)",
      duration,
    )
    .option("--no-console", "serve the API, /metrics and xDS only, without the web console")
    .option(
      "--xds-auth <mode>",
      "client authentication on the xDS port: none, mtls or token (env SWITCHYARD_XDS_AUTH, default none, or mtls with --xds-client-ca)",
      authMode,
    )
    .option(
      "--tls",
      "serve the console and its API over HTTPS, with --tls-cert and --tls-key (env SWITCHYARD_TLS=true)",
    )
    .option(
      "--tls-cert <file>",
      "PEM certificate (chain) of the console's HTTPS; implies --tls (env SWITCHYARD_TLS_CERT)",
    )
    .option("--tls-key <file>", "its PEM private key (env SWITCHYARD_TLS_KEY)")
    .option(
      "--xds-tls-cert <file>",
      "PEM certificate (chain) for TLS on the xDS port (env SWITCHYARD_XDS_TLS_CERT)",
    )
    .option("--xds-tls-key <file>", "its PEM private key (env SWITCHYARD_XDS_TLS_KEY)")
    .option(
      "--xds-client-ca <file>",
      "PEM CA that xDS client certificates must be signed by; implies --xds-auth mtls (env SWITCHYARD_XDS_CLIENT_CA)",
    )
    .option(
      "--xds-credentials <file>",
      "YAML/JSON of accepted xDS tokens (by SHA-256) and each credential's node groups; reread when it changes (env SWITCHYARD_XDS_CREDENTIALS)",
    )
    .option(
      "--xds-rest-hosts <names>",
      "host names REST-JSON discovery answers to besides IP addresses and localhost, comma-separated (env SWITCHYARD_XDS_REST_HOSTS)",
      hostNames,
    )
    .option(
      "--console-hosts <names>",
      "host names the console port answers to besides IP addresses and localhost, comma-separated: the names people reach it by (env SWITCHYARD_CONSOLE_HOSTS)",
      hostNames,
    )
    .option(
      "--insecure",
      "start even with the xDS port bound beyond loopback and no client authentication (env SWITCHYARD_INSECURE=true)",
    )
    .option(
      "--file-delivery <dir>",
      "also write each node group's config as DiscoveryResponse files for Envoy's filesystem config sources, one folder per group (env SWITCHYARD_FILE_DELIVERY)",
    )
    .option(
      "--file-format <format>",
      "yaml or json (env SWITCHYARD_FILE_FORMAT, default yaml)",
      fileFormat,
    )
    .option(
      "--file-delivery-envoy-dir <dir>",
      "the --file-delivery folder as Envoy sees it, when mounted elsewhere (env SWITCHYARD_FILE_DELIVERY_ENVOY_DIR)",
    )
    // Loaded here only: the client commands need none of the server (its Envoy protos cost
    // ~0.5 s to load).
    .action(async (flags: Parameters<typeof import("@switchyard/server").serve>[0]) => {
      const { serve } = await import("@switchyard/server");
      await serve(flags);
    });
  const access = (
    run: (server: string, ...args: never[]) => Promise<void>,
  ): ((...args: unknown[]) => Promise<void>) =>
    withClient(
      program,
      (server) => server,
      run as (server: string, ...args: unknown[]) => Promise<void>,
    );
  program
    .command("login")
    .description(
      "sign in with a username and password; stores an API token for the server in $XDG_CONFIG_HOME/switchyard/credentials.json",
    )
    .addOption(usernameOption("the account (asked on a terminal otherwise)"))
    .addOption(passwordStdinOption())
    .action(
      access((server, options: accessCommands.LoginInput) =>
        accessCommands.login(server, options, stdout),
      ),
    );
  program
    .command("logout")
    .description("revoke and forget the API token stored for the server")
    .action(access((server) => accessCommands.logout(server, stdout)));
  program
    .command("whoami")
    .description("the account and role the CLI acts as")
    .action(access((server) => accessCommands.whoami(server, stdout)));
  const token = program.command("token").description("API tokens for scripts and CI");
  token
    .command("create")
    .description(
      "create an API token (asks for your password: a token cannot create tokens); prints its secret once",
    )
    .requiredOption("--name <name>", "a label for the token")
    .addOption(usernameOption("the account (default: the one logged in)"))
    .addOption(passwordStdinOption())
    .option(
      "--scope <scope>",
      "config:read, config:write, publish, status:read or admin (repeat; default config:read and status:read)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .action(
      access((server, options: accessCommands.LoginInput & { name: string; scope: string[] }) =>
        accessCommands.tokenCreate(server, options, stdout),
      ),
    );
  token
    .command("list")
    .description("your API tokens")
    .action(access((server) => accessCommands.tokenList(server, stdout)));
  token
    .command("revoke <id>")
    .description("revoke an API token at once (asks for your password)")
    .addOption(usernameOption("the account (default: the one logged in)"))
    .addOption(passwordStdinOption())
    .action(
      access((server, id: string, options: accessCommands.LoginInput) =>
        accessCommands.tokenRevoke(server, id, options, stdout),
      ),
    );
  const admin = <A extends unknown[]>(
    run: (client: ReturnType<typeof connectAccess>, ...args: A) => Promise<void>,
  ) => withClient(program, connectAccess, run);
  /**
   * A command taking a privileged action (creating accounts, changing roles, teams, teams' review
   * and domains, cluster owners), which an API token may not: run on a console session signed in
   * with the user's password (SWITCHYARD_PASSWORD, or asked), then signed out.
   * `prepare` first reads what the command needs from standard input or the terminal, so the
   * session's few minutes are not spent waiting for it.
   */
  const privileged = <A extends unknown[], P = undefined>(
    run: (client: ReturnType<typeof connectAccess>, prepared: P, ...args: A) => Promise<void>,
    prepare?: (...args: A) => Promise<P>,
  ) =>
    withClient(
      program,
      (server) => server,
      async (server, ...args: A) => {
        const prepared = (await prepare?.(...args)) as P;
        const { username } = (args.at(-1) as Command).opts<{ username?: string }>();
        await accessCommands.asPrivileged(server, username, (session) =>
          run(session, prepared, ...args),
        );
      },
    );
  const asAdminOption = () =>
    usernameOption("the admin signing in for it (default: the one logged in, or the token's)");
  const user = program.command("user").description("accounts (admins)");
  user
    .command("list")
    .description("every account: role, team, status, last login")
    .action(admin((access) => teamCommands.userList(access, stdout)));
  user
    .command("create <username>")
    .description(
      "create an account (its password is asked, or read with --password-stdin; signs in with yours: SWITCHYARD_PASSWORD, or asked)",
    )
    .requiredOption("--role <role>", "admin, member or viewer")
    .option("--team <name>", "the member's team")
    .option("--password-stdin", "read the new account's password from standard input (scripts)")
    .addOption(asAdminOption())
    .action(
      privileged(
        (access, password: string, username: string, options: UserCreateFlags) =>
          teamCommands.userCreate(access, username, options, password, stdout),
        (username, options) =>
          accessCommands.newPassword(options.passwordStdin, `Password for ${username}: `),
      ),
    );
  user
    .command("update <username>")
    .description(
      "change an account's role, team or password, or disable or enable it (signs in with your password: SWITCHYARD_PASSWORD, or asked)",
    )
    .option("--role <role>", "admin, member or viewer")
    .option("--team <name>", 'the member\'s team ("" for none)')
    .option("--disable", "end its sessions and revoke its API tokens at once; it cannot sign in")
    .option("--enable", "let a disabled account sign in again")
    .option("--password-stdin", "set a new password read from standard input")
    .addOption(asAdminOption())
    .action(
      privileged(
        (
          access,
          password: string | undefined,
          username: string,
          options: teamCommands.UserUpdateOptions,
        ) => teamCommands.userUpdate(access, username, options, password, stdout),
        async (_username, options) =>
          options.passwordStdin ? accessCommands.newPassword(true, "") : undefined,
      ),
    );
  const team = program.command("team").description("teams and what they own (admins)");
  team
    .command("list")
    .description("every team: domains, clusters, members, review")
    .action(admin((access) => teamCommands.teamList(access, stdout)));
  team
    .command("create <name>")
    .description("create a team")
    .option(
      "--domain <pattern>",
      "a domain pattern it owns: api.example.com or *.example.com (repeat)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--require-review", "its members' publishes wait for an admin")
    .action(
      admin((access, name: string, options: { domain: string[]; requireReview?: boolean }) =>
        teamCommands.teamCreate(access, name, options, stdout),
      ),
    );
  team
    .command("update <name>")
    .description(
      "rename a team, or change whether it requires review or rollouts (signs in with your password: SWITCHYARD_PASSWORD, or asked)",
    )
    .option("--rename <name>", "the team's new name")
    .option("--require-review", "its members' publishes wait for an admin")
    .option("--no-require-review", "its members publish their own changes")
    .option(
      "--require-rollout",
      "its members' changes go out as rollouts: a publish without a plan (--rollout, --waves) is refused unless the admins set a default plan",
    )
    .option("--no-require-rollout", "its changes may go out to every node at once")
    .addOption(asAdminOption())
    .action(
      privileged((access, _, name: string, options: teamCommands.TeamUpdateOptions) =>
        teamCommands.teamUpdate(access, name, options, stdout),
      ),
    );
  team
    .command("add-domain <team> <pattern>")
    .description(
      "give a team a domain pattern, api.example.com or *.example.com (signs in with your password: SWITCHYARD_PASSWORD, or asked)",
    )
    .addOption(asAdminOption())
    .action(
      privileged((access, _, name: string, pattern: string) =>
        teamCommands.teamDomain(access, "add", name, pattern, stdout),
      ),
    );
  team
    .command("remove-domain <team> <pattern>")
    .description(
      "take a domain pattern from a team (signs in with your password: SWITCHYARD_PASSWORD, or asked)",
    )
    .addOption(asAdminOption())
    .action(
      privileged((access, _, name: string, pattern: string) =>
        teamCommands.teamDomain(access, "remove", name, pattern, stdout),
      ),
    );
  team
    .command("set-owner <cluster> <team>")
    .description(
      'make a team the owner of a cluster, "" for no owner (signs in with your password: SWITCHYARD_PASSWORD, or asked)',
    )
    .addOption(asAdminOption())
    .action(
      privileged((access, _, cluster: string, name: string) =>
        teamCommands.clusterOwner(access, cluster, name, stdout),
      ),
    );
  team
    .command("set-secret-owner <secret> <team>")
    .description(
      'make a team the owner of a secret: its clusters may name it, "" for no owner (signs in with your password: SWITCHYARD_PASSWORD, or asked)',
    )
    .addOption(asAdminOption())
    .action(
      privileged((access, _, secret: string, name: string) =>
        teamCommands.secretOwner(access, secret, name, stdout),
      ),
    );
  program
    .command("share <kind> <name>")
    .description(
      `let teams besides its owner name an object (admins; signs in with your password: SWITCHYARD_PASSWORD, or asked): ${[...teamCommands.SHARE_KINDS.keys()].join(", ")}`,
    )
    .addOption(asAdminOption())
    .option(
      "--team <team>",
      "a team whose routes and clusters may name it (repeat); replaces the list",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--none", "share it with no team")
    .action(
      privileged(
        (access, _, kind: string, name: string, options: { team: string[]; none?: boolean }) =>
          teamCommands.share(access, kind, name, options, stdout),
      ),
    );
  team
    .command("delete <name>")
    .description(
      "delete a team: its members keep their accounts, its clusters become unowned (signs in with your password: SWITCHYARD_PASSWORD, or asked)",
    )
    .addOption(asAdminOption())
    .action(privileged((access, _, name: string) => teamCommands.teamDelete(access, name, stdout)));
  program
    .command("xds-token")
    .description(
      "make a bearer token for proxies of some node groups: prints the token (once) and the entry to add to the --xds-credentials file",
    )
    .requiredOption("--name <name>", "names the token in node status, logs and metrics")
    .requiredOption(
      "--node-group <group...>",
      'the node groups its holders may be served ("*": every group)',
    )
    .action(async (options: { name: string; nodeGroup: string[] }) => {
      const { newXdsToken } = await import("@switchyard/server/xds-security");
      const { token, entry } = newXdsToken(options.name, options.nodeGroup);
      stdout.out(
        [
          `token (shown once; keep it secret, e.g. in the proxy's bootstrap or a secret store):`,
          `  ${token}`,
          "",
          "add under tokens: in the xDS credentials file (it holds only the token's SHA-256):",
          `  - name: ${JSON.stringify(entry.name)}`,
          `    sha256: ${entry.sha256}`,
          `    nodeGroups: [${entry.nodeGroups.map((g) => JSON.stringify(g)).join(", ")}]`,
          "",
        ].join("\n"),
      );
    });
  program
    .command("bootstrap")
    .description(
      "print a bootstrap that points a proxy at this Switchyard: Envoy (ADS over SotW, or Delta with --delta) or, with --grpc, a gRPC xDS client",
    )
    .requiredOption("--node-id <id>", "the node id the proxy presents")
    .option("--cluster <name>", "the node cluster (node groups can select on it)")
    .option("--grpc", "a gRPC xDS bootstrap (GRPC_XDS_BOOTSTRAP) instead of an Envoy one")
    .option("--delta", "Envoy over Delta (incremental) ADS instead of state of the world")
    .option(
      "--xds-address <host:port>",
      "where proxies reach Switchyard's xDS server (default: asked of the server, --server or the one logged in to, which answers its --advertise-xds-address, else its xDS bind address and port)",
    )
    .option("--xds-ca <file>", "reach the xDS server over TLS, trusting this PEM CA")
    .option("--client-cert <file>", "PEM client certificate for an xDS server requiring mTLS")
    .option("--client-key <file>", "its PEM private key")
    .option(
      "--token <token>",
      "a bearer token (from `switchyard xds-token`) sent as authorization metadata (Envoy only)",
    )
    .option(
      "--files <dir>",
      "Envoy reads its config from the files of `serve --file-delivery`: the node group's folder as Envoy sees it (e.g. /etc/switchyard/default)",
    )
    .option("--file-format <format>", "with --files: yaml (default) or json", fileFormat)
    .option(
      "--xdstp-authority <name>",
      "gRPC: name every resource by xdstp:// names under this authority, one the server serves (serve --xds-authority; default switchyard)",
    )
    .option(
      "--runtime-layer <name>",
      "Envoy subscribes to this runtime layer (RTDS: over ADS, or from its delivered file with --files); repeat for several, later ones override earlier ones",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .action(
      async (options: {
        runtimeLayer?: string[];
        files?: string;
        fileFormat?: "yaml" | "json";
        nodeId: string;
        cluster?: string;
        grpc?: boolean;
        delta?: boolean;
        xdsAddress?: string;
        xdsCa?: string;
        clientCert?: string;
        clientKey?: string;
        token?: string;
        xdstpAuthority?: string;
      }) => {
        if (options.xdstpAuthority !== undefined) {
          if (!options.grpc)
            throw new CliError(
              "--xdstp-authority is for gRPC clients (--grpc): Envoy's xdstp:// collection locators (lds_resources_locator, cds_resources_locator over Delta ADS) are described in docs/xdstp.md, not generated",
            );
          const parsed = parseAuthorities(options.xdstpAuthority);
          if (typeof parsed === "string" || parsed.length !== 1)
            throw new CliError(
              typeof parsed === "string" ? parsed : "--xdstp-authority takes one authority",
            );
        }
        if (options.runtimeLayer !== undefined && options.grpc)
          throw new CliError(
            "--runtime-layer is for Envoy: gRPC xDS clients have no runtime; drop it",
          );
        if (options.files !== undefined) {
          if (options.grpc)
            throw new CliError("gRPC xDS clients read no configuration files: drop --files");
          stdout.out(
            `${JSON.stringify(
              envoyFileBootstrap({
                ...options,
                groupDir: options.files,
                format: options.fileFormat ?? "yaml",
                runtimeLayers: options.runtimeLayer,
              }),
              null,
              2,
            )}\n`,
          );
          return;
        }
        if (options.grpc && options.delta)
          throw new CliError("gRPC xDS clients speak state-of-the-world ADS only: drop --delta");
        if (options.xdsCa === undefined && options.clientCert !== undefined)
          throw new CliError("--client-cert needs TLS: give --xds-ca, the CA of the xDS server");
        let { xdsAddress } = options;
        if (xdsAddress === undefined) {
          const info = await askServer(serverOf(program));
          for (const note of checkReach(info, options)) cliIo().err(`note: ${note}\n`);
          xdsAddress = info.xdsAddress;
        }
        const common = {
          ...options,
          xdsAddress,
          tls:
            options.xdsCa === undefined
              ? undefined
              : { caFile: options.xdsCa, certFile: options.clientCert, keyFile: options.clientKey },
        };
        const bootstrap = options.grpc
          ? grpcBootstrap(common)
          : envoyBootstrap({
              ...common,
              delta: options.delta ?? false,
              runtimeLayers: options.runtimeLayer,
            });
        stdout.out(`${JSON.stringify(bootstrap, null, 2)}\n`);
      },
    );
  program
    .command("apply")
    .description(
      "import Envoy v3 resources (YAML or JSON: a list with @type, a DiscoveryResponse, a bootstrap or its static_resources, an Envoy admin config dump, or a list of one --type) and publish them",
    )
    .requiredOption(
      "-f, --file <path>",
      "a file, a directory (its .yaml, .yml and .json files), or - for stdin (several YAML documents separated by ---); repeat for more",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("-R, --recursive", "read the directories below each -f directory too")
    .option("-m, --message <message>", "the version's message (default: apply FILE)")
    .option("--draft", "only add to the draft; publish later with `switchyard publish`")
    .option(
      "--prune",
      "also delete the clusters, listeners, route configurations, secrets and runtime layers the files do not hold (a member: only their team's), listed before they are deleted",
    )
    .option(
      "-l, --selector <terms>",
      "with --prune: delete only objects matching every term: kind=K, team=T, name=N or name=PREFIX*, comma-separated",
    )
    .option(
      "--override-route-tests <reason>",
      "publish although route tests fail, for this reason (admins; recorded in the audit log)",
    )
    .option("-t, --type <type>", TYPE_HELP)
    .addOption(abortRolloutOption())
    .addOption(acceptWarningsOption())
    .action(
      publishAction(
        program,
        (
          client,
          rollouts,
          options: {
            file: string[];
            draft?: boolean;
            recursive?: boolean;
            message?: string;
            prune?: boolean;
            selector?: string;
            overrideRouteTests?: string;
            type?: string;
            abortRollout?: boolean;
            acceptWarnings?: boolean;
          },
        ) => commands.apply(client, stdout, options.file, options, rollouts),
      ),
    );
  program
    .command("import")
    .description(
      "read Envoy v3 configuration into the draft, as the console's Import page does (nothing is published: review with `switchyard diff`, then `switchyard publish`); every format `apply` reads",
    )
    .argument(
      "<files...>",
      "files, directories (their .yaml, .yml and .json files), or - for stdin",
    )
    .option("-R, --recursive", "read the directories below each directory too")
    .option(
      "--dry-run",
      "change nothing: say what the import would change, and every issue a publish of it would raise (exit 0 nothing, 1 changes, 2 errors)",
    )
    .option("-t, --type <type>", TYPE_HELP)
    .addOption(
      new Option(
        "--on-clash <action>",
        "an object whose name the draft has with other content: rename (store the file's under a free name, its references following, so nothing else changes), replace (overwrite the draft's), or skip (keep the draft's)",
      )
        .choices(["rename", "replace", "skip"])
        .default("rename"),
    )
    .action(
      clientAction(
        program,
        async (
          client,
          files: string[],
          options: {
            recursive?: boolean;
            dryRun?: boolean;
            type?: string;
            onClash?: commands.ClashFlag;
          },
        ) => {
          if (options.dryRun) {
            cliIo().setExitCode(await commands.diffFiles(client, stdout, files, options));
            return;
          }
          await commands.apply(client, stdout, files, { ...options, draft: true });
        },
      ),
    );
  program
    .command("get")
    .description(
      `list stored objects of a kind, or print one in its Envoy-native form (kinds: ${KIND_HELP})`,
    )
    .argument("<kind>", KIND_HELP)
    .argument("[name]", "the object to print")
    .option("-o, --output <format>", "yaml or json (a list also takes table)")
    .action(
      clientAction(
        program,
        (client, kind: string, name: string | undefined, options: { output?: string }) =>
          parseKind(kind) === ResourceKind.SECRET
            ? secretCommands.getSecrets(client, stdout, name, options)
            : commands.get(client, stdout, kind, name, options),
      ),
    );
  program
    .command("delete")
    .description("delete a stored object from the draft")
    .argument("<kind>", KIND_HELP)
    .argument("<name>", "the object to delete")
    .action(
      clientAction(program, (client, kind: string, name: string) =>
        commands.remove(client, stdout, kind, name),
      ),
    );
  const schema = program
    .command("schema")
    .description(
      "Envoy APIs newer than the one bundled with Switchyard (FileDescriptorSets of Envoy's api/ tree): their fields are taken by import, validation, export and what proxies are sent",
    );
  schema
    .command("add")
    .description(
      "load a descriptor set (buf build -o envoy.binpb, or protoc --include_imports --descriptor_set_out=envoy.binpb, from Envoy's api/ tree); admins only",
    )
    .argument("<file>", "the FileDescriptorSet, imports included")
    .option("--name <name>", "how it is listed, e.g. envoy-1.37 (default: the file name)")
    .action(
      clientAction(program, (client, file: string, options: { name?: string }) =>
        schemaCommands.addSchema(client, stdout, file, options),
      ),
    );
  schema
    .command("list")
    .description("the newer Envoy APIs loaded, oldest first")
    .option("-o, --output <format>", "table (default), yaml or json")
    .action(
      clientAction(program, (client, options: { output?: string }) =>
        schemaCommands.listSchemas(
          client,
          stdout,
          outputFormat(options.output, ["table", "yaml", "json"], "table"),
        ),
      ),
    );
  schema
    .command("remove")
    .description(
      "stop using a loaded Envoy API (refused while the draft uses what only it defines); admins only",
    )
    .argument("<name>", "the name schema list shows")
    .action(
      clientAction(program, (client, name: string) =>
        schemaCommands.removeSchema(client, stdout, name),
      ),
    );
  const secret = program
    .command("secret")
    .description(
      "TLS certificates, validation contexts, generic secrets and session ticket keys served over SDS (list: switchyard get secrets); private keys and values are never shown back",
    );
  const secretWriteOptions = (command: Command) =>
    command
      .option(
        "--passphrase-file <file>",
        "the passphrase of an encrypted --key (stored decrypted, sealed)",
      )
      .option(
        "--match-san <san>",
        "validation: a DNS SAN the peer certificate must carry (repeat for several)",
        (value: string, previous: string[]) => [...previous, value],
        [] as string[],
      )
      .option(
        "--from-file <files...>",
        "generic: the file holding the value (at most 64 KiB, any bytes); session-ticket-keys: one file of 80 random bytes per key, the key that encrypts new tickets first (openssl rand 80 > FILE)",
      )
      .option("--publish <message>", "publish right after, with this message");
  secretWriteOptions(
    secret
      .command("create")
      .description(
        "create a secret: `tls NAME --cert FILE --key FILE` (a listener presents it), `validation NAME --ca FILE` (a cluster checks upstreams with it), `generic NAME --from-file FILE` (a filter reads it: OAuth2, credential injector, ...) or `session-ticket-keys NAME --from-file FILE...` (a listener resumes TLS sessions with them)",
      )
      .argument("<type>", "tls, validation, generic or session-ticket-keys")
      .argument("<name>", "the secret's name (what tlsSecretName refers to)")
      .option("--cert <file>", "tls: the certificate chain, PEM, leaf first")
      .option("--key <file>", "tls: the leaf certificate's private key, PEM")
      .option("--ca <file>", "validation: the trusted CA certificates, PEM"),
  ).action(
    clientAction(
      program,
      (client, type: string, name: string, options: secretCommands.SecretWriteOptions) =>
        secretCommands.createSecret(client, stdout, type, name, options),
    ),
  );
  secretWriteOptions(
    secret
      .command("rotate")
      .description(
        "replace a secret's certificate (and key), CA bundle, value (--from-file FILE) or ticket keys (--from-file NEW CURRENT...) under the same name; proxies get the new Secret on publish, their listeners and clusters untouched",
      )
      .argument("<name>", "the secret to rotate")
      .option("--cert <file>", "tls: the new certificate chain, PEM")
      .option(
        "--key <file>",
        "tls: its private key (omit to keep the stored key, if the certificate is for it)",
      )
      .option("--ca <file>", "validation: the new trusted CA certificates, PEM"),
  ).action(
    clientAction(program, (client, name: string, options: secretCommands.SecretWriteOptions) =>
      secretCommands.rotateSecret(client, stdout, name, options),
    ),
  );
  program
    .command("diff")
    .description(
      "show what publishing the draft would change (or the changes between two versions)",
    )
    .option("--from <version>", "compare from this version (default: the latest)")
    .option("--to <version>", "compare to this version (default: the draft)")
    .option("-o, --output <format>", "patch (default) or json (the API's DiffResponse)")
    .option(
      "-f, --file <path>",
      "instead: what applying these files would change, and every issue, changing nothing (exit 0 nothing, 1 changes, 2 errors, 3 would be rejected by clients, 4 warnings with --strict, 5 the command failed); as apply -f",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("-R, --recursive", "with -f: read the directories below each directory too")
    .option("--prune", "with -f: also show what apply --prune would delete")
    .option("-l, --selector <terms>", "with --prune: as apply's")
    .option("-t, --type <type>", `with -f: ${TYPE_HELP}`)
    .option("--strict", "with -f: any warning fails (exit 4)")
    .action(
      clientAction(
        program,
        async (
          client,
          options: {
            from?: string;
            to?: string;
            output?: string;
            file: string[];
            recursive?: boolean;
            prune?: boolean;
            selector?: string;
            type?: string;
            strict?: boolean;
          },
        ) => {
          if (options.file.length === 0) {
            if (options.strict) throw new CliError("--strict judges the files of -f: add -f FILE");
            return commands.showDiff(client, stdout, options);
          }
          // A failed run is not "differs" (1): CI tells them apart.
          cliIo().setExitCode(
            await failingWith(commands.DIFF_EXIT.failed, () =>
              commands.diffFiles(client, stdout, options.file, options),
            ),
          );
        },
      ),
    );
  program
    .command("publish")
    .description(
      "validate the draft and publish it as the next version: to every node at once, or as a rollout in waves (--rollout PLAN, --waves ..., or the admins' default plan)",
    )
    .requiredOption("-m, --message <message>", "what changed and why")
    .option(
      "--override-route-tests <reason>",
      "publish although route tests fail, for this reason (admins; recorded in the audit log)",
    )
    .option(
      "--rollout <plan>",
      "go out as a rollout by this stored plan (switchyard rollout plans)",
    )
    .option(
      "--waves <shares>",
      "go out as a rollout in these waves, each a count of nodes or a percentage of the group's connected nodes, e.g. 1,10%,50%,100%",
    )
    .option(
      "--bake <duration>",
      "with --waves: how long each wave runs once its nodes ACKed (default 2m)",
    )
    .option(
      "--ack-timeout <duration>",
      "with --waves: how long each node has to ACK the version (default 30s)",
    )
    .option(
      "--max-error-increase <points>",
      "with --waves: a traffic gate: each wave's error ratio on the clusters the version touches may exceed the previous version's nodes' by at most this many percentage points",
    )
    .option(
      "--min-requests <n>",
      "with --max-error-increase: requests each side needs per cluster before the ratios are compared (default 100)",
    )
    .option("--on-failure <action>", "with --waves: rollback (default) or pause")
    .addOption(abortRolloutOption())
    .addOption(acceptWarningsOption())
    .option(
      "--skip-rollout <reason>",
      "publish to every node at once, past the default plan and the team's requirement (admins; recorded in the audit log)",
    )
    .action(
      publishAction(
        program,
        (
          client,
          rollouts,
          options: PublishRolloutFlags & {
            message: string;
            overrideRouteTests?: string;
            abortRollout?: boolean;
            acceptWarnings?: boolean;
          },
        ) => publishCommands.publish(client, stdout, options, rollouts),
      ),
    );
  const review = program
    .command("review")
    .description("review requests: for teams whose publishes wait for an admin");
  review
    .command("request")
    .description("ask an admin to publish the draft (as switchyard diff shows it now)")
    .requiredOption("-m, --message <message>", "what changed and why (the published message)")
    .action(
      clientAction(program, (client, options: { message: string }) =>
        reviewCommands.reviewRequest(client, stdout, options),
      ),
    );
  review
    .command("list")
    .description("review requests, newest first (open ones by default)")
    .option("--state <states>", "open, approved, rejected, withdrawn (comma-separated) or all")
    .option("--limit <n>", "how many (default 20)")
    .action(
      clientAction(program, (client, options: { state?: string; limit?: string }) =>
        reviewCommands.reviewList(client, stdout, options),
      ),
    );
  review
    .command("show <id>")
    .description("one review request: who asked, what it changes, its outcome")
    .action(
      clientAction(program, (client, id: string) => reviewCommands.reviewShow(client, stdout, id)),
    );
  review
    .command("approve <id>")
    .description("publish a review request's draft (admins)")
    .option("--comment <text>", "a note for the requester")
    .option(
      "--override-route-tests <reason>",
      "publish although route tests fail, for this reason (admins; recorded in the audit log)",
    )
    .addOption(abortRolloutOption())
    .addOption(acceptWarningsOption())
    .action(
      publishAction(
        program,
        (
          client,
          rollouts,
          id: string,
          options: {
            comment?: string;
            overrideRouteTests?: string;
            abortRollout?: boolean;
            acceptWarnings?: boolean;
          },
        ) => reviewCommands.reviewApprove(client, stdout, id, options, rollouts),
      ),
    );
  review
    .command("reject <id>")
    .description("turn a review request down, saying why (admins)")
    .requiredOption("--comment <text>", "why, for the requester")
    .action(
      clientAction(program, (client, id: string, options: { comment?: string }) =>
        reviewCommands.reviewClose(client, stdout, "reject", id, options),
      ),
    );
  review
    .command("withdraw <id>")
    .description("take back your own review request")
    .action(
      clientAction(program, (client, id: string) =>
        reviewCommands.reviewClose(client, stdout, "withdraw", id, {}),
      ),
    );
  program
    .command("history")
    .description("list published versions, newest first")
    .option("--limit <n>", "how many (default 20)")
    .option("-o, --output <format>", "table (default) or json (the API's ListSnapshotsResponse)")
    .action(
      clientAction(program, (client, options: { limit?: string; output?: string }) =>
        commands.history(client, stdout, options),
      ),
    );
  program
    .command("discard")
    .description(
      "undo the draft's unpublished changes, back to the latest published version: of the objects named (KIND NAME pairs), or all of them",
    )
    .argument("[objects...]", `KIND NAME pairs (kinds: ${KIND_HELP}); none: every change`)
    .action(
      clientAction(program, (client, objects: string[]) =>
        commands.discard(client, stdout, objects),
      ),
    );
  const endpoints = program
    .command("endpoints")
    .description(
      "register endpoints from deploy scripts: each call publishes one cluster's endpoints alone, on top of the latest version",
    );
  for (const [operation, what] of [
    ["set", "make the cluster's endpoints exactly these"],
    ["add", "register these endpoints (one already registered is replaced)"],
    ["remove", "deregister these endpoints (one not registered is nothing to do)"],
  ] as const) {
    endpoints
      .command(operation)
      .description(what)
      .argument("<cluster>", "a published cluster")
      .argument(
        operation === "set" ? "[endpoints...]" : "<endpoints...>",
        "ADDRESS:PORT ([::1]:8080 for IPv6)",
      )
      .option("--region <region>", "their locality's region")
      .option("--zone <zone>", "their locality's zone")
      .option("--sub-zone <subZone>", "their locality's sub-zone")
      .option("--priority <n>", "their locality's priority (default 0)")
      .option("--weight <n>", "their load-balancing weight")
      .option("--health <status>", "healthy, unhealthy, draining, timeout, degraded or unknown")
      .option("-m, --message <message>", "the version's message")
      .addOption(acceptWarningsOption())
      .action(
        clientAction(
          program,
          (client, cluster: string, addresses: string[], options: EndpointOptions) =>
            endpointCommands.setEndpoints(client, stdout, operation, cluster, addresses, options),
        ),
      );
  }
  endpoints
    .command("get")
    .description("list a cluster's endpoints with their locality, weight and health")
    .argument("<cluster>")
    .action(
      clientAction(program, (client, cluster: string) =>
        endpointCommands.listEndpoints(client, stdout, cluster),
      ),
    );
  program
    .command("rollback")
    .description("publish an older version's content again, as a new version")
    .argument("<version>", "the version to go back to")
    .option("-m, --message <message>", "why (default: Roll back to version N)")
    .action(
      clientAction(program, (client, version: string, options: { message?: string }) =>
        commands.rollback(client, stdout, version, options),
      ),
    );
  program
    .command("export")
    .description("print the whole configuration as Envoy v3 resources")
    .option("-o, --output <format>", "yaml (default) or json")
    .option("--version <version>", "a published version (default: the draft)")
    .action(
      clientAction(program, (client, options: { output?: string; version?: string }) =>
        commands.exportConfig(client, stdout, options),
      ),
    );
  program
    .command("nodes")
    .description("list the xDS nodes (proxies) and each type's sync status (CDS, EDS, LDS, RDS)")
    .option("-o, --output <format>", "table (default) or json")
    .option(
      "--at <time>",
      'what each node held at this time, from the history: RFC 3339 (2026-12-02T15:04:05Z), "now", "2h ago" or "-2h"',
    )
    .action(
      withClient(
        program,
        statusCommands.connectStatus,
        (client, options: { output?: string; at?: string }) =>
          options.at === undefined
            ? statusCommands.nodes(client, stdout, options)
            : historyCommands.nodesAt(client, stdout, { ...options, at: options.at }),
      ),
    );
  program
    .command("wait")
    .description(
      "wait until every connected node ACKed a published version (exit 1 on a NACK or the timeout), for CI pipelines; a version that went out as a rollout: until the rollout ends (exit 0 completed, 1 failed, rolled back or aborted, saying why)",
    )
    .option("--version <version>", "the published version to wait for (default: the latest)")
    .option("--rollout <id>", "wait for this rollout to end")
    .option(
      "--timeout <duration>",
      "give up after this long, e.g. 500ms, 30s, 2m (default 30s; a rollout: until it ends)",
    )
    .option(
      "--watch",
      "print the rollout as it goes, then the error ratio of the clusters the version touched (before and after the publish) until the timeout; a rollout: each change of its summary",
    )
    .option(
      "--max-error-ratio <ratio>",
      "watch the touched clusters' traffic until the timeout and exit 1 as soon as one's error ratio after the publish is above this (0.05 or 5%; not for a rollout, whose traffic gate judges it)",
    )
    .action(
      withClient(
        program,
        (server) => ({
          status: statusCommands.connectStatus(server),
          config: connect(server),
          rollout: connectRollout(server),
        }),
        (clients, options: rolloutWait.WaitCommandOptions) =>
          rolloutWait.wait(clients, stdout, options),
      ),
    );
  const route = program
    .command("route")
    .description("how requests are routed: ask where one goes, or run route test cases");
  route
    .command("test")
    .description(
      "where a request goes, as Envoy routes it (virtual host, route, cluster, rewrites, headers, policies); or, with -f, run route test cases (Envoy's router_check_tool format) and exit 1 if one fails",
    )
    .option("--host <host>", "the Host (:authority), may carry a port")
    .option("--path <path>", "the :path, may carry ?query")
    .option("--method <method>", "the :method (default GET)")
    .option(
      "-H, --header <name:value>",
      "a request header (repeatable)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option("--listener <name>", "through this listener's HTTP connection manager")
    .option("--route-configuration <name>", "or this route configuration")
    .option("--filter-chain <name|index>", "the listener's filter chain, when several route")
    .option("--node-group <name>", "as a node of this node group receives the configuration")
    .option("--https", "the request came over TLS (:scheme https)")
    .option("--random-value <n>", "resolves runtime fractions and weighted clusters (default 0)")
    .option("--version <version>", "a published version (default: the draft)")
    .option("-f, --file <file>", "route test cases to run (router_check_tool format; - for stdin)")
    .option("-o, --output <format>", "text (default) or json")
    .action(
      withClient(program, connectRouting, (client, options: routeCommands.RouteTestOptions) =>
        routeCommands.routeTest(client, stdout, options),
      ),
    );
  const tests = route
    .command("tests")
    .description(
      "stored route tests: cases a team pins (router_check_tool format); every publish runs them and is refused when it turns one from passing on the latest version to failing",
    );
  tests
    .command("list", { isDefault: true })
    .description("list the stored route tests")
    .action(
      withClient(program, connectRouting, (client) => routeCommands.listTests(client, stdout)),
    );
  tests
    .command("put <name>")
    .description("store (or replace) a route test: its cases from a file")
    .requiredOption("-f, --file <file>", "the cases (router_check_tool YAML or JSON; - for stdin)")
    .option("--team <team>", "the owning team (admins; a member's tests are their team's)")
    .option("--listener <name>", "the cases route through this listener")
    .option("--route-configuration <name>", "or this route configuration")
    .option(
      "--known-failing",
      "store the cases that fail on the latest version as known failing (they gate nothing) instead of being refused",
    )
    .action(
      withClient(
        program,
        connectRouting,
        (client, name: string, options: routeCommands.PutTestOptions) =>
          routeCommands.putTest(client, stdout, name, options),
      ),
    );
  tests
    .command("promote <name>")
    .description(
      "store a test again without known failing, once its known-failing cases pass on the latest version: they gate again",
    )
    .action(
      withClient(program, connectRouting, (client, name: string) =>
        routeCommands.promoteTest(client, stdout, name),
      ),
    );
  tests
    .command("delete <name>")
    .description("delete a stored route test")
    .action(
      withClient(program, connectRouting, (client, name: string) =>
        routeCommands.deleteTest(client, stdout, name),
      ),
    );
  tests
    .command("run")
    .description(
      "run every stored route test on the draft (or --version V); exit 1 if a case not known failing fails",
    )
    .option("--version <version>", "a published version (default: the draft)")
    .action(
      withClient(program, connectRouting, (client, options: { version?: string }) =>
        routeCommands.runTests(client, stdout, options),
      ),
    );
  const rollout = program
    .command("rollout")
    .description(
      "rollouts: a version reaching a node group in waves, each gated on ACKs and live traffic (publish --rollout PLAN or --waves ... starts one)",
    );
  const idOption = () =>
    new Option("--id <id>", "the rollout (default: the one running; rollout list shows them)");
  rollout
    .command("status")
    .description(
      "the running rollout (else the latest): phase, waves, the current gates with their figures, which node runs which version, why it failed",
    )
    .addOption(idOption())
    .option(
      "--watch",
      "print it again at each change until it ends: exit 0 when it completes, 1 when it fails or is aborted",
    )
    .option("--nodes <n>", "list this many of the group's nodes (default 20; -o json 100)")
    .option("-o, --output <format>", "text (default) or json (the API's Rollout message)")
    .action(
      withClient(
        program,
        connectRollout,
        async (client, options: rolloutRunCommands.StatusOptions) => {
          cliIo().setExitCode(await rolloutRunCommands.status(client, stdout, options));
        },
      ),
    );
  rollout
    .command("list")
    .description("recent rollouts, newest first: group, versions, phase, wave, summary")
    .option("--limit <n>", "how many (default 20)")
    .option("--active", "only those not ended")
    .option("-o, --output <format>", "table (default) or json (the API's ListRolloutsResponse)")
    .action(
      withClient(
        program,
        connectRollout,
        (client, options: { limit?: string; active?: boolean; output?: string }) =>
          rolloutRunCommands.list(client, stdout, options),
      ),
    );
  for (const [command, what] of [
    [
      "pause",
      "hold the rollout where it is: nothing is decided until someone resumes, promotes or aborts it",
    ],
    ["resume", "go on with a paused rollout"],
    [
      "promote",
      "end the current wave as passed: the next one starts now (or the rollout completes); --all --reason: every wave at once (admins)",
    ],
    ["abort", "roll back: every node that got the version is served the previous one again"],
  ] as const) {
    const steer = rollout
      .command(command)
      .description(`${what} (admins and the rollout's author)`)
      .addOption(idOption());
    if (command === "promote")
      steer
        .option("--all", "promote every remaining wave at once, skipping the plan (admins)")
        .option("--reason <text>", "with --all: why (recorded in the audit log)");
    steer.action(
      withClient(
        program,
        connectRollout,
        (client, options: { id?: string; all?: boolean; reason?: string }) =>
          rolloutRunCommands.steer(client, stdout, command, options),
      ),
    );
  }
  const plans = rollout
    .command("plans")
    .description(
      "stored rollout plans: waves, bake times, gates and what a failure does; admins write them and pick the default",
    );
  plans
    .command("list", { isDefault: true })
    .description("list the stored plans: each one's waves, and the default")
    .action(
      withClient(program, connectRollout, (client) => rolloutCommands.listPlans(client, stdout)),
    );
  plans
    .command("get <name>")
    .description("print a plan as its document (put reads it back)")
    .option("-o, --output <format>", "yaml (default) or json")
    .action(
      withClient(program, connectRollout, (client, name: string, options: { output?: string }) =>
        rolloutCommands.getPlan(client, stdout, name, options),
      ),
    );
  plans
    .command("put <name>")
    .description(
      "store (or replace) a plan from a YAML or JSON document (admins); each problem is named at its place in it",
    )
    .requiredOption("-f, --file <file>", "the plan (YAML or JSON, at most 64 KiB; - for stdin)")
    .action(
      withClient(program, connectRollout, (client, name: string, options: { file: string }) =>
        rolloutCommands.putPlan(client, stdout, name, options),
      ),
    );
  plans
    .command("delete <name>")
    .description("delete a plan (admins); the default plan cannot be deleted")
    .action(
      withClient(program, connectRollout, (client, name: string) =>
        rolloutCommands.deletePlan(client, stdout, name),
      ),
    );
  plans
    .command("default [name]")
    .description("make a plan the default plan, or --none for no default (admins)")
    .option("--none", "no default plan")
    .action(
      withClient(
        program,
        connectRollout,
        (client, name: string | undefined, options: { none?: boolean }) =>
          rolloutCommands.setDefaultPlan(client, stdout, name, options),
      ),
    );
  program
    .command("load")
    .description(
      "the load proxies reported (LRS) for clusters with report load on: requests, rate, errors and error ratio per cluster, locality, endpoint or node",
    )
    .option("--cluster <name>", "only this cluster's load")
    .option("--node <id>", "only what this node reported")
    .option("--by <breakdown>", "cluster (default), locality, endpoint or node")
    .option("--window <duration>", "how far back, up to 24h", "5m")
    .option("-o, --output <format>", "table (default) or json")
    .action(
      withClient(
        program,
        statusCommands.connectStatus,
        (client, options: loadCommands.LoadOptions) => loadCommands.load(client, stdout, options),
      ),
    );
  program
    .command("report-load")
    .description(
      "turn a cluster's report-load switch on or off in the draft: proxies report its load (LRS) once published",
    )
    .argument("<cluster>", "the cluster")
    .argument("<on|off>", "on or off")
    .action(
      clientAction(program, (client, cluster: string, onOff: string) =>
        loadCommands.reportLoad(client, stdout, cluster, onOff),
      ),
    );
  program
    .command("node")
    .description(
      "show one node: identity, per-type status and versions, NACK text, held resources, recent events",
    )
    .argument("<id>", "the node id")
    .option("-o, --output <format>", "table (default) or json")
    .option(
      "--at <time>",
      'what it held at this time (per type: version, ACKed or NACKed with the text, connected), from the history: RFC 3339, "now", "2h ago" or "-2h"',
    )
    .action(
      withClient(
        program,
        statusCommands.connectStatus,
        (client, id: string, options: { output?: string; at?: string }) =>
          options.at === undefined
            ? statusCommands.node(client, stdout, id, options)
            : historyCommands.nodeAt(client, stdout, id, { ...options, at: options.at }),
      ),
    );
  return program;
}

/**
 * Runs the CLI with `argv` (as process.argv: node, script, arguments) writing to and reading the
 * environment of `io`; answers the exit code. A StartupError or bad input is one line on stderr
 * and exit code 1; a usage error is commander's message and its code.
 */
export function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let chosen = 0;
  const run: CliIo = {
    env: io.env,
    stdin: io.stdin,
    out: (text) => io.out(text),
    err: (text) => io.err(text),
    setExitCode: (code) => {
      chosen = code;
      io.setExitCode(code);
    },
  };
  const parse = async () => {
    try {
      await createCli().parseAsync([...argv]);
      return chosen;
    } catch (error) {
      if (error instanceof CommanderError) return error.exitCode;
      const code = failureCode(error);
      // Errors the user can fix are one line; anything else is a bug and keeps its stack.
      const known =
        error instanceof StartupError || error instanceof DbError || error instanceof CliError;
      const text = !(error instanceof Error)
        ? String(error)
        : known
          ? error.message
          : (error.stack ?? error.message);
      run.err(`switchyard: ${text}\n`);
      return code;
    }
  };
  // The process's own run needs no context: cliIo() is the process's outside any. Entering an
  // AsyncLocalStorage context would, on Node 20, install a promise hook for the life of the
  // process, a cost on every promise `switchyard serve` makes (measured: 2-3% of a fan-out's CPU
  // in the hook alone, before the garbage it leaves).
  // A code a command chose is then the process's exitCode (processIo.setExitCode).
  if (io === processIo)
    return parse().then((code) => (code === 0 ? Number(process.exitCode ?? 0) : code));
  return withCliIo(run, parse);
}

/** The `switchyard` process: runCli on process.argv; exits with its code when it fails. */
export async function main(argv: readonly string[]): Promise<void> {
  const code = await runCli(argv);
  // A code a command chose (process.exitCode) ends the process once its output is written; a
  // failure ends it now, whatever it left open (a half-started server).
  if (code !== 0 && process.exitCode === undefined) process.exit(code);
}
