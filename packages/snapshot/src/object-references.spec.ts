import { describe, expect, it } from "vitest";
import {
  clusterSpec,
  endpointSpec,
  routeConfigurationSpec,
  routeSpec,
  virtualHostSpec,
} from "./fixtures.js";
import { clusterReferences, routeConfigurationReferences } from "./object-references.js";

const TYPE = "type.googleapis.com/";
const TLS = `${TYPE}envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext`;

describe("the references of a stored object, at their model fields", () => {
  it("finds a cluster's secrets: its modelled TLS secret and one named in a transport socket kept as Envoy JSON", () => {
    const modelled = clusterSpec("pay", [endpointSpec("10.0.0.1", 443)], {
      tlsSecretName: "pay-ca",
    });
    expect(clusterReferences(modelled)).toEqual([
      { kind: "secret", name: "pay-ca", path: 'clusters["pay"].tlsSecretName' },
    ]);
    const inExtra = clusterSpec("pay", [endpointSpec("10.0.0.1", 443)], {
      extra: {
        transportSocket: {
          name: "envoy.transport_sockets.tls",
          typedConfig: {
            "@type": TLS,
            commonTlsContext: { tlsCertificateSdsSecretConfigs: [{ name: "edge-cert" }] },
          },
        },
      },
    });
    expect(clusterReferences(inExtra)).toEqual([
      {
        kind: "secret",
        name: "edge-cert",
        path: 'clusters["pay"].extra.transportSocket.typedConfig.commonTlsContext.tlsCertificateSdsSecretConfigs[0].name',
      },
    ]);
  });

  it("finds the internal listener an endpoint connects to, and an aggregate cluster's members", () => {
    const internal = clusterSpec("tunnel", [endpointSpec("envoy://inner", 0)], {
      discoveryType: "STATIC",
    });
    expect(clusterReferences(internal).map(({ kind, name }) => [kind, name])).toEqual([
      ["listener", "inner"],
    ]);
    const aggregate = clusterSpec("all", [], {
      discoveryType: "CUSTOM",
      extra: {
        clusterType: {
          name: "envoy.clusters.aggregate",
          typedConfig: {
            "@type": `${TYPE}envoy.extensions.clusters.aggregate.v3.ClusterConfig`,
            clusters: ["primary", "secondary"],
          },
        },
      },
    });
    expect(clusterReferences(aggregate).map(({ kind, name }) => [kind, name])).toEqual([
      ["cluster", "primary"],
      ["cluster", "secondary"],
    ]);
  });

  it("gives each reference of a route configuration its virtual host, and none to the configuration's own fields", () => {
    const routes = routeConfigurationSpec("edge", "unused", {
      extra: { requestMirrorPolicies: [{ cluster: "audit" }] },
      virtualHosts: [
        virtualHostSpec(
          "shop",
          ["shop.example.com"],
          [
            routeSpec("shop-web", {
              extra: { route: { requestMirrorPolicies: [{ cluster: "shadow" }] } },
            }),
          ],
        ),
        virtualHostSpec("pay", ["pay.example.com"], [routeSpec("pay-api")]),
      ],
    });
    expect(
      routeConfigurationReferences(routes).map(({ kind, name, virtualHost }) => [
        kind,
        name,
        virtualHost,
      ]),
    ).toEqual([
      ["cluster", "shop-web", "shop"],
      ["cluster", "shadow", "shop"],
      ["cluster", "pay-api", "pay"],
      ["cluster", "audit", undefined],
    ]);
  });

  it("marks each field where the request picks the cluster (a header, a plugin), naming none", () => {
    const routes = routeConfigurationSpec("edge", "unused", {
      virtualHosts: [
        virtualHostSpec(
          "shop",
          ["shop.example.com"],
          [
            routeSpec("", {
              actionKind: "CLUSTER_HEADER",
              cluster: null,
              extra: { route: { clusterHeader: "x-cluster" } },
            }),
            routeSpec("", {
              actionKind: "WEIGHTED_CLUSTERS",
              cluster: null,
              weightedClusters: [
                { name: "shop-web", weight: 50, extra: {} },
                { name: "", weight: 50, extra: { clusterHeader: "x-pick" } },
              ],
            }),
          ],
        ),
      ],
    });
    expect(
      routeConfigurationReferences(routes).map(({ name, path, chosenByRequest }) => [
        name,
        path,
        chosenByRequest,
      ]),
    ).toEqual([
      ["", expect.stringContaining("routes[0]"), true],
      ["shop-web", expect.stringContaining("routes[1]"), undefined],
      ["", expect.stringContaining("routes[1]"), true],
    ]);
  });
});
