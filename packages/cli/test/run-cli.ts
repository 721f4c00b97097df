/**
 * The switchyard command run in this test process, as a user runs it, for the tests of its
 * commands and of what they print.
 */
import { runCli as runSwitchyard } from "../src/cli.js";

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Standard output and error as written, interleaved. */
  readonly output: string;
}

/**
 * Runs the CLI in this process (runCli: the command tree `switchyard` runs, with this run's own
 * output, environment and standard input), as `switchyard ARGS` would. Runs at once never mix.
 * The spawned binary itself is covered by the tests that use processes.ts's `run`.
 */
export async function cli(
  args: readonly string[],
  options: { readonly env?: Record<string, string>; readonly stdin?: string } = {},
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  let output = "";
  const code = await runSwitchyard(["node", "switchyard", ...args], {
    env: { ...process.env, SWITCHYARD_SERVER: "", ...options.env },
    stdin: options.stdin ?? "",
    out: (text) => {
      stdout += text;
      output += text;
    },
    err: (text) => {
      stderr += text;
      output += text;
    },
    setExitCode: () => {},
  });
  return { code, stdout, stderr, output };
}

/** The CLI against `server`, signed in with the API token `token` (SWITCHYARD_TOKEN). */
export function runCli(server: string, token: string, ...args: string[]): Promise<CliResult> {
  return cli(["--server", server, ...args], { env: { SWITCHYARD_TOKEN: token } });
}
