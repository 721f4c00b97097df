/**
 * Issue 22, point 4: an API request costs the server nothing beyond its headers until its caller
 * is known, and then no more than its method's bound. Unauthenticated gzip bodies used to be read
 * and decompressed up to 64 MiB each before the caller was checked.
 */
import * as http from "node:http";
import * as zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "../src/testing/harness.js";

const CONFIG = "/switchyard.v1.ConfigService";
const MiB = 1024 * 1024;

interface Answer {
  readonly status: number;
  readonly body: { readonly code?: string; readonly message?: string };
}

/**
 * POSTs `first` of a body declared `declared` bytes long and sends no more: resolves with the
 * answer, which must therefore not wait for the rest; rejects if none comes within 10 s.
 */
function partialPost(
  url: string,
  headers: Record<string, string>,
  declared: number,
  first: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": String(declared),
        ...headers,
      },
    });
    request.on("response", (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      response.on("end", () => {
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) });
        request.destroy();
      });
    });
    request.on("error", reject);
    request.setTimeout(10_000, () =>
      request.destroy(new Error("no answer: the server waited for the rest of the body")),
    );
    request.write(first);
  });
}

describe("request bodies before and after authentication", () => {
  let harness: Harness;
  let token: string;
  const post = async (
    path: string,
    body: string | Uint8Array | ReadableStream<Uint8Array>,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${harness.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
      body,
      ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
    } as RequestInit);
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text || "{}") } as Answer;
  };

  beforeAll(async () => {
    harness = await startHarness();
    token = await harness.token();
  });

  afterAll(async () => {
    await harness?.stop();
  });

  it("answers a request without credentials before reading its body", async () => {
    const answer = await partialPost(
      `${harness.baseUrl}${CONFIG}/CreateCluster`,
      {},
      512 * 1024,
      '{"name": "',
    );

    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe("unauthenticated");
  });

  it("answers a request with an unknown token before reading its body", async () => {
    const answer = await partialPost(
      `${harness.baseUrl}${CONFIG}/Import`,
      { authorization: "Bearer sy_not-a-token" },
      8 * MiB,
      '{"content": "',
    );

    expect(answer.status).toBe(401);
    expect(answer.body.message).toContain("the API token is unknown");
  });

  it("refuses a gzip body of 64 KB from nobody as unauthenticated, not as anything it decompressed to", async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(64 * MiB, " "));
    expect(bomb.length).toBeLessThan(100 * 1024);

    const response = await fetch(`${harness.baseUrl}${CONFIG}/CreateCluster`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: bomb,
    });

    expect(response.status).toBe(401);
  });

  it("refuses a signed-in caller's body declared over 1 MiB before reading it, naming the bound", async () => {
    const answer = await partialPost(
      `${harness.baseUrl}${CONFIG}/CreateCluster`,
      { authorization: `Bearer ${token}` },
      2 * MiB,
      '{"name": "',
    );

    expect(answer.status).toBe(429);
    expect(answer.body).toEqual({
      code: "resource_exhausted",
      message: `the request body is ${2 * MiB} bytes, more than the 1048576 bytes (1 MiB) CreateCluster accepts`,
    });
  });

  it("stops reading a body sent without a length once it passes the bound", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.length;
        if (sent > 4 * MiB) controller.close();
        else controller.enqueue(chunk);
      },
    });

    const answer = await post(`${CONFIG}/CreateCluster`, body);

    expect(answer.status).toBe(429);
    expect(answer.body.message).toBe(
      "the request body holds more than the 1048576 bytes (1 MiB) CreateCluster accepts",
    );
  });

  it("stops decompressing a signed-in caller's gzip body at the bound", async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(64 * MiB, " "));

    const answer = await post(`${CONFIG}/CreateCluster`, bomb, { "content-encoding": "gzip" });

    expect(answer.status).toBe(429);
    expect(answer.body.message).toBe(
      "the request body decompresses to more than the 1048576 bytes (1 MiB) CreateCluster accepts",
    );
  });

  it("lets Import carry a document larger than other methods may", async () => {
    const content = `# ${"x".repeat(3 * MiB)}\nclusters: []\n`;

    const answer = await post(`${CONFIG}/Import`, JSON.stringify({ content, dryRun: true }));

    expect(answer.status).toBe(200); // read, parsed, and found to change nothing
    expect(answer.body).toEqual({});
  });

  it("bounds Login, which anyone may call, at 64 KiB", async () => {
    const answer = await partialPost(
      `${harness.baseUrl}/switchyard.v1.AccessService/Login`,
      {},
      100 * 1024,
      '{"username": "',
    );

    expect(answer.status).toBe(429);
    expect(answer.body.message).toContain("more than the 65536 bytes (64 KiB) Login accepts");
  });
});
