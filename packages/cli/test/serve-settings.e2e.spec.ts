/**
 * `switchyard serve` refuses settings out of range in one line naming the flag and the variable,
 * before it starts anything (run in this process through the command tree).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { cli } from "./run-cli.js";

describe("switchyard serve settings", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("refuses a load report interval under a second or over an hour, from the flag or the environment", async () => {
    const often = await cli(["serve", "--load-report-interval", "100ms"]);
    expect(often.code).toBe(1);
    expect(often.stderr).toBe(
      "switchyard: a load report interval of 100 ms is out of range: use 1s to 1h (--load-report-interval, SWITCHYARD_LOAD_REPORT_INTERVAL)\n",
    );
    // `serve` reads its process's environment.
    vi.stubEnv("SWITCHYARD_LOAD_REPORT_INTERVAL", "2h");
    const seldom = await cli(["serve"]);
    expect(seldom.code).toBe(1);
    expect(seldom.stderr).toMatch(/load report interval of 7200000 ms is out of range/);
  });

  it("refuses a metrics token too short to protect anything, without showing it", async () => {
    vi.stubEnv("SWITCHYARD_METRICS_TOKEN", "hunter2");
    const weak = await cli(["serve"]);
    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(
      /SWITCHYARD_METRICS_TOKEN: is 7 characters long; use at least 16 \(e\.g\. openssl rand -hex 32\)/,
    );
    expect(weak.stderr + weak.stdout).not.toContain("hunter2");
  });
});
