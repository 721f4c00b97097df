import { Code, type Interceptor } from "@connectrpc/connect";
import {
  LbPolicy,
  Severity,
  ValidationErrorsSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiListener,
  edsCluster,
  routeConfiguration,
  virtualHost,
} from "../src/testing/api-objects.js";
import { bearer, configClient, refusal } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/**
 * Issue 46, point 3: predicted rejections gate like tests. A publish whose validation predicts
 * that some node group's clients will NACK it (the proxyless gRPC rules) went through with only a
 * warning; it is now refused unless accept_warnings, naming each rejection, while a rejection the
 * published version already has refuses nothing, and a rollback is not gated.
 */
describe("predicted rejections gate a publish", () => {
  let harness: Harness;
  let admin: Interceptor[];
  const api = () => configClient(harness.baseUrl, admin);
  const echo = (lbPolicy: LbPolicy, port = 50051) =>
    edsCluster("echo-v2", `127.0.0.1:${port}`, { lbPolicy });
  const versions = async () => (await api().listSnapshots({})).snapshots.length;
  const draftPolicy = async () => (await api().getCluster({ name: "echo-v2" })).lbPolicy;

  beforeAll(async () => {
    harness = await startHarness();
    admin = [bearer(await harness.token())];
    await api().createCluster(echo(LbPolicy.ROUND_ROBIN));
    await api().createRouteConfiguration(
      routeConfiguration("echo-routes", [virtualHost("echo", ["*"], "echo-v2")]),
    );
    await api().createListener(apiListener("echo", "echo-routes"));
    await api().publish({ message: "proxyless echo" });
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("refuses an apply that adds one, and publishes nothing", async () => {
    const before = await versions();
    const applied = await refusal(
      api().apply({
        filename: "echo.yaml",
        message: "apply least request",
        content: `- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: echo-v2
  type: EDS
  lbPolicy: LEAST_REQUEST
  edsClusterConfig: { edsConfig: { ads: {} } }
`,
      }),
    );
    expect(applied.code).toBe(Code.FailedPrecondition);
    expect(applied.rawMessage).toContain('cluster "echo-v2"');
    expect(await versions()).toBe(before);
    expect(await draftPolicy()).toBe(LbPolicy.ROUND_ROBIN);
  });

  it("validation marks the warning a gRPC client would NACK with its node groups, not yet published", async () => {
    await api().updateCluster(echo(LbPolicy.LEAST_REQUEST));
    const { issues } = await api().validate({});
    const warning = issues.find((i) => i.code === "grpc-unsupported-lb-policy");
    expect(warning?.severity).toBe(Severity.WARNING);
    expect(warning?.rejection).toMatchObject({
      client: "grpc",
      nodeGroups: ["default"],
      alreadyPublished: false,
    });
  });

  it("refuses a publish that adds a predicted rejection, naming node group, object and rule and how to proceed, and changes nothing", async () => {
    const before = await versions();
    const refused = await refusal(api().publish({ message: "least request" }));
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage).toContain(
      `validation predicts 1 rejection(s) by clients that version ${before} does not have`,
    );
    expect(refused.rawMessage).toContain("--accept-warnings (accept_warnings in the API)");
    expect(refused.rawMessage).toContain(
      'node group "default" (proxyless gRPC clients), cluster "echo-v2": a proxyless gRPC client would reject an lb policy other than ROUND_ROBIN or RING_HASH',
    );
    expect(refused.rawMessage).toContain("lb policy LEAST_REQUEST is not supported");
    // Each new rejection is attached, for a client to list.
    expect(
      refused.findDetails(ValidationErrorsSchema).flatMap((d) => d.issues.map((i) => i.code)),
    ).toEqual(["grpc-unsupported-lb-policy"]);
    // Nothing published, the draft as it was.
    expect(await versions()).toBe(before);
    expect(await draftPolicy()).toBe(LbPolicy.LEAST_REQUEST);
    const diff = await api().diff({ bodies: { omit: true } });
    expect(diff.changes.map((c) => c.name)).toEqual(["echo-v2"]);
  });

  it("refuses a review approval that adds one, and approves it with accept_warnings", async () => {
    const before = await versions();
    const diff = await api().diff({ bodies: { omit: true } });
    const review = await api().requestReview({
      message: "least request, reviewed",
      baseVersion: diff.fromVersion,
      draftRevision: diff.draftRevision,
    });
    const approval = await refusal(api().approveReview({ id: review.id }));
    expect(approval.code).toBe(Code.FailedPrecondition);
    expect(approval.rawMessage).toContain('cluster "echo-v2"');
    expect(await versions()).toBe(before);
    const approved = await api().approveReview({ id: review.id, acceptWarnings: true });
    expect(approved.publish?.snapshot?.version).toBe(BigInt(before + 1));
  });

  it("a rejection the published version already has refuses nothing: an unrelated publish goes through, and Validate says it is published", async () => {
    await api().createCluster(edsCluster("unrelated", "127.0.0.1:50052"));
    const published = await api().publish({ message: "an unrelated cluster" });
    // The answer speaks of what the publish changes only; Validate lists the draft's every issue.
    expect(published.snapshot?.version).toBeGreaterThan(0n);
    expect(published.warnings.map((w) => w.code)).not.toContain("grpc-unsupported-lb-policy");
    const { issues } = await api().validate({});
    expect(
      issues.find((i) => i.code === "grpc-unsupported-lb-policy")?.rejection?.alreadyPublished,
    ).toBe(true);
  });

  it("accept_warnings publishes a new predicted rejection, which stays a warning of the answer", async () => {
    // Fixed, published, then broken again: new to the latest version.
    await api().updateCluster(echo(LbPolicy.ROUND_ROBIN));
    await api().publish({ message: "round robin again" });
    await api().updateCluster(echo(LbPolicy.LEAST_REQUEST, 50053));
    const before = await versions();
    await refusal(api().publish({ message: "least request again" }));
    const published = await api().publish({
      message: "least request again",
      acceptWarnings: true,
    });
    expect(published.snapshot?.version).toBe(BigInt(before + 1));
    const warning = published.warnings.find((w) => w.code === "grpc-unsupported-lb-policy");
    expect(warning?.rejection).toMatchObject({ nodeGroups: ["default"], alreadyPublished: false });
  });

  it("a rollback is not gated: it restores what ran, rejections and all", async () => {
    const withRejection = await versions();
    await api().updateCluster(echo(LbPolicy.ROUND_ROBIN, 50053));
    await api().publish({ message: "fixed" });
    const rolledBack = await api().rollback({ version: BigInt(withRejection) });
    expect(rolledBack.snapshot?.rolledBackFrom).toBe(BigInt(withRejection));
    expect(await draftPolicy()).toBe(LbPolicy.LEAST_REQUEST);
  });
});
