import { create } from "@bufbuild/protobuf";
import { IssueSchema, Severity } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import { isRejectionRefusal, newRejections, rejectedByText } from "./predicted-rejections";

const warning = (code: string, rejection?: { nodeGroups: string[]; alreadyPublished: boolean }) =>
  create(IssueSchema, {
    severity: Severity.WARNING,
    code,
    message: code,
    ...(rejection ? { rejection: { client: "grpc", ...rejection } } : {}),
  });

describe("predicted rejections in the console", () => {
  it("asks only about rejections the published version does not have", () => {
    const fresh = warning("grpc-unsupported-lb-policy", {
      nodeGroups: ["default"],
      alreadyPublished: false,
    });
    const old = warning("grpc-unsupported-cluster-type", {
      nodeGroups: ["default"],
      alreadyPublished: true,
    });
    expect(newRejections([fresh, old, warning("cluster-without-endpoints")])).toEqual([fresh]);
  });

  it("says whose clients would reject it", () => {
    const issue = warning("grpc-unsupported-lb-policy", {
      nodeGroups: ["edge", "grpc"],
      alreadyPublished: false,
    });
    expect(rejectedByText(issue)).toBe('proxyless gRPC clients of node groups "edge", "grpc"');
  });

  it("tells the server's refusal for predicted rejections from others", () => {
    expect(
      isRejectionRefusal(
        "validation predicts 1 rejection(s) by clients that version 3 does not have: fix ...",
      ),
    ).toBe(true);
    expect(isRejectionRefusal("nothing to publish")).toBe(false);
  });
});
