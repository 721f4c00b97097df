import { create } from "@bufbuild/protobuf";
import { VersionConvergenceSchema } from "@switchyard/proto/switchyard/v1/status_pb";
import { describe, expect, it } from "vitest";
import { convergenceLine, timelinePoints } from "./version-convergence";

const version = (over: Parameters<typeof create<typeof VersionConvergenceSchema>>[1]) =>
  create(VersionConvergenceSchema, { version: 3n, ...over });

describe("convergenceLine", () => {
  it("a version every node holds says how long all of them took, with the 50% and 99% marks", () => {
    expect(
      convergenceLine(
        version({ targeted: 12, converged: 12, msTo50: 300, msTo99: 1_200, msTo100: 1_200 }),
      ),
    ).toBe("100% of 12 nodes in 1.2 s (50% 300 ms, 99% 1.2 s)");
  });

  it("a version still converging says the share reached, rounded down, and how many NACKed it (and still do)", () => {
    expect(
      convergenceLine(
        version({ targeted: 3, converged: 2, nacked: 1, nackedEver: 2, msTo50: 250 }),
      ),
    ).toBe("66% of 3 nodes, 2 NACKed (1 still) (50% 250 ms)");
    // Superseded: the node moved on to the next version; it NACKed this one all the same.
    expect(convergenceLine(version({ targeted: 1, nackedEver: 1 }))).toBe("0% of 1 node, 1 NACKed");
  });

  it("a version no node was connected for says so, and one that changed nothing served says so", () => {
    expect(convergenceLine(version({ targeted: 0 }))).toBe("no nodes connected at publish");
    expect(
      convergenceLine(
        version({ targeted: 1, converged: 1, alreadyHeld: 1, msTo50: 0, msTo99: 0, msTo100: 0 }),
      ),
    ).toBe("100% of 1 node in 0 ms, unchanged for all (50% 0 ms, 99% 0 ms)");
  });
});

describe("timelinePoints", () => {
  it("oldest first, in seconds, leaving out versions that targeted no node", () => {
    const points = timelinePoints([
      version({ version: 5n, targeted: 2, msTo50: 1_500, nackedEver: 1 }),
      version({ version: 4n, targeted: 0 }),
      version({ version: 3n, targeted: 2, msTo50: 100, msTo99: 200, msTo100: 200 }),
    ]);
    expect(points).toEqual([
      { version: "v3", to50: 0.1, to99: 0.2, to100: 0.2, nackedEver: 0 },
      { version: "v5", to50: 1.5, to99: undefined, to100: undefined, nackedEver: 1 },
    ]);
  });
});
