import { describe, expect, it } from "vitest";
import { nameProblem } from "../validate/validate-syntax.js";
import {
  contextMismatch,
  formatXdstp,
  globKeyOf,
  isGlob,
  type NodeContext,
  parseXdstp,
  storedNameOf,
  type XdstpName,
  xdstpNameOf,
} from "./xdstp.js";

function parsed(text: string): XdstpName {
  const result = parseXdstp(text);
  if (!result.ok) throw new Error(result.problem);
  return result.name;
}

function problemOf(text: string): string {
  const result = parseXdstp(text);
  if (result.ok) throw new Error(`${text} parsed`);
  return result.problem;
}

const node: NodeContext = {
  id: "edge-1",
  cluster: "edge",
  userAgentName: "envoy",
  userAgentVersion: "",
  buildVersion: "1.31.0",
  locality: { region: "eu", zone: "eu-1a", subZone: "" },
  metadata: { node_type: "ingress", replicas: 3, labels: { team: "a", tier: "gold" } },
  clientFeatures: ["envoy.lb.does_not_support_overprovisioning"],
};

describe("xdstp:// resource names", () => {
  it("parses authority, resource type, ID (slashes kept) and context parameters, decoded and sorted", () => {
    expect(
      parsed(
        "xdstp://xds.example.com/envoy.config.listener.v3.Listener/team-a/api%3Fv2?z=1&a=%26b",
      ),
    ).toEqual({
      authority: "xds.example.com",
      resourceType: "envoy.config.listener.v3.Listener",
      id: "team-a/api?v2",
      params: [
        ["a", "&b"],
        ["z", "1"],
      ],
    });
  });

  it("gives one canonical text whatever the parameter order or encoding, as Envoy's encodeUrn", () => {
    const a = parsed("xdstp://auth/envoy.config.cluster.v3.Cluster/x?b=2&a=1");
    const b = parsed("xdstp://auth/envoy.config.cluster.v3.Cluster/%78?a=1&b=2");
    expect(formatXdstp(a)).toBe("xdstp://auth/envoy.config.cluster.v3.Cluster/x?a=1&b=2");
    expect(formatXdstp(b)).toBe(formatXdstp(a));
    expect(
      xdstpNameOf("auth", "type.googleapis.com/envoy.config.cluster.v3.Cluster", "a:b#c"),
    ).toBe("xdstp://auth/envoy.config.cluster.v3.Cluster/a%3Ab%23c");
    expect(formatXdstp(parsed(xdstpNameOf("auth", "T", "é/ü")))).toBe(
      "xdstp://auth/T/%C3%A9/%C3%BC",
    );
  });

  it("refuses malformed names, saying what is wrong", () => {
    expect(problemOf("xdstp:/auth/T/x")).toMatch(/does not start with "xdstp:\/\/"/);
    expect(problemOf("xdstp://auth")).toMatch(/no resource type/);
    expect(problemOf("xdstp://auth/envoy.config.cluster.v3.Cluster")).toMatch(/no resource ID/);
    expect(problemOf("xdstp://auth/envoy.config.cluster.v3.Cluster/")).toMatch(/no resource ID/);
    expect(problemOf("xdstp://auth/T/x#alt=xdstp://b/T/y")).toMatch(/fragment/);
    expect(problemOf("xdstp://auth/T/x%zz")).toMatch(/malformed percent-encoding in its ID/);
    expect(problemOf("xdstp://auth/T/x?a=1&a=2")).toMatch(/repeats the context parameter "a"/);
    expect(problemOf("xdstp://auth/T/x?=1")).toMatch(/context parameter with no name/);
    expect(problemOf("xdstp://auth/type.googleapis.com/envoy.config.cluster.v3.Cluster/x")).toMatch(
      /type URL without "type.googleapis.com\/"/,
    );
  });

  it("tells glob collections from names, and finds the glob a name belongs to with its parameters", () => {
    expect(isGlob(parsed("xdstp://a/T/*"))).toBe(true);
    expect(isGlob(parsed("xdstp://a/T/team-a/*?k=v"))).toBe(true);
    expect(isGlob(parsed("xdstp://a/T/team-a/x*"))).toBe(false);
    expect(globKeyOf(parsed("xdstp://a/T/team-a/api?k=v"))).toBe("xdstp://a/T/team-a/*?k=v");
    expect(globKeyOf(parsed("xdstp://a/T/api"))).toBe("xdstp://a/T/*");
    expect(globKeyOf(parsed("xdstp://a/T/team-a/sub/api"))).toBe("xdstp://a/T/team-a/sub/*");
  });

  it("maps an xdstp:// name to the stored name it serves, and leaves plain names alone", () => {
    expect(storedNameOf("xdstp://a/envoy.config.cluster.v3.Cluster/team-a/api?k=v")).toBe(
      "team-a/api",
    );
    expect(storedNameOf("backend")).toBe("backend");
  });

  it("stored names cannot look like xdstp:// names, the wildcard or a glob", () => {
    expect(nameProblem("xdstp://a/envoy.config.cluster.v3.Cluster/x")).toMatch(
      /starts with "xdstp:"/,
    );
    expect(nameProblem("*")).toMatch(/wildcard or a glob/);
    expect(nameProblem("team-a/*")).toMatch(/wildcard or a glob/);
    expect(nameProblem("team-a/api")).toBeUndefined();
  });
});

describe("context parameters matched against the node", () => {
  const mismatch = (query: string) =>
    contextMismatch(parsed(`xdstp://a/T/x?${query}`).params, node);

  it("xds.node.* parameters must equal the node's fields (Envoy's node_context_params)", () => {
    expect(
      mismatch(
        "xds.node.id=edge-1&xds.node.cluster=edge&xds.node.user_agent_name=envoy&xds.node.locality.region=eu&xds.node.locality.zone=eu-1a&xds.node.user_agent_build_version.version=1.31.0",
      ),
    ).toBeUndefined();
    expect(mismatch("xds.node.cluster=core")).toBe(
      'xds.node.cluster=core: the node\'s cluster is "edge"',
    );
    expect(mismatch("xds.node.shoe_size=9")).toMatch(/no node field Switchyard can check/);
  });

  it("xds.node.metadata.* compares the metadata value's JSON, as Envoy renders it (or a bare string)", () => {
    expect(mismatch("xds.node.metadata.node_type=%22ingress%22")).toBeUndefined();
    expect(mismatch("xds.node.metadata.node_type=ingress")).toBeUndefined();
    expect(mismatch("xds.node.metadata.replicas=3")).toBeUndefined();
    expect(
      mismatch(`xds.node.metadata.labels=${encodeURIComponent('{"tier":"gold","team":"a"}')}`),
    ).toBeUndefined();
    expect(mismatch("xds.node.metadata.replicas=4")).toMatch(/metadata replicas is 3/);
    expect(mismatch("xds.node.metadata.missing=1")).toMatch(/metadata missing is not set/);
  });

  it("client features must be declared; resource attributes select nothing; other keys are node metadata", () => {
    expect(
      mismatch("xds.client_feature.envoy.lb.does_not_support_overprovisioning=true"),
    ).toBeUndefined();
    expect(mismatch("xds.client_feature.xds.config.supports-resource-ttl=true")).toMatch(
      /does not declare the client feature xds.config.supports-resource-ttl/,
    );
    expect(mismatch("xds.resource.vip=10.0.0.1")).toBeUndefined();
    expect(mismatch("node_type=ingress")).toBeUndefined();
    expect(mismatch("node_type=egress")).toBe(
      'node_type=egress: the node\'s metadata node_type is "ingress"',
    );
  });
});
