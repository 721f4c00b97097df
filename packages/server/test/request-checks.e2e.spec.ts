/**
 * One case per malformed request the API used to answer with INTERNAL (or with a message that
 * named nothing), found by api-fuzz.e2e.spec.ts: each now gets INVALID_ARGUMENT (or NOT_FOUND)
 * saying what is wrong and where, and changes nothing.
 */
import * as http from "node:http";
import * as zlib from "node:zlib";
import { toBinary } from "@bufbuild/protobuf";
import { ClusterSchema, LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_READ_MAX_BYTES } from "../src/api/request-checks.js";
import { edsCluster } from "../src/testing/api-objects.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

const CONFIG = "/switchyard.v1.ConfigService";

/** A cluster the API accepts, with `name`. */
const clusterBytes = (name: string) =>
  toBinary(
    ClusterSchema,
    edsCluster(name, "10.0.0.1:8080", { lbPolicy: LbPolicy.ROUND_ROBIN, connectTimeoutMs: 1000 }),
  );

/** `bytes` with the UTF-8 of `marker` overwritten by bytes that are no UTF-8 (same length). */
function breakUtf8(bytes: Uint8Array, marker: string): Uint8Array {
  const at = Buffer.from(bytes).indexOf(marker);
  if (at === -1) throw new Error(`${marker} is not in the message`);
  const broken = Uint8Array.from(bytes);
  broken.fill(0xff, at, at + marker.length);
  return broken;
}

/** `length` letters that do not repeat: a Postgres index cannot compress them away. */
function incompressible(length: number): string {
  let state = length;
  return Array.from({ length }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return String.fromCharCode(97 + ((state >> 16) % 26));
  }).join("");
}

describe("malformed API requests get a clear error and change nothing", () => {
  let harness: Harness;
  let token: string;

  beforeAll(async () => {
    harness = await startHarness();
    token = await harness.token();
  });

  afterAll(async () => {
    await harness?.stop();
  });

  async function call(
    path: string,
    body: string | Uint8Array,
    contentType = "application/json",
    headers: Record<string, string> = {},
  ) {
    const response = await fetch(`${harness.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": contentType, authorization: `Bearer ${token}`, ...headers },
      body,
    });
    return { status: response.status, text: await response.text() };
  }

  /** Calls a unary method with a bad request; asserts the error and that the draft is unchanged. */
  async function refused(
    path: string,
    body: string | Uint8Array,
    contentType?: string,
    headers?: Record<string, string>,
  ): Promise<{ code: string; message: string }> {
    const before = await harness.api().export({});
    const { status, text } = await call(path, body, contentType, headers);
    expect(status, text).toBeGreaterThanOrEqual(400);
    expect(status, text).toBeLessThan(500);
    expect((await harness.api().export({})).content).toBe(before.content);
    return JSON.parse(text) as { code: string; message: string };
  }

  it("a binary body with bytes that are no UTF-8 in a string is InvalidArgument naming the field, not Internal", async () => {
    const error = await refused(
      `${CONFIG}/CreateCluster`,
      breakUtf8(clusterBytes("placeholder"), "placeholder"),
      "application/proto",
    );
    expect(error.code).toBe("invalid_argument");
    expect(error.message).toBe(
      "the request body is not a valid switchyard.v1.Cluster (binary protobuf): Cluster.name: invalid UTF-8 in a string",
    );
  });

  it("a binary body cut short names the field it ends in", async () => {
    const bytes = clusterBytes("cut-short");
    const error = await refused(
      `${CONFIG}/CreateCluster`,
      bytes.subarray(0, bytes.length - 3),
      "application/proto",
    );
    expect(error.code).toBe("invalid_argument");
    expect(error.message).toMatch(
      /^the request body is not a valid switchyard\.v1\.Cluster \(binary protobuf\): Cluster\.localities\[0\]/,
    );
  });

  it("a gzip-compressed binary body that does not decode is InvalidArgument too", async () => {
    const body = zlib.gzipSync(breakUtf8(clusterBytes("placeholder"), "placeholder"));
    const error = await refused(`${CONFIG}/CreateCluster`, body, "application/proto", {
      "content-encoding": "gzip",
    });
    expect(error.code).toBe("invalid_argument");
    expect(error.message).toContain("Cluster.name: invalid UTF-8");
  });

  it("a gRPC-web body that does not decode ends with grpc-status 3 (InvalidArgument) naming the field", async () => {
    const message = breakUtf8(clusterBytes("placeholder"), "placeholder");
    const frame = new Uint8Array(5 + message.length);
    new DataView(frame.buffer).setUint32(1, message.length);
    frame.set(message, 5);
    const { status, text } = await call(
      `${CONFIG}/CreateCluster`,
      frame,
      "application/grpc-web+proto",
    );
    expect(status).toBe(200);
    expect(text).toContain("grpc-status: 3");
    expect(decodeURIComponent(text)).toContain("Cluster.name: invalid UTF-8");
  });

  it("a Connect GET whose message parameter does not decode is InvalidArgument, not Internal", async () => {
    const message = Buffer.from([0x0a, 0x02, 0xc3, 0x28]).toString("base64url");
    const response = await fetch(
      `${harness.baseUrl}${CONFIG}/GetCluster?connect=v1&encoding=proto&base64=1&message=${message}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const error = (await response.json()) as { code: string; message: string };
    expect(response.status).toBe(400);
    expect(error).toEqual({
      code: "invalid_argument",
      message:
        "the request's message parameter is not a valid switchyard.v1.GetRequest (binary protobuf): GetRequest.name: invalid UTF-8 in a string",
      details: expect.any(Array),
    });
  });

  it("a JSON body that is not an object says what it is instead of 'Array(1)'", async () => {
    const error = await refused(`${CONFIG}/GetCluster`, "[1]");
    expect(error.message).toBe(
      "the request body must be a JSON object (a switchyard.v1.GetRequest), not an array",
    );
  });

  it("an unknown JSON field is refused, naming it, instead of being dropped unseen", async () => {
    const error = await refused(`${CONFIG}/DeleteCluster`, JSON.stringify({ nmae: "x" }));
    expect(error.code).toBe("invalid_argument");
    expect(error.message).toContain('"nmae"');
  });

  it("a string holding U+0000 is InvalidArgument naming the field (Postgres used to refuse it as Internal)", async () => {
    const error = await refused(`${CONFIG}/GetCluster`, JSON.stringify({ name: "a\u0000b" }));
    expect(error).toMatchObject({
      code: "invalid_argument",
      message:
        "GetRequest.name holds the character U+0000 (NUL) at position 1, which cannot be stored: remove it",
    });
    const team = await refused(
      "/switchyard.v1.AccessService/CreateTeam",
      JSON.stringify({ name: "team", domains: ["ok.example", "\u0000.example"] }),
    );
    expect(team.message).toContain("CreateTeamRequest.domains[1] holds the character U+0000");
    const teams = await fetch(`${harness.baseUrl}/switchyard.v1.AccessService/ListTeams`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: "{}",
    });
    expect(await teams.json()).toEqual({});
  });

  it("a JSON string holding an unpaired surrogate is InvalidArgument naming the field (the decoder's own check)", async () => {
    const error = await refused(
      "/switchyard.v1.AccessService/CreateTeam",
      JSON.stringify({ name: "x\ud800" }),
    );
    expect(error.code).toBe("invalid_argument");
    expect(error.message).toContain("switchyard.v1.CreateTeamRequest.name");
  });

  it("a name longer than a database index holds is InvalidArgument, on create and on import (it used to be Internal)", async () => {
    const name = incompressible(3_000);
    const created = await refused(
      `${CONFIG}/CreateRouteConfiguration`,
      JSON.stringify({ name, virtualHosts: [] }),
    );
    expect(created.code).toBe("invalid_argument");
    expect(created.message).toContain("is 3000 characters long, more than the 512 allowed");
    const imported = await refused(
      `${CONFIG}/Import`,
      JSON.stringify({
        filename: "long.yaml",
        content: `resources:\n- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster\n  name: ${name}\n  type: STATIC\n  connect_timeout: 1s\n`,
      }),
    );
    expect(imported.code).toBe("invalid_argument");
    expect(imported.message).toContain("more than the 512 allowed");
  });

  it('an imported config holding U+0000 (YAML\'s "\\0") is InvalidArgument naming where (it used to be Internal)', async () => {
    const error = await refused(
      `${CONFIG}/Import`,
      JSON.stringify({
        filename: "nul.yaml",
        content: `resources:\n- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster\n  name: nul\n  type: STRICT_DNS\n  connect_timeout: 1s\n  load_assignment:\n    cluster_name: nul\n    endpoints:\n    - lb_endpoints:\n      - endpoint:\n          address:\n            socket_address: { address: "backend\\0.example", port_value: 80 }\n`,
      }),
    );
    expect(error.code).toBe("invalid_argument");
    expect(error.message).toMatch(
      /^nul\.yaml cannot be imported: config\.clusters\[0\]\.\S+ holds the character U\+0000/,
    );
  });

  it("a version beyond 32 bits is InvalidArgument (it used to fail the database query as Internal)", async () => {
    for (const [path, body] of [
      ["Diff", { fromVersion: "4294967296" }],
      ["Export", { version: "4294967296" }],
      ["GetSnapshot", { version: "4294967296" }],
    ] as const) {
      const error = await refused(`${CONFIG}/${path}`, JSON.stringify(body));
      expect(error.code, path).toBe("invalid_argument");
      expect(error.message, path).toContain(
        "4294967296 is out of range: versions go up to 2147483647",
      );
    }
  });

  it("a review id beyond 63 bits does not exist (it used to fail the database query as Internal)", async () => {
    const error = await refused(
      `${CONFIG}/ApproveReview`,
      JSON.stringify({ id: "18446744073709551615" }),
    );
    expect(error).toEqual({
      code: "not_found",
      message: "review #18446744073709551615 does not exist (see switchyard review list)",
    });
  });

  it("a body declared larger than the read limit is ResourceExhausted before it is read", async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>(
      (resolve, reject) => {
        const request = http.request(`${harness.baseUrl}${CONFIG}/Import`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "content-length": String(API_READ_MAX_BYTES + 1),
            authorization: `Bearer ${token}`,
          },
        });
        request.on("response", (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => {
            text += chunk.toString();
          });
          response.on("end", () => {
            resolve({ status: response.statusCode ?? 0, body: text });
            request.destroy();
          });
        });
        request.on("error", reject);
        request.setTimeout(5_000, () => request.destroy(new Error("no answer within 5 s")));
        // A few bytes of the 64 MiB promised: the answer must not wait for the rest.
        request.write('{"content": "');
      },
    );
    expect(status).toBe(429);
    expect(JSON.parse(body)).toMatchObject({ code: "resource_exhausted" });
  });
});
