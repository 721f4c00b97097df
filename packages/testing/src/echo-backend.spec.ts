import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { ECHO_METHOD, startEchoBackend } from "./echo-backend.js";

describe("startEchoBackend", () => {
  it("answers every RPC with its own name and counts what it served", async () => {
    const backend = await startEchoBackend("backend-a");
    const client = new grpc.Client(`127.0.0.1:${backend.port}`, grpc.credentials.createInsecure());
    try {
      const answer = await new Promise<string>((resolve, reject) =>
        client.makeUnaryRequest(
          ECHO_METHOD,
          (value: Buffer) => value,
          (value: Buffer) => value,
          Buffer.alloc(0),
          (error, response) => (error ? reject(error) : resolve(response?.toString() ?? "")),
        ),
      );
      expect(answer).toBe("backend-a");
      expect(backend.served).toBe(1);
    } finally {
      client.close();
      await backend.stop();
    }
  });
});
