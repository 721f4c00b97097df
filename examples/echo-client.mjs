// The client of the quick start (README, "Try it with a proxyless gRPC client"): a proxyless gRPC
// client that dials xds:///echo, so @grpc/grpc-js-xds asks Switchyard's xDS server for the
// listener "echo", its routes, the cluster and its endpoints (examples/grpc-echo.yaml), then calls
// the backend they name (examples/echo-server.mjs) and prints its answer.
//
//   GRPC_XDS_BOOTSTRAP=bootstrap.json node examples/echo-client.mjs [message] [target]
//
// bootstrap.json is what `switchyard bootstrap --grpc --node-id demo-1` writes: where the xDS
// server is and the node's id (gRFC A27). Exits 0 with the answer, 1 with the error.
import * as grpc from "@grpc/grpc-js";
import * as grpcXds from "@grpc/grpc-js-xds";

const SAY = "/switchyard.examples.Echo/Say";
const message = process.argv[2] ?? "hello";
const target = process.argv[3] ?? "xds:///echo";
/** How long the call may wait for the route and the backend (the first xDS answers included). */
const DEADLINE_MS = 20_000;

const { env } = process;
if (!env.GRPC_XDS_BOOTSTRAP && !env.GRPC_XDS_BOOTSTRAP_CONFIG) {
  process.stderr.write(
    "echo-client: set GRPC_XDS_BOOTSTRAP to the file `switchyard bootstrap --grpc --node-id demo-1` wrote\n",
  );
  process.exit(1);
}

// Makes the xds: scheme resolvable by @grpc/grpc-js (and the xDS balancers usable).
grpcXds.register();
const client = new grpc.Client(target, grpc.credentials.createInsecure());
client.makeUnaryRequest(
  SAY,
  (value) => Buffer.from(String(value), "utf8"),
  (bytes) => bytes.toString("utf8"),
  message,
  new grpc.Metadata(),
  // Waits while the channel is still resolving (xDS) or connecting, up to the deadline.
  { deadline: Date.now() + DEADLINE_MS, waitForReady: true },
  (error, answer) => {
    client.close();
    if (error) {
      process.stderr.write(`echo-client: ${target}: ${error.message}\n`);
      process.exit(1);
    }
    process.stdout.write(`${answer}\n`);
    process.exit(0);
  },
);
