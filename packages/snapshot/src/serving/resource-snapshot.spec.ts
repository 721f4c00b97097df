import { createHash } from "node:crypto";
import { registry } from "@switchyard/proto";
import { createTestCa } from "@switchyard/testing";
import { describe, expect, it } from "vitest";
import { compile } from "../compile.js";
import {
  clusterSpec,
  configSpec,
  endpointSpec,
  routeConfigurationSpec,
  socketListenerSpec,
  validationSecretSpec,
} from "../fixtures.js";
import type { ConfigSpec } from "../model.js";
import { type ResourceSnapshot, TYPE_ORDER, TypeUrl, versionOf } from "./resource-snapshot.js";

function snapshotOf(spec: ConfigSpec): ResourceSnapshot {
  const snapshot = compile(spec).groups[0]?.snapshot;
  if (snapshot === undefined) throw new Error("no group");
  return snapshot;
}

/** Two clusters, routes to `routedTo`, one listener. */
function shop(routedTo: string, port = 8001): ConfigSpec {
  return configSpec({
    clusters: [
      clusterSpec("a", [endpointSpec("10.0.0.1", port)]),
      clusterSpec("b", [endpointSpec("10.0.0.2", 8002)]),
    ],
    routeConfigurations: [routeConfigurationSpec("routes", routedTo)],
    listeners: [socketListenerSpec("edge", 8080, "routes")],
  });
}

const contentOf = (snapshot: ResourceSnapshot) =>
  TYPE_ORDER.map((typeUrl) => [...snapshot.resources(typeUrl)].map(([n, r]) => [n, r.version]));

describe("ResourceSnapshot.reusing", () => {
  it("keeps the earlier map of every type the publish left alone, and the earlier resource where a changed type kept its version", () => {
    const before = snapshotOf(shop("a"));
    const compiled = snapshotOf(shop("b"));
    const after = compiled.reusing(before);
    expect(contentOf(after)).toEqual(contentOf(compiled));
    for (const typeUrl of [TypeUrl.Cluster, TypeUrl.ClusterLoadAssignment, TypeUrl.Listener])
      expect(after.resources(typeUrl)).toBe(before.resources(typeUrl));
    expect(after.resources(TypeUrl.RouteConfiguration)).not.toBe(
      before.resources(TypeUrl.RouteConfiguration),
    );

    const endpointMoved = snapshotOf(shop("a", 9001)).reusing(before);
    expect(endpointMoved.resources(TypeUrl.ClusterLoadAssignment).get("b")).toBe(
      before.resources(TypeUrl.ClusterLoadAssignment).get("b"),
    );
    expect(endpointMoved.resources(TypeUrl.ClusterLoadAssignment).get("a")?.version).not.toBe(
      before.resources(TypeUrl.ClusterLoadAssignment).get("a")?.version,
    );
  });

  it("is the earlier snapshot itself when nothing differs, and not when a resource is only removed", () => {
    const before = snapshotOf(shop("a"));
    expect(snapshotOf(shop("a")).reusing(before)).toBe(before);
    const fewer = snapshotOf(
      configSpec({ ...shop("a"), clusters: shop("a").clusters.slice(0, 1) }),
    ).reusing(before);
    expect(fewer).not.toBe(before);
    expect([...fewer.resources(TypeUrl.Cluster).keys()]).toEqual(["a"]);
  });

  it("a snapshot without secrets shares the other types' maps", () => {
    const plain = shop("a");
    const withSecret = snapshotOf(
      configSpec({
        ...plain,
        // A secret is served only when something of the group names it.
        clusters: plain.clusters.map((c) => ({ ...c, tlsSecretName: "backend-ca" })),
        secrets: [validationSecretSpec("backend-ca", createTestCa("reusing spec CA").cert)],
      }),
    );
    expect(withSecret.resources(TypeUrl.Secret).size).toBe(1);
    const anonymous = withSecret.withoutSecrets();
    expect(anonymous.resources(TypeUrl.Secret).size).toBe(0);
    expect(anonymous.resources(TypeUrl.Cluster)).toBe(withSecret.resources(TypeUrl.Cluster));
  });
});

describe("TypeUrl", () => {
  it("names, for every type Switchyard serves, a message of the Envoy registry", () => {
    for (const url of Object.values(TypeUrl)) {
      const typeName = url.slice("type.googleapis.com/".length);
      expect(registry.getMessage(typeName)?.typeName, url).toBe(typeName);
    }
  });
});

describe("versionOf", () => {
  it("is the first 16 hex digits of SHA-256 over each name and version, NUL after each, in name order (what clients that reconnect name)", () => {
    const hash = createHash("sha256");
    for (const part of [
      "a",
      "\u0000",
      "v1",
      "\u0000",
      "b",
      "\u0000",
      "v2",
      "\u0000",
      "é",
      "\u0000",
      "v3",
      "\u0000",
    ])
      hash.update(part);
    expect(
      versionOf([
        ["é", "v3"],
        ["b", "v2"],
        ["a", "v1"],
      ]),
    ).toBe(hash.digest("hex").slice(0, 16));
    expect(versionOf([])).toBe(createHash("sha256").digest("hex").slice(0, 16));
  });
});
