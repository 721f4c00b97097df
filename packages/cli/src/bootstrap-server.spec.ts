import { create } from "@bufbuild/protobuf";
import { ServerInfoSchema } from "@switchyard/proto/switchyard/v1/access_pb";
import { describe, expect, it } from "vitest";
import { checkReach } from "./bootstrap-server.js";

const info = (over: { xdsTls?: boolean; xdsAuth?: string } = {}) =>
  create(ServerInfoSchema, { xdsAddress: "xds.internal:18100", xdsAuth: "none", ...over });

describe("a bootstrap checked against how the server serves xDS", () => {
  it("a plaintext port with no client authentication needs nothing more", () => {
    expect(checkReach(info(), {})).toEqual([]);
  });

  it("a TLS port without --xds-ca is refused, naming the flag", () => {
    expect(() => checkReach(info({ xdsTls: true }), {})).toThrow(
      "the xDS port at xds.internal:18100 speaks TLS (serve --xds-tls-cert): pass --xds-ca FILE",
    );
    expect(checkReach(info({ xdsTls: true }), { xdsCa: "ca.pem" })).toEqual([]);
  });

  it.each([
    ["mtls", {}, /--client-cert and --client-key/],
    ["token", {}, /pass --token \(from `switchyard xds-token`\)/],
    ["token", { grpc: true }, /a gRPC bootstrap carries no token/],
  ] as const)(
    "a port asking for %s credentials the flags lack gets a note",
    (auth, flags, note) => {
      const notes = checkReach(info({ xdsTls: true, xdsAuth: auth }), {
        xdsCa: "ca.pem",
        ...flags,
      });
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatch(note);
    },
  );

  it("no note once the credential is given", () => {
    expect(checkReach(info({ xdsAuth: "token" }), { token: "syx_x" })).toEqual([]);
    expect(
      checkReach(info({ xdsTls: true, xdsAuth: "mtls" }), { xdsCa: "c", clientCert: "k" }),
    ).toEqual([]);
  });
});
