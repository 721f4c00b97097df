/** A failure the CLI reports in a few readable lines, then exits non-zero. */
export class CliError extends Error {
  override readonly name = "CliError";
}
