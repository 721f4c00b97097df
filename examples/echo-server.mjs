// The backend of the quick start (README, "Try it with a proxyless gRPC client"): a gRPC server on
// 127.0.0.1:50051, where examples/grpc-echo.yaml sends the cluster echo-backend, whose one method
// answers with what it was sent. Run it with `node examples/echo-server.mjs` (or
// `node examples/echo-server.mjs 50052` for another port); Ctrl-C stops it.
//
// No .proto to compile: the method carries a UTF-8 string each way, serialized by hand, which is
// all gRPC needs (a method is a path and two serializers; @grpc/grpc-js's MethodDefinition).
import * as grpc from "@grpc/grpc-js";

/** The method examples/echo-client.mjs calls. */
export const SAY = "/switchyard.examples.Echo/Say";

const text = {
  serialize: (value) => Buffer.from(String(value), "utf8"),
  deserialize: (bytes) => bytes.toString("utf8"),
};

const port = Number(process.argv[2] ?? 50051);

const server = new grpc.Server();
server.addService(
  {
    Say: {
      path: SAY,
      requestStream: false,
      responseStream: false,
      requestSerialize: text.serialize,
      requestDeserialize: text.deserialize,
      responseSerialize: text.serialize,
      responseDeserialize: text.deserialize,
    },
  },
  { Say: (call, callback) => callback(null, `127.0.0.1:${port} says: ${call.request}`) },
);
server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error, bound) => {
  if (error) {
    process.stderr.write(`echo-server: cannot listen on 127.0.0.1:${port}: ${error.message}\n`);
    process.exit(1);
  }
  process.stdout.write(`echo-server: listening on 127.0.0.1:${bound}\n`);
});
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => server.tryShutdown(() => process.exit(0)));
