import type { Issue } from "@switchyard/proto/switchyard/v1/config_pb";

/**
 * The warnings of a validation that would refuse a publish without accept_warnings: predicted
 * rejections (Issue.rejection: some node group's clients would NACK what the warning is about)
 * that the latest published version does not already have (packages/server/src/store/
 * rejection-gate.ts). A rejection the fleet already lives with asks nothing.
 */
export function newRejections(issues: readonly Issue[]): Issue[] {
  return issues.filter(
    (issue) => issue.rejection !== undefined && !issue.rejection.alreadyPublished,
  );
}

/** Who would reject it, in words: `proxyless gRPC clients of node group "default"`. */
export function rejectedByText(issue: Issue): string {
  const rejection = issue.rejection;
  if (rejection === undefined) return "";
  const clients = rejection.client === "grpc" ? "proxyless gRPC clients" : "Envoy proxies";
  const groups = rejection.nodeGroups.map((group) => `"${group}"`).join(", ");
  return `${clients} of node ${rejection.nodeGroups.length === 1 ? "group" : "groups"} ${groups}`;
}

/** The server's refusal of a publish for new predicted rejections (rejectionRefusalText). */
export function isRejectionRefusal(message: string): boolean {
  return /^validation predicts \d+ rejection\(s\) by clients/.test(message);
}
