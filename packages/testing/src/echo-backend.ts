import * as grpc from "@grpc/grpc-js";

/** The one method every test backend serves: it answers with the backend's name. */
export const ECHO_METHOD = "/switchyard.testing.Echo/WhoAreYou";

const identity = (buffer: Buffer) => buffer;

const echoService: grpc.ServiceDefinition = {
  WhoAreYou: {
    path: ECHO_METHOD,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

export interface EchoBackend {
  readonly name: string;
  readonly port: number;
  /** Number of RPCs this backend answered. */
  readonly served: number;
  stop(): Promise<void>;
}

/**
 * A real gRPC server on 127.0.0.1 (random port) whose only method answers with `name`, so a test
 * can tell which backend an RPC reached. No protobuf schema needed: payloads are raw bytes.
 */
export async function startEchoBackend(
  name: string,
  port = 0,
  options: {
    /** Fail every Nth call with UNAVAILABLE (2: every other call), to exercise retries. */
    readonly unavailableEvery?: number;
  } = {},
): Promise<EchoBackend> {
  const server = new grpc.Server();
  let served = 0;
  let calls = 0;
  server.addService(echoService, {
    WhoAreYou: (
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
    },
  });
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
