import { describe, expect, it } from "vitest";
import { formatRelativeTime } from "./relative-time";

const now = new Date("2026-06-15T12:00:00Z");
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);

describe("formatRelativeTime", () => {
  it.each([
    [0, "just now"],
    [44, "just now"],
    [-30, "just now"], // a server clock slightly ahead is not "in 30 seconds"
    [50, "50 seconds ago"],
    [90, "2 minutes ago"],
    [59 * 60, "59 minutes ago"],
    [3 * 3600, "3 hours ago"],
    [24 * 3600, "yesterday"],
    [3 * 24 * 3600, "3 days ago"],
    [14 * 24 * 3600, "2 weeks ago"],
    [90 * 24 * 3600, "3 months ago"],
    [800 * 24 * 3600, "2 years ago"],
    [-2 * 3600, "in 2 hours"],
  ])("%i seconds ago reads %s", (seconds, expected) => {
    expect(formatRelativeTime(ago(seconds), now)).toBe(expected);
  });
});
