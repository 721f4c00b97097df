import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { AccessService } from "@switchyard/proto/switchyard/v1/access_pb";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import { describe, expect, it } from "vitest";
import { earlyRequestsScript } from "./early-requests";

interface Sent {
  url: string;
  body: Uint8Array;
  headers: Record<string, string>;
}

/** Runs the head script as a browser would at `href`, and returns the requests it started. */
function runScript(href: string): Sent[] {
  const url = new URL(href, "http://console.test");
  const sent: Sent[] = [];
  const window: Record<string, unknown> = {};
  const fetch = (u: string, init: { body: Uint8Array; headers: Record<string, string> }) => {
    sent.push({ url: u, body: init.body, headers: init.headers });
    return Promise.resolve();
  };
  new Function("window", "location", "fetch", "setTimeout", earlyRequestsScript())(
    window,
    { pathname: url.pathname, search: url.search },
    fetch,
    () => 0,
  );
  return sent;
}

describe("the early requests of a full page load (head script)", () => {
  it("sends the exact binary request the console's transport sends, path parameters included (UTF-8, percent-decoded)", () => {
    const [whoAmI, cluster] = runScript("/clusters/caf%C3%A9-%F0%9F%9A%80");
    expect(whoAmI?.url).toBe("/switchyard.v1.AccessService/WhoAmI");
    expect(whoAmI?.body).toEqual(
      toBinary(AccessService.method.whoAmI.input, create(AccessService.method.whoAmI.input)),
    );
    expect(cluster?.url).toBe("/switchyard.v1.ConfigService/GetCluster");
    expect(cluster?.headers["Content-Type"]).toBe("application/proto");
    const input = ConfigService.method.getCluster.input;
    expect(cluster?.body).toEqual(toBinary(input, create(input, { name: "café-🚀" })));
  });

  it("frames a server stream's request as one Connect envelope of the binary message", () => {
    const [, node] = runScript("/nodes/edge-1");
    expect(node?.headers["Content-Type"]).toBe("application/connect+proto");
    const body = node?.body ?? new Uint8Array();
    expect(body[0]).toBe(0);
    expect(new DataView(body.buffer).getUint32(1)).toBe(body.length - 5);
    expect(fromBinary(StatusService.method.watchNode.input, body.subarray(5)).id).toBe("edge-1");
  });

  it("starts only WhoAmI on a page with a query string, and nothing on the login page", () => {
    expect(runScript("/nodes?status=NACKED").map((s) => s.url)).toEqual([
      "/switchyard.v1.AccessService/WhoAmI",
    ]);
    expect(runScript("/import").map((s) => s.url)).toEqual(["/switchyard.v1.AccessService/WhoAmI"]);
    expect(runScript("/login?next=%2F")).toEqual([]);
  });
});
