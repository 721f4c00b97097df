// The importer runs a real worker thread: what these tests check is that a document's cost lands
// there, under limits, and that hitting one ends the worker, not the server.
import { randomBytes } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { createTestCa } from "@switchyard/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createKeyring } from "../secrets-key.js";
import { createEnvoyImporter, type EnvoyImporter } from "./envoy-importer.js";

const keyring = createKeyring({ t: "key", key: new Uint8Array(randomBytes(32)), source: "env" });

function clusters(count: number): string {
  const items = Array.from(
    { length: count },
    (_, i) => `- name: c${i}
  type: STRICT_DNS
  connect_timeout: 1s
  load_assignment:
    cluster_name: c${i}
    endpoints:
    - lb_endpoints:
      - endpoint: { address: { socket_address: { address: backend${i}.example, port_value: 8080 } } }
`,
  );
  return `clusters:\n${items.join("")}`;
}

async function rejection(promise: Promise<unknown>): Promise<ConnectError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConnectError);
  return error as ConnectError;
}

let importer: EnvoyImporter | undefined;
afterEach(async () => {
  await importer?.close();
  importer = undefined;
});

describe("the Envoy importer", () => {
  it("reads a document in its worker and gives back the mapped objects", async () => {
    importer = createEnvoyImporter();

    const outcome = await importer.read(clusters(3), "c.yaml", keyring);

    expect(outcome.t).toBe("imported");
    if (outcome.t !== "imported") return;
    expect(outcome.spec.clusters.map((cluster) => cluster.name)).toEqual(["c0", "c1", "c2"]);
  });

  it("gives back a document's syntax errors with their line", async () => {
    importer = createEnvoyImporter();

    const outcome = await importer.read("clusters:\n  - name: [\n", "c.yaml", keyring);

    expect(outcome.t).toBe("unparsable");
    if (outcome.t !== "unparsable") return;
    expect(outcome.errors[0]?.line).toBeGreaterThan(0);
  });

  it("seals inline private keys on the calling thread: no plaintext key comes back", async () => {
    importer = createEnvoyImporter();
    const pair = createTestCa("importer CA").issueServer({ commonName: "edge.example" });
    const yaml = `listeners:
- name: tls
  address: { socket_address: { address: 0.0.0.0, port_value: 8443 } }
  filter_chains:
  - filters:
    - name: envoy.filters.network.tcp_proxy
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy
        stat_prefix: tls
        cluster: c0
    transport_socket:
      name: envoy.transport_sockets.tls
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
        common_tls_context:
          tls_certificates:
          - certificate_chain: { inline_string: ${JSON.stringify(pair.cert)} }
            private_key: { inline_string: ${JSON.stringify(pair.key)} }
`;

    const outcome = await importer.read(yaml, "l.yaml", keyring);

    if (outcome.t !== "imported") throw new Error(JSON.stringify(outcome.errors));
    const [secret] = outcome.spec.secrets;
    expect(secret?.privateKey).not.toContain("PRIVATE KEY");
    expect(keyring.open(secret?.privateKey ?? "")).toContain("BEGIN PRIVATE KEY");
  });

  it("ends a worker that runs out of its heap with RESOURCE_EXHAUSTED, and the next import works", async () => {
    importer = createEnvoyImporter({ heapMb: 48 });
    await importer.read(clusters(1), "warm.yaml", keyring); // the worker is up and its code loaded

    const error = await rejection(importer.read(clusters(20_000), "big.yaml", keyring));

    expect(error.code).toBe(Code.ResourceExhausted);
    expect(error.rawMessage).toContain("more than the 48 MiB one import may use");
    const next = await importer.read(clusters(1), "small.yaml", keyring);
    expect(next.t).toBe("imported");
  });

  it("ends a document that takes longer than the limit with DEADLINE_EXCEEDED", async () => {
    importer = createEnvoyImporter({ timeoutMs: 1 });

    const error = await rejection(importer.read(clusters(5_000), "slow.yaml", keyring));

    expect(error.code).toBe(Code.DeadlineExceeded);
    expect(error.rawMessage).toContain("took longer than 0.001 s");
  });

  it("refuses an import beyond the queue with RESOURCE_EXHAUSTED instead of piling them up", async () => {
    importer = createEnvoyImporter({ maxQueue: 1 });
    const running = importer.read(clusters(2_000), "first.yaml", keyring);
    const waiting = importer.read(clusters(1), "second.yaml", keyring);

    const error = await rejection(importer.read(clusters(1), "third.yaml", keyring));

    expect(error.code).toBe(Code.ResourceExhausted);
    expect(error.rawMessage).toContain("1 imports are already waiting");
    expect((await running).t).toBe("imported");
    expect((await waiting).t).toBe("imported");
  });
});
