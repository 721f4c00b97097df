/**
 * A message quotes what it was given cut to size (quotedInput: 80 characters and the length), so
 * a 10,000-character username, object name or value is never echoed back whole: login, accounts,
 * a config object's create, read, delete and import, endpoint registration, the route tester.
 */
import { Code } from "@connectrpc/connect";
import { EndpointOperation, ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster } from "../src/testing/api-objects.js";
import { accessClient, privilegedAccess, Role, refusal } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { clusterYaml } from "../src/testing/shop.js";

const LONG = "x".repeat(10_000);
/** How a message quotes LONG: its first 80 characters, then its length. */
const CUT = `"${"x".repeat(80)}"… (10000 characters)`;

/** The refusal's message, and what the API answers beside it (details), hold no LONG. */
async function refusedQuotingCut(call: Promise<unknown>, code?: Code): Promise<string> {
  const error = await refusal(call);
  if (code !== undefined) expect(error.code).toBe(code);
  expect(error.rawMessage).not.toContain("x".repeat(200));
  expect(error.rawMessage.length).toBeLessThan(1_000);
  return error.rawMessage;
}

describe("messages quote a caller's long input cut to size", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("a login with a 10,000-character username is refused without the username echoed", async () => {
    const message = await refusedQuotingCut(
      accessClient(harness.baseUrl).login({ username: LONG, password: "whatever-password" }),
    );
    expect(message).toBe("wrong username or password");
  });

  it("creating an account with a 10,000-character username quotes it cut, with its length", async () => {
    const access = await privilegedAccess(harness.baseUrl);
    const message = await refusedQuotingCut(
      access.createUser({ username: LONG, password: "long-enough-password-1", role: Role.ADMIN }),
      Code.InvalidArgument,
    );
    expect(message).toContain(`username ${CUT}`);
  });

  it("a config object with a 10,000-character name is quoted cut on create, read, delete, endpoints and import", async () => {
    const api = harness.api();
    expect(await refusedQuotingCut(api.createCluster(edsCluster(LONG, "10.0.0.1:80")))).toContain(
      CUT,
    );
    expect(await refusedQuotingCut(api.getCluster({ name: LONG }), Code.NotFound)).toContain(CUT);
    expect(await refusedQuotingCut(api.deleteCluster({ name: LONG }), Code.NotFound)).toContain(
      CUT,
    );
    expect(
      await refusedQuotingCut(
        api.getEnvoyResource({ kind: ResourceKind.CLUSTER, name: LONG }),
        Code.NotFound,
      ),
    ).toContain(CUT);
    expect(
      await refusedQuotingCut(
        api.setEndpoints({
          cluster: LONG,
          operation: EndpointOperation.ADD,
          endpoints: [{ address: "10.0.0.1", port: 80 }],
        }),
      ),
    ).toContain(CUT);
    // An import is refused with one issue per problem: each message quotes the name cut.
    const error = await refusal(api.import({ filename: "a.yaml", content: clusterYaml(LONG, 80) }));
    expect(error.rawMessage).not.toContain("x".repeat(200));
  });
});
