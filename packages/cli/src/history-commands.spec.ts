import { describe, expect, it } from "vitest";
import { parseTime } from "./history-commands.js";

const NOW = Date.UTC(2026, 11, 2, 16, 0, 0);

describe("parseTime (--at)", () => {
  it("reads RFC 3339 times with their zone", () => {
    expect(parseTime("2026-12-02T15:04:05Z", NOW)).toBe(Date.UTC(2026, 11, 2, 15, 4, 5));
    expect(parseTime("2026-12-02T16:04:05+01:00", NOW)).toBe(Date.UTC(2026, 11, 2, 15, 4, 5));
    expect(parseTime("2026-12-02T15:04:05.250Z", NOW)).toBe(Date.UTC(2026, 11, 2, 15, 4, 5, 250));
  });

  it('reads "now", "2h ago" and "-2h" relative to now', () => {
    expect(parseTime("now", NOW)).toBe(NOW);
    expect(parseTime("2h ago", NOW)).toBe(NOW - 2 * 3_600_000);
    expect(parseTime("-2h", NOW)).toBe(NOW - 2 * 3_600_000);
    expect(parseTime("90s ago", NOW)).toBe(NOW - 90_000);
  });

  it("refuses a time without a zone, a bad duration or anything else, naming the input", () => {
    expect(() => parseTime("2026-12-02T15:04:05", NOW)).toThrow(
      /invalid time "2026-12-02T15:04:05"/,
    );
    expect(() => parseTime("2 fortnights ago", NOW)).toThrow(/invalid time "2 fortnights ago"/);
    expect(() => parseTime("-soon", NOW)).toThrow(/"soon" is no duration/);
    expect(() => parseTime("yesterday", NOW)).toThrow(/RFC 3339/);
  });
});
