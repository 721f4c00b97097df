/**
 * Review requests over the real API on a real database: a member of a team that requires review
 * asks, an admin approves (publishes exactly what was asked) or rejects, the requester withdraws;
 * out-of-date requests are refused; each step is audited.
 */
import { Code, type Interceptor } from "@connectrpc/connect";
import { ChangeType, LbPolicy, ReviewState } from "@switchyard/proto/switchyard/v1/config_pb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { edsCluster } from "../src/testing/api-objects.js";
import {
  accessClient,
  bearer,
  configClient,
  createAccount,
  Role,
  refusal,
  tokenFor,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

describe("review requests", () => {
  let harness: Harness;
  let admin: Interceptor[];
  let member: Interceptor[];
  let other: Interceptor[];
  let viewer: Interceptor[];
  const api = (interceptors: Interceptor[]) => configClient(harness.baseUrl, interceptors);
  const cluster = (name: string, port: number) =>
    edsCluster(name, `127.0.0.1:${port}`, { lbPolicy: LbPolicy.ROUND_ROBIN });
  /** `who` asks for a review of the draft as `diff` showed it. */
  const ask = (
    who: Interceptor[],
    diff: { fromVersion: bigint; draftRevision: string },
    message: string,
  ) =>
    api(who).requestReview({
      message,
      baseVersion: diff.fromVersion,
      draftRevision: diff.draftRevision,
    });
  /** The member changes their cluster and asks for review of exactly that draft. */
  const request = async (who: Interceptor[], port: number, message = `port ${port}`) => {
    await api(who).updateCluster(cluster(who === other ? "c-backend" : "a-backend", port));
    return ask(who, await api(who).diff({ bodies: { omit: true } }), message);
  };
  const publishedPort = async (name: string) => {
    const [latest] = (await api(admin).listSnapshots({ limit: 1 })).snapshots;
    const exported = await api(admin).export({ version: latest?.version ?? 0n });
    // The cluster's endpoints (EDS): its ClusterLoadAssignment's first port.
    return exported.content.match(
      new RegExp(`cluster_name: ${name}\\n[\\s\\S]*?port_value: (\\d+)`),
    )?.[1];
  };

  beforeAll(async () => {
    harness = await startHarness();
    const token = await harness.token();
    admin = [bearer(token)];
    const access = accessClient(harness.baseUrl, admin);
    const teamA = (
      await access.createTeam({ name: "team-a", domains: ["*.a.example.com"], requireReview: true })
    ).id;
    const teamC = (await access.createTeam({ name: "team-c", requireReview: true })).id;
    await createAccount(harness.baseUrl, "member-a", Role.MEMBER, teamA);
    await createAccount(harness.baseUrl, "member-c", Role.MEMBER, teamC);
    await createAccount(harness.baseUrl, "viewer", Role.VIEWER);
    member = [bearer(await tokenFor(harness.baseUrl, "member-a", USER_PASSWORD))];
    other = [bearer(await tokenFor(harness.baseUrl, "member-c", USER_PASSWORD))];
    viewer = [bearer(await tokenFor(harness.baseUrl, "viewer", USER_PASSWORD))];
    await api(member).createCluster(cluster("a-backend", 50051));
    await api(other).createCluster(cluster("c-backend", 50061));
    await api(admin).publish({ message: "start" });
  });

  afterAll(async () => {
    await harness?.stop();
  });

  beforeEach(async () => {
    // Each case starts from a draft equal to the latest version and no open request.
    const open = await api(admin).listReviewRequests({ states: [ReviewState.OPEN] });
    for (const r of open.requests)
      await api(admin).rejectReview({ id: r.id, comment: "test cleanup" });
    const diff = await api(admin).diff({});
    if (diff.changes.length > 0) await api(admin).publish({ message: "test cleanup" });
  });

  it("a member whose team requires review is told to request one; an admin's approval publishes exactly the requested draft, authored by the member", async () => {
    await api(member).updateCluster(cluster("a-backend", 50052));
    const refused = await refusal(api(member).publish({ message: "x" }));
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage).toContain("switchyard review request");

    const diff = await api(member).diff({ bodies: { omit: true } });
    const asked = await ask(member, diff, "a-backend to 50052");
    expect(asked.state).toBe(ReviewState.OPEN);
    expect(asked.current).toBe(true);
    expect(asked.requester).toBe("member-a");
    expect(asked.team).toBe("team-a");
    expect(asked.changes.map((c) => [c.name, c.change])).toEqual([
      ["a-backend", ChangeType.MODIFIED],
    ]);
    // Nothing went out yet.
    expect(await publishedPort("a-backend")).toBe("50051");

    const approved = await api(admin).approveReview({ id: asked.id, comment: "looks right" });
    expect(approved.request?.state).toBe(ReviewState.APPROVED);
    expect(approved.request?.decidedBy).toBe("admin");
    expect(approved.request?.comment).toBe("looks right");
    const version = approved.publish?.snapshot?.version ?? 0n;
    expect(approved.request?.publishedVersion).toBe(version);
    expect(approved.publish?.snapshot?.author).toBe("member-a");
    expect(approved.publish?.snapshot?.message).toBe(
      `a-backend to 50052 (review #${asked.id}, approved by admin)`,
    );
    expect(await publishedPort("a-backend")).toBe("50052");
    // Approved once: a second approval is refused and publishes nothing.
    const again = await refusal(api(admin).approveReview({ id: asked.id }));
    expect(again.code).toBe(Code.FailedPrecondition);
    expect(again.rawMessage).toContain("is approved");
    const [latest] = (await api(admin).listSnapshots({ limit: 1 })).snapshots;
    expect(latest?.version).toBe(version);
  });

  it("a request whose draft changed (or on top of which someone published) is out of date: approval is refused and publishes nothing", async () => {
    const asked = await request(member, 50053);
    // Someone edits the draft after the request.
    await api(member).updateCluster(cluster("a-backend", 50054));
    const listed = await api(admin).getReviewRequest({ id: asked.id });
    expect(listed.state).toBe(ReviewState.OPEN);
    expect(listed.current).toBe(false);
    const refused = await refusal(api(admin).approveReview({ id: asked.id }));
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage).toMatch(/review #\d+ is out of date: the draft changed/);
    expect(refused.rawMessage).toContain("Ask member-a to review the draft and request again");
    expect(await publishedPort("a-backend")).toBe("50052");
    expect((await api(admin).getReviewRequest({ id: asked.id })).state).toBe(ReviewState.OPEN);

    // Put the draft back as requested; an admin publishes it directly meanwhile.
    await api(member).updateCluster(cluster("a-backend", 50053));
    expect((await api(admin).getReviewRequest({ id: asked.id })).current).toBe(true);
    await api(admin).publish({ message: "admin publishes the draft directly" });
    expect((await api(admin).getReviewRequest({ id: asked.id })).current).toBe(false);
    const stale = await refusal(api(admin).approveReview({ id: asked.id }));
    expect(stale.rawMessage).toMatch(/out of date: version \d+ was published after the request/);
  });

  it("a member cannot request a review of a draft holding another team's change; a viewer cannot request at all", async () => {
    await api(member).updateCluster(cluster("a-backend", 50055));
    await api(other).updateCluster(cluster("c-backend", 50063));
    const diff = await api(member).diff({ bodies: { omit: true } });
    const refused = await refusal(ask(member, diff, "mine"));
    expect(refused.code).toBe(Code.PermissionDenied);
    expect(refused.rawMessage).toContain("c-backend");
    const byViewer = await refusal(ask(viewer, diff, "x"));
    expect(byViewer.code).toBe(Code.PermissionDenied);
    expect((await api(admin).listReviewRequests({ states: [ReviewState.OPEN] })).requests).toEqual(
      [],
    );
  });

  it("a request names the draft it asks for: without a revision, with a stale one, or without a message it is refused with what to fix", async () => {
    await api(member).updateCluster(cluster("a-backend", 50056));
    const diff = await api(member).diff({ bodies: { omit: true } });
    const noRevision = await refusal(
      api(member).requestReview({ message: "x", baseVersion: diff.fromVersion }),
    );
    expect(noRevision.code).toBe(Code.InvalidArgument);
    expect(noRevision.rawMessage).toContain("draft_revision is required");
    const noMessage = await refusal(ask(member, diff, "  "));
    expect(noMessage.code).toBe(Code.InvalidArgument);
    expect(noMessage.rawMessage).toContain("needs a message");
    await api(member).updateCluster(cluster("a-backend", 50057));
    const stale = await refusal(ask(member, diff, "x"));
    expect(stale.code).toBe(Code.FailedPrecondition);
    expect(stale.rawMessage).toContain("the draft changed after you reviewed it");
    const unknown = await refusal(api(admin).approveReview({ id: 99_999n }));
    expect(unknown.code).toBe(Code.NotFound);
  });

  it("a rejection needs a reason and leaves the draft as it is; only the requester withdraws, and a newer request replaces their open one", async () => {
    const first = await request(member, 50058);
    const second = await request(member, 50059, "second thoughts");
    expect((await api(admin).getReviewRequest({ id: first.id })).state).toBe(ReviewState.WITHDRAWN);
    expect((await api(admin).getReviewRequest({ id: first.id })).comment).toBe(
      "replaced by a newer request",
    );
    const noReason = await refusal(api(admin).rejectReview({ id: second.id }));
    expect(noReason.code).toBe(Code.InvalidArgument);
    const notYours = await refusal(api(other).withdrawReview({ id: second.id }));
    expect(notYours.code).toBe(Code.PermissionDenied);
    expect(notYours.rawMessage).toContain("only member-a, who asked");
    const rejected = await api(admin).rejectReview({ id: second.id, comment: "wrong port" });
    expect(rejected.state).toBe(ReviewState.REJECTED);
    expect(rejected.comment).toBe("wrong port");
    expect(
      (await api(member).getCluster({ name: "a-backend" })).localities[0]?.endpoints[0]?.port,
    ).toBe(50059);
    const late = await refusal(api(member).withdrawReview({ id: second.id }));
    expect(late.rawMessage).toContain("is rejected: only an open request can be withdrawn");

    const third = await request(member, 50060, "third");
    const withdrawn = await api(member).withdrawReview({ id: third.id });
    expect(withdrawn.state).toBe(ReviewState.WITHDRAWN);
    expect(withdrawn.decidedBy).toBe("member-a");
  });

  it("the audit log records each request, approval, rejection and withdrawal, with who and the diff", async () => {
    const approvedOne = await request(member, 50064, "audited");
    await api(admin).approveReview({ id: approvedOne.id });
    const rejectedOne = await request(member, 50065, "audited 2");
    await api(admin).rejectReview({ id: rejectedOne.id, comment: "no" });
    const withdrawnOne = await request(member, 50066, "audited 3");
    await api(member).withdrawReview({ id: withdrawnOne.id });
    const { events } = await accessClient(harness.baseUrl, admin).listAuditEvents({
      action: "review.*",
      pageSize: 50,
    });
    const seen = (action: string, id: bigint) =>
      events.find((e) => e.action === action && e.target === `review/${id}`);
    expect(seen("review.request", approvedOne.id)?.actor).toBe("member-a");
    expect(JSON.stringify(seen("review.request", approvedOne.id)?.detail)).toContain("a-backend");
    expect(seen("review.approve", approvedOne.id)?.actor).toBe("admin");
    expect(seen("review.reject", rejectedOne.id)?.actor).toBe("admin");
    expect(seen("review.withdraw", withdrawnOne.id)?.actor).toBe("member-a");
  });
});
