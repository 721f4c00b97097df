import { describe, expect, it } from "vitest";
import { bootstrapCommand, shellQuote, xdstpAuthorityIn } from "./bootstrap-command";

describe("shellQuote", () => {
  it("leaves plain words alone and single-quotes the rest, quotes included", () => {
    expect(shellQuote("edge-1.example:80")).toBe("edge-1.example:80");
    expect(shellQuote("a b")).toBe("'a b'");
    expect(shellQuote("it's $HOME")).toBe(`'it'\\''s $HOME'`);
  });
});

describe("bootstrapCommand", () => {
  it("names the xDS address the server gives, so the bootstrap dials the port it serves on", () => {
    expect(
      bootstrapCommand({
        id: "edge-1",
        cluster: "",
        variant: "",
        userAgentName: "",
        xdsAddress: "127.0.0.1:18100",
      }),
    ).toBe("npx switchyard bootstrap --node-id edge-1 --xds-address 127.0.0.1:18100");
  });
  it("asks for a gRPC bootstrap for a gRPC client", () => {
    expect(
      bootstrapCommand({
        id: "shop client",
        cluster: "",
        variant: "ads-sotw",
        userAgentName: "gRPC Node Pure JS",
      }),
    ).toBe("npx switchyard bootstrap --node-id 'shop client' --grpc");
  });
  it("asks for an Envoy bootstrap over Delta for an Envoy that spoke Delta, with its cluster", () => {
    expect(
      bootstrapCommand({
        id: "edge-1",
        cluster: "edge",
        variant: "ads-delta",
        userAgentName: "envoy",
      }),
    ).toBe("npx switchyard bootstrap --node-id edge-1 --cluster edge --delta");
  });
  it("keeps a federated gRPC client's xdstp:// authority, read from the names it holds", () => {
    const held = ["xdstp://xds.example.com/envoy.config.listener.v3.Listener/shop", "plain"];
    expect(
      bootstrapCommand({
        id: "shop-client",
        cluster: "",
        variant: "ads-sotw",
        userAgentName: "gRPC Node Pure JS",
        xdstpAuthority: xdstpAuthorityIn(held),
      }),
    ).toBe(
      "npx switchyard bootstrap --node-id shop-client --grpc --xdstp-authority xds.example.com",
    );
    expect(xdstpAuthorityIn(["plain"])).toBeUndefined();
  });
});
