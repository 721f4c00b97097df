import { create } from "@bufbuild/protobuf";
import { ListenerSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import { clusterFormOf, clusterOfForm } from "./cluster-form";
import { cluster } from "./config-fixtures";
import {
  envoyName,
  HTTP_PROTOCOL_OPTIONS,
  http2Source,
  otherFields,
  transportSocketText,
  withoutHttp2,
} from "./envoy-facts";
import { listenerFormOf, listenerOfForm } from "./listener-form";

const HPO_TYPE = `type.googleapis.com/${HTTP_PROTOCOL_OPTIONS}`;
const hpo = (entry: Record<string, unknown>) => ({
  typedExtensionProtocolOptions: { [HTTP_PROTOCOL_OPTIONS]: { "@type": HPO_TYPE, ...entry } },
});

describe("a cluster's HTTP/2 is read from every Envoy field that says it", () => {
  it.each([
    ["the model's explicit HTTP/2", { http2: true }, "explicit"],
    [
      "the deprecated Cluster.http2_protocol_options",
      { extra: { http2ProtocolOptions: {} } },
      "deprecated",
    ],
    [
      "HttpProtocolOptions auto_config",
      { extra: hpo({ autoConfig: { http2ProtocolOptions: {} } }) },
      "auto",
    ],
    [
      "use_downstream_protocol_config with HTTP/2",
      { extra: hpo({ useDownstreamProtocolConfig: { http2ProtocolOptions: {} } }) },
      "downstream",
    ],
    [
      "explicit HTTP/2 with settings kept in extra",
      {
        extra: hpo({ explicitHttpConfig: { http2ProtocolOptions: { maxConcurrentStreams: 10 } } }),
      },
      "explicit",
    ],
  ] as const)("%s checks “HTTP/2 to upstream”", (_, init, source) => {
    const stored = cluster(init);
    expect(http2Source(stored)).toBe(source);
    expect(clusterFormOf(stored).http2).toBe(true);
  });

  it("HTTP/1.1 (none of them, or downstream config without HTTP/2) leaves it unchecked", () => {
    expect(clusterFormOf(cluster({})).http2).toBe(false);
    const h1 = cluster({
      extra: hpo({ useDownstreamProtocolConfig: { httpProtocolOptions: {} } }),
    });
    expect(clusterFormOf(h1).http2).toBe(false);
  });

  it("a cluster whose HTTP/2 is written another way is saved as written when an unrelated field changes", () => {
    for (const extra of [
      { http2ProtocolOptions: { maxConcurrentStreams: 7 } },
      hpo({ autoConfig: { http2ProtocolOptions: {} } }),
    ]) {
      const stored = cluster({ extra });
      const saved = clusterOfForm({ ...clusterFormOf(stored), connectTimeoutMs: "750" }, stored);
      expect(saved.http2).toBe(false);
      expect(saved.extra).toEqual(extra);
      expect(saved.connectTimeoutMs).toBe(750);
    }
  });

  it("unchecking “HTTP/2 to upstream” takes out every way of saying it, keeping the entry's other settings", () => {
    const idle = { commonHttpProtocolOptions: { idleTimeout: "30s" } };
    const cases = [
      [
        { http2ProtocolOptions: {}, perConnectionBufferLimitBytes: 1 },
        { perConnectionBufferLimitBytes: 1 },
      ],
      [hpo({ autoConfig: {} }), {}],
      [
        hpo({ autoConfig: {}, ...idle }),
        hpo({ ...idle, explicitHttpConfig: { httpProtocolOptions: {} } }),
      ],
      [hpo({ explicitHttpConfig: { http2ProtocolOptions: { maxConcurrentStreams: 10 } } }), {}],
    ] as const;
    for (const [extra, left] of cases) {
      const stored = cluster({ extra });
      const saved = clusterOfForm({ ...clusterFormOf(stored), http2: false }, stored);
      expect(saved.http2).toBe(false);
      expect(saved.extra).toEqual(left);
      expect(http2Source(saved)).toBeUndefined();
    }
    expect(withoutHttp2(undefined)).toBeUndefined();
  });
});

const fileTls = {
  name: "envoy.transport_sockets.tls",
  typedConfig: {
    "@type": "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext",
    commonTlsContext: {
      tlsCertificates: [
        {
          certificateChain: { filename: "/etc/envoy/cert.pem" },
          privateKey: { filename: "/etc/envoy/key.pem" },
        },
      ],
    },
  },
};

describe("TLS is shown from every source, not only a Switchyard SDS secret", () => {
  it("names a certificate from a file, inline or over SDS, and the validation context's source", () => {
    expect(transportSocketText(fileTls)).toBe(
      "TLS is on: certificate from file /etc/envoy/cert.pem (in the Envoy fields; edit them as Envoy YAML).",
    );
    const mixed = {
      name: "envoy.transport_sockets.tls",
      typedConfig: {
        "@type": "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext",
        sni: "db.internal",
        commonTlsContext: {
          tlsCertificates: [{ certificateChain: { inlineString: "PEM" } }],
          tlsCertificateSdsSecretConfigs: [{ name: "edge-cert", sdsConfig: { path: "/sds.yaml" } }],
          validationContext: { trustedCa: { filename: "/etc/ssl/ca.pem" } },
        },
      },
    };
    expect(transportSocketText(mixed)).toBe(
      "TLS is on: certificate from inline, certificate “edge-cert” over SDS, trusted CA from file /etc/ssl/ca.pem (in the Envoy fields; edit them as Envoy YAML).",
    );
    expect(transportSocketText({ name: "envoy.transport_sockets.raw_buffer" })).toContain(
      "envoy.transport_sockets.raw_buffer",
    );
    expect(transportSocketText(undefined)).toBeUndefined();
  });

  it("a listener's file certificate survives a save of an unrelated field", () => {
    const stored = create(ListenerSchema, {
      name: "edge",
      address: "0.0.0.0",
      port: 443,
      filterChains: [
        {
          rdsRouteConfigName: "edge-routes",
          statPrefix: "ingress_http",
          extra: { transportSocket: fileTls },
        },
      ],
    });
    const form = listenerFormOf(stored);
    const chain = form.filterChains[0];
    if (chain === undefined) throw new Error("no chain");
    const saved = listenerOfForm(
      { ...form, filterChains: [{ ...chain, statPrefix: "edge_https" }] },
      stored,
    );
    expect(saved.filterChains[0]?.statPrefix).toBe("edge_https");
    expect(saved.filterChains[0]?.extra).toEqual({ transportSocket: fileTls });
  });
});

describe("Envoy's names for what a form keeps but does not edit", () => {
  it("lists the other fields by their snake_case names", () => {
    expect(envoyName("consecutiveGatewayFailure")).toBe("consecutive_gateway_failure");
    expect(
      otherFields({ consecutive5xx: 5, consecutiveGatewayFailure: 3 }, ["consecutive5xx"]),
    ).toEqual(["consecutive_gateway_failure"]);
    expect(otherFields(undefined, [])).toEqual([]);
  });
});
