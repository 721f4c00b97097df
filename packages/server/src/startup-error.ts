import * as fs from "node:fs";

/**
 * A failure to start that the user can fix: its message is one line saying what went wrong and
 * how to fix it, printed by the CLI without a stack trace.
 */
export class StartupError extends Error {
  override readonly name = "StartupError";
}

/** The text of a file a flag names; a StartupError naming the flag and the file if unreadable. */
export function readFlagFile(file: string, flag: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new StartupError(
      `cannot read ${flag} ${file}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** Whether `error` is a Node system error with the given code (EADDRINUSE, ECONNREFUSED, ...). */
export function hasErrorCode(error: unknown, ...codes: string[]): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== undefined && codes.includes(code)) return true;
    if (e instanceof AggregateError && e.errors.some((inner) => hasErrorCode(inner, ...codes)))
      return true;
  }
  return false;
}

/** A database URL with its password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable URL)";
  }
}
