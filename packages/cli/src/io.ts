/**
 * Where the CLI writes and which environment it reads: the process's, or those of one run
 * (runCli's `io`), kept per run with AsyncLocalStorage so runs in one process never mix (the
 * tests run commands in process, several at once).
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface CliIo {
  readonly env: NodeJS.ProcessEnv;
  /** Standard input, whole (`-f -`, --password-stdin); undefined: the process's. */
  readonly stdin?: string | undefined;
  out(text: string): void;
  err(text: string): void;
  /** The exit code a command chose (diff -f: 0, 1 or 2) without failing. */
  setExitCode(code: number): void;
}

export const processIo: CliIo = {
  get env() {
    return process.env;
  },
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  setExitCode: (code) => {
    process.exitCode = code;
  },
};

const current = new AsyncLocalStorage<CliIo>();

/** The io of the run in progress (the process's outside any). */
export function cliIo(): CliIo {
  return current.getStore() ?? processIo;
}

export function withCliIo<T>(io: CliIo, run: () => T): T {
  return current.run(io, run);
}

/** The run's standard input, whole. */
export async function readStdin(): Promise<string> {
  const given = cliIo().stdin;
  if (given !== undefined) return given;
  let text = "";
  for await (const chunk of process.stdin) text += chunk.toString();
  return text;
}

/** Whether the run can ask on a terminal (never a run given its standard input). */
export function stdinIsTerminal(): boolean {
  return cliIo().stdin === undefined && process.stdin.isTTY === true;
}
