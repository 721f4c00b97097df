import { Code, ConnectError } from "@connectrpc/connect";
import { Severity, ValidationErrorsSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import { classifyRefusal, refusalTitle } from "./refusal";

describe("classifyRefusal", () => {
  it("recognises a publish on top of a version that is no longer the latest", () => {
    const r = classifyRefusal(
      new ConnectError(
        "version 3 was published after the version you reviewed (2): review the changes again",
        Code.FailedPrecondition,
      ),
    );
    expect(r.t).toBe("stale-base");
    expect(refusalTitle(r)).toMatch(/newer version/);
  });

  it("recognises a draft edited after the review", () => {
    const r = classifyRefusal(
      new ConnectError(
        "the draft changed after you reviewed it: review the changes again",
        Code.FailedPrecondition,
      ),
    );
    expect(r.t).toBe("draft-changed");
  });

  it("recognises an empty publish", () => {
    const r = classifyRefusal(
      new ConnectError(
        "nothing to publish: the draft is identical to version 2",
        Code.FailedPrecondition,
      ),
    );
    expect(r.t).toBe("no-changes");
  });

  it("collects the issues of a refused, invalid request from its ValidationErrors detail", () => {
    const error = new ConnectError("the draft has 1 error", Code.InvalidArgument, undefined, [
      {
        desc: ValidationErrorsSchema,
        value: { issues: [{ severity: Severity.ERROR, path: 'clusters["a"]', message: "bad" }] },
      },
    ]);
    const r = classifyRefusal(error);
    expect(r.t === "invalid" && r.issues.map((i) => i.path)).toEqual(['clusters["a"]']);
    expect(refusalTitle(r)).toBe("Refused: 1 problem to fix first.");
  });

  it("recognises a member whose team requires review, so the page offers to request one", () => {
    const r = classifyRefusal(
      new ConnectError(
        "team shop requires an admin's review before changes go out: request one (switchyard review request, or Request review on the Changes page)",
        Code.FailedPrecondition,
      ),
    );
    expect(r.t).toBe("review-required");
    expect(refusalTitle(r)).toMatch(/request one instead/);
    const rollback = classifyRefusal(
      new ConnectError(
        "team shop requires an admin's review before changes go out: ask an admin to roll back",
        Code.FailedPrecondition,
      ),
    );
    expect(refusalTitle(rollback)).toBe(
      "team shop requires an admin's review before changes go out: ask an admin to roll back",
    );
  });

  it("recognises a publish refused because a rollout runs in a group it changes, naming the rollout", () => {
    const message =
      'node group "default" has rollout 4 (version 7 → 8, baking wave 1 of 2): wait for it to end, abort it (switchyard rollout abort 4), or publish with --abort-rollout';
    const r = classifyRefusal(new ConnectError(message, Code.FailedPrecondition));
    expect(r).toEqual({ t: "rollout-running", message, rolloutId: 4n });
    expect(refusalTitle(r)).toMatch(/rollout 4 is under way.*abort it and publish/);
  });

  it("says what to do next in the reader's own terms", () => {
    const r = classifyRefusal(
      new ConnectError("the draft changed after you reviewed it", Code.FailedPrecondition),
    );
    expect(refusalTitle(r, "request a review")).toBe(
      "The draft changed after you reviewed it. Review the updated changes, then request a review.",
    );
  });

  it("keeps the server's message for anything else", () => {
    const r = classifyRefusal(new ConnectError("boom", Code.Internal));
    expect(r).toEqual({ t: "other", message: "boom", code: Code.Internal });
  });
});
