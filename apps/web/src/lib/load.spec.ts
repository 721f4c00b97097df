import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { LoadSchema } from "@switchyard/proto/switchyard/v1/status_pb";
import { describe, expect, it } from "vitest";
import { formatRate, formatRatio, loadChart, loadTotals, sumTotals } from "./load";

const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);
const point = (offsetS: number, successful: number, errored = 0, widthSeconds = 10) => ({
  start: timestampFromMs(T0 + offsetS * 1000),
  widthSeconds,
  successful: BigInt(successful),
  errored: BigInt(errored),
});
const load = create(LoadSchema, {
  series: [
    { name: "eu/eu-1/", points: [point(0, 20), point(10, 30, 10)] },
    { name: "eu/eu-2/", points: [point(10, 5)] },
  ],
});

describe("load as the console shows it", () => {
  it("charts each series' completed requests per second per bucket", () => {
    expect(loadChart(load)).toEqual([
      { at: T0, "eu/eu-1/": 2 },
      { at: T0 + 10_000, "eu/eu-1/": 4, "eu/eu-2/": 0.5 },
    ]);
  });

  it("totals each series over the window: requests, errors, their ratio and the mean rate; and sums them", () => {
    const totals = loadTotals(load, 300);
    expect(totals).toEqual([
      { name: "eu/eu-1/", requests: 60, errors: 10, dropped: 0, rps: 0.2, errorRatio: 10 / 60 },
      { name: "eu/eu-2/", requests: 5, errors: 0, dropped: 0, rps: 5 / 300, errorRatio: 0 },
    ]);
    expect(sumTotals("all", totals, 300)).toMatchObject({
      requests: 65,
      errors: 10,
      errorRatio: 10 / 65,
    });
  });

  it("writes rates and ratios short", () => {
    expect([formatRate(12.34), formatRate(1.23), formatRate(0.012)]).toEqual([
      "12/s",
      "1.2/s",
      "0.01/s",
    ]);
    expect([formatRatio(0), formatRatio(0.025), formatRatio(0.5)]).toEqual(["0%", "2.5%", "50%"]);
  });
});
