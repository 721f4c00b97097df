import * as grpc from "@grpc/grpc-js";

/** The one method every test backend serves: it answers with the backend's name. */
export const ECHO_METHOD = "/switchyard.testing.Echo/WhoAreYou";

const identity = (buffer: Buffer) => buffer;

const unaryMethod = (path: string): grpc.MethodDefinition<Buffer, Buffer> => ({
  path,
  requestStream: false,
  responseStream: false,
  requestSerialize: identity,
  requestDeserialize: identity,
  responseSerialize: identity,
  responseDeserialize: identity,
});

export interface EchoBackend {
  readonly name: string;
  readonly port: number;
  /** Number of RPCs this backend answered. */
  readonly served: number;
  stop(): Promise<void>;
}

/**
 * A real gRPC server on 127.0.0.1 (random port) whose method ECHO_METHOD (and each of
 * `options.methods`) answers with `name`, so a test can tell which backend an RPC reached. No
 * protobuf schema needed: payloads are raw bytes.
 */
export async function startEchoBackend(
  name: string,
  port = 0,
  options: {
    /** Fail every Nth call with UNAVAILABLE (2: every other call), to exercise retries. */
    readonly unavailableEvery?: number;
    /** More method paths ("/package.Service/Method") answered as ECHO_METHOD is. */
    readonly methods?: readonly string[];
  } = {},
): Promise<EchoBackend> {
  const server = new grpc.Server();
  let served = 0;
  let calls = 0;
  const whoAreYou = (
    _call: grpc.ServerUnaryCall<Buffer, Buffer>,
    callback: grpc.sendUnaryData<Buffer>,
  ) => {
    calls += 1;
    if (options.unavailableEvery !== undefined && calls % options.unavailableEvery === 0) {
      callback({ code: grpc.status.UNAVAILABLE, details: `${name} refused call ${calls}` });
      return;
    }
    served += 1;
    callback(null, Buffer.from(name));
  };
  // One definition entry per path (the server registers methods by path; the keys only pair
  // each definition with its handler).
  const paths = [...new Set([ECHO_METHOD, ...(options.methods ?? [])])];
  const keyOf = (i: number) => (i === 0 ? "WhoAreYou" : `Extra${i}`);
  server.addService(
    Object.fromEntries(paths.map((path, i) => [keyOf(i), unaryMethod(path)])),
    Object.fromEntries(paths.map((_path, i) => [keyOf(i), whoAreYou])),
  );
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      `127.0.0.1:${port}`,
      grpc.ServerCredentials.createInsecure(),
      (error, actual) => (error ? reject(error) : resolve(actual)),
    ),
  );
  return {
    name,
    port: bound,
    get served() {
      return served;
    },
    stop: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
}
