const units: readonly (readonly [Intl.RelativeTimeFormatUnit, number])[] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

/** Within this many seconds either way, a time is "just now": it also absorbs small clock skew. */
const justNowSeconds = 45;

/**
 * "just now", "3 minutes ago", "yesterday", "in 2 hours": the largest whole unit that fits.
 * `now` is a parameter so that callers tick it and tests pin it.
 */
export function formatRelativeTime(then: Date, now: Date, locale = "en"): string {
  const seconds = (then.getTime() - now.getTime()) / 1000;
  if (Math.abs(seconds) < justNowSeconds) return "just now";
  const format = formatterFor(locale);
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return format.format(roundAway(seconds / size), unit);
  }
  return format.format(roundAway(seconds), "second");
}

/** One formatter per locale: making one costs more than formatting (a table has many times). */
const formatters = new Map<string, Intl.RelativeTimeFormat>();

function formatterFor(locale: string): Intl.RelativeTimeFormat {
  let format = formatters.get(locale);
  if (!format) {
    format = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
    formatters.set(locale, format);
  }
  return format;
}

/** Rounds halves away from zero in both directions: 90 s ago and in 90 s are both 2 minutes. */
function roundAway(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x));
}
