/**
 * How hard a password is to guess: zxcvbn (@zxcvbn-ts/core, with its common-password list, the
 * keyboard patterns and the English dictionaries), which scores a password 0 to 4 by the guesses an
 * attacker trying likely passwords first would need (score 3: under 10^10 guesses, "safely
 * unguessable: moderate protection from offline slow-hash scenario"), and says why in words.
 *
 * The dictionaries are a few megabytes: loaded once, on the first password set, never at start or
 * on a login.
 */
import type { ZxcvbnFactory } from "@zxcvbn-ts/core";

export interface PasswordStrength {
  /** 0 (too guessable) to 4 (very unguessable). */
  readonly score: 0 | 1 | 2 | 3 | 4;
  /** What makes it guessable, if anything, and what would help: zxcvbn's own words. */
  readonly warning: string;
  readonly suggestions: readonly string[];
}

let estimator: Promise<ZxcvbnFactory> | undefined;

function loadEstimator(): Promise<ZxcvbnFactory> {
  estimator ??= Promise.all([
    import("@zxcvbn-ts/core"),
    import("@zxcvbn-ts/language-common"),
    import("@zxcvbn-ts/language-en"),
  ]).then(
    ([{ ZxcvbnFactory }, common, english]) =>
      new ZxcvbnFactory({
        dictionary: { ...common.dictionary, ...english.dictionary },
        graphs: common.adjacencyGraphs,
        translations: english.translations,
      }),
    (error: unknown) => {
      estimator = undefined;
      throw error;
    },
  );
  return estimator;
}

/**
 * The strength of `password` for an account; `userInputs` (its username, this product's names)
 * count as words an attacker tries first.
 */
export async function passwordStrength(
  password: string,
  userInputs: readonly string[],
): Promise<PasswordStrength> {
  const result = (await loadEstimator()).check(password, [...userInputs]);
  return {
    score: result.score,
    warning: result.feedback.warning ?? "",
    suggestions: result.feedback.suggestions,
  };
}
