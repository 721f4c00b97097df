import { create } from "@bufbuild/protobuf";
import { LoadSchema } from "@switchyard/proto/switchyard/v1/status_pb";
import { describe, expect, it } from "vitest";
import type { ConfigClient } from "./client.js";
import { load, loadTable, reportLoad } from "./load-commands.js";
import type { StatusClient } from "./status-commands.js";

/** A client that fails the test if it is called: refusals happen before any request. */
const untouchable = new Proxy(
  {},
  {
    get: (_target, method) => () => {
      throw new Error(`${String(method)} was called`);
    },
  },
);

describe("switchyard load and report-load", () => {
  it("sums each series' points: requests completed, their rate over the window, errors, their ratio and drops", () => {
    const answer = create(LoadSchema, {
      series: [
        {
          name: "blue",
          points: [
            { successful: 90n, errored: 10n, dropped: 1n },
            { successful: 100n, errored: 0n },
          ],
        },
        { name: "idle", points: [{ dropped: 3n }] },
      ],
    });
    expect(
      loadTable(answer, 100, "cluster")
        .split("\n")
        .map((l) => l.trimEnd()),
    ).toEqual([
      "CLUSTER  REQUESTS  RATE    ERRORS  ERROR RATIO  DROPPED",
      "blue     200       2.00/s  10      5.0%         1",
      "idle     0         0.00/s  0       -            3",
      "",
    ]);
    expect(loadTable(create(LoadSchema, {}), 300, "cluster")).toMatch(
      /^no load reported in the last 300 s/,
    );
  });

  it("refuses a breakdown, window or switch it does not know, before asking the server", async () => {
    const out = { out: () => {} };
    const status = untouchable as StatusClient;
    await expect(load(status, out, { by: "zone" })).rejects.toThrow(
      '--by "zone": use cluster, locality, endpoint or node',
    );
    await expect(load(status, out, { window: "1500ms" })).rejects.toThrow(/whole seconds/);
    await expect(load(status, out, { window: "soon" })).rejects.toThrow(/invalid duration/);
    await expect(reportLoad(untouchable as ConfigClient, out, "blue", "yes")).rejects.toThrow(
      '"yes": use on or off',
    );
  });
});
