/** A failure the CLI reports in a few readable lines, then exits non-zero. */
export class CliError extends Error {
  override readonly name = "CliError";
}

const FAILURE_CODE = Symbol("the exit code of a failure");

/**
 * Runs `work`; a failure it throws ends the CLI with `code` instead of 1 (runCli): for a command
 * whose own codes give 1 another meaning (`switchyard diff -f`: 1 is "differs").
 */
export async function failingWith<T>(code: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (typeof error === "object" && error !== null)
      Object.defineProperty(error, FAILURE_CODE, { value: code });
    throw error;
  }
}

/** The exit code a failure ends the CLI with: 1, or the one failingWith gave it. */
export function failureCode(error: unknown): number {
  const code =
    typeof error === "object" && error !== null
      ? (error as { [FAILURE_CODE]?: unknown })[FAILURE_CODE]
      : undefined;
  return typeof code === "number" ? code : 1;
}

/** `to`, an error explaining `from`, ending the CLI with the code `from` would have. */
export function sameFailureCode<E extends Error>(from: unknown, to: E): E {
  const code = failureCode(from);
  if (code !== 1) Object.defineProperty(to, FAILURE_CODE, { value: code });
  return to;
}
