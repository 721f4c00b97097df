/**
 * The gRPC handler of the xDS streams: Connect's gRPC protocol, with each direction's per-message
 * work in one native async generator.
 *
 * Connect's own gRPC handler (`@connectrpc/connect/protocol-grpc`) composes each direction of a
 * stream from five or six async-iterable transforms (split, decompress and parse envelopes, invoke
 * the implementation; serialize, compress, join envelopes, catch), each built with TypeScript's
 * ES2017 async-generator helpers, which make several promises per message per transform. On a
 * fleet's fan-out that plumbing, with the garbage it leaves, was the largest share of a change's
 * CPU in the server (docs/benchmarks.md). This handler keeps Connect's protocol parts (content
 * type, method, `grpc-timeout`, compression negotiation, the handler context and its signals, the
 * serializers and their size limits, `grpc-status` trailers: all from Connect's exported protocol
 * modules) and Connect's router and Node adapter around it; only the per-message loop is ours.
 * Unary methods, and everything on the API port, keep Connect's handler.
 */
import type { DescMethodBiDiStreaming, DescService } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  createHandlerContext,
  createServiceImplSpec,
  type HandlerContext,
  type ServiceImpl,
} from "@connectrpc/connect";
import {
  assertByteStreamRequest,
  type Compression,
  compressedFlag,
  compressionNegotiate,
  contentTypeMatcher,
  createMethodSerializationLookup,
  createMethodUrl,
  encodeEnvelope,
  type UniversalHandler,
  type UniversalServerRequest,
  type UniversalServerResponse,
  uResponseMethodNotAllowed,
  uResponseOk,
  uResponseUnsupportedMediaType,
  validateReadWriteMaxBytes,
} from "@connectrpc/connect/protocol";
import {
  contentTypeJson,
  contentTypeProto,
  contentTypeRegExp,
  grpcStatusOk,
  headerAcceptEncoding,
  headerContentType,
  headerEncoding,
  headerGrpcStatus,
  headerTimeout,
  parseContentType,
  parseTimeout,
  setTrailerStatus,
} from "@connectrpc/connect/protocol-grpc";
import { withoutFields } from "./wire-fields.js";

export interface GrpcStreamOptions {
  /** Compressions a client may use (Connect's `acceptCompression`). */
  readonly acceptCompression: readonly Compression[];
  /** The largest message accepted, compressed or not (Connect's `readMaxBytes`). */
  readonly readMaxBytes: number;
  /** Responses this large or larger are compressed when the client accepts it. */
  readonly compressMinBytes?: number;
  /**
   * A response framed whole by the caller, in one buffer: exactly the bytes serializing and then
   * framing it would give, or undefined to have it serialized here. Not asked when responses are
   * compressed.
   */
  readonly frame?: (message: unknown) => Uint8Array | undefined;
  /**
   * Fields of a request message (by name) that count only in a stream's first request: later
   * requests are decoded without them, their bytes skipped unread (binary requests only).
   */
  readonly firstRequestOnly?: readonly string[];
}

/** What a bidirectional method's implementation is: requests in, responses out. */
type StreamImpl<I, O> = (requests: AsyncIterable<I>, context: HandlerContext) => AsyncIterable<O>;

/**
 * Registers `service` on `router`: its bidirectional streaming methods through this handler,
 * the others through Connect's (a method `implementation` lacks answers Unimplemented).
 */
export function registerStreams<S extends DescService>(
  router: ConnectRouter,
  service: S,
  implementation: Partial<ServiceImpl<S>>,
  options: GrpcStreamOptions,
): void {
  const spec = createServiceImplSpec(service, implementation);
  for (const method of Object.values(spec.methods)) {
    if (method.kind === "bidi_streaming") {
      router.handlers.push(
        grpcStreamHandler(method.method, method.impl as StreamImpl<unknown, unknown>, options),
      );
    } else {
      router.rpc(method.method, method.impl as never);
    }
  }
}

const protocolName = "grpc";

/** Bytes of one gRPC length-prefixed message's header: flags, then a 32-bit big-endian length. */
export const ENVELOPE_HEADER_BYTES = 5;

/**
 * A bidirectional streaming method served over gRPC (the gRPC over HTTP/2 protocol,
 * "Length-Prefixed-Message"), as Connect's gRPC handler serves it.
 */
export function grpcStreamHandler<I, O>(
  method: DescMethodBiDiStreaming,
  impl: StreamImpl<I, O>,
  options: GrpcStreamOptions,
): UniversalHandler {
  const limits = validateReadWriteMaxBytes(
    options.readMaxBytes,
    undefined,
    options.compressMinBytes,
  );
  const serialization = createMethodSerializationLookup(method, undefined, undefined, limits);
  const laterSkip = new Set(
    (options.firstRequestOnly ?? []).flatMap((name) => method.input.field[name]?.number ?? []),
  );
  const { compressMinBytes } = limits;
  const acceptCompression = [...options.acceptCompression];
  async function handle(request: UniversalServerRequest): Promise<UniversalServerResponse> {
    const type = parseContentType(request.header.get(headerContentType));
    if (type === undefined) return uResponseUnsupportedMediaType;
    if (request.method !== "POST") return uResponseMethodNotAllowed;
    assertByteStreamRequest(request);
    const body = request.body;
    const timeout = parseTimeout(request.header.get(headerTimeout), Number.MAX_SAFE_INTEGER);
    const context = createHandlerContext({
      service: method.parent,
      method,
      protocolName,
      requestMethod: request.method,
      url: request.url,
      ...(timeout.timeoutMs === undefined ? {} : { timeoutMs: timeout.timeoutMs }),
      requestSignal: request.signal,
      requestHeader: request.header,
      responseHeader: { [headerContentType]: type.binary ? contentTypeProto : contentTypeJson },
      responseTrailer: { [headerGrpcStatus]: grpcStatusOk },
      ...(request.contextValues === undefined ? {} : { contextValues: request.contextValues }),
    });
    const compression = compressionNegotiate(
      acceptCompression,
      request.header.get(headerEncoding),
      request.header.get(headerAcceptEncoding),
      headerAcceptEncoding,
    );
    if (compression.response) {
      context.responseHeader.set(headerEncoding, compression.response.name);
    }
    const parser = serialization.getI(type.binary);
    const skipLater = type.binary && laterSkip.size > 0;
    const serializer = serialization.getO(type.binary);
    async function* requests(): AsyncGenerator<I> {
      // Raised here so that they end the call as a trailer status, as Connect's handler does.
      if (compression.error) throw compression.error;
      if (timeout.error) throw timeout.error;
      let first = true;
      for await (const data of envelopes(body, limits.readMaxBytes)) {
        let payload = data.payload;
        if ((data.flags & compressedFlag) === compressedFlag) {
          if (!compression.request) {
            throw new ConnectError(
              "received compressed envelope, but do not know how to decompress",
              Code.Internal,
            );
          }
          payload = await compression.request.decompress(payload, limits.readMaxBytes);
        }
        if (!first && skipLater) payload = withoutFields(payload, laterSkip);
        first = false;
        yield parser.parse(payload) as I;
      }
    }
    const responses = impl(requests(), context)[Symbol.asyncIterator]();
    return {
      ...uResponseOk,
      body: frames(responses, context, {
        serialize: (message) => serializer.serialize(message as never),
        compression: compression.response,
        compressMinBytes,
        frame: (type.binary && compression.response === null && options.frame) || noFrame,
      }),
      header: context.responseHeader,
      trailer: context.responseTrailer,
    };
  }
  return Object.assign(handle, {
    protocolNames: [protocolName],
    allowedMethods: ["POST"],
    supportedContentType: contentTypeMatcher(contentTypeRegExp),
    requestPath: createMethodUrl("/", method),
    service: method.parent,
    method,
  });
}

/** How responses go on the wire. */
interface Wire<O> {
  serialize(message: O): Uint8Array;
  compression: Compression | null;
  compressMinBytes: number;
  frame(message: O): Uint8Array | undefined;
}

const noFrame = () => undefined;

/** A response serialized, compressed when worth it, and framed. */
async function envelope<O>(message: O, wire: Wire<O>): Promise<Uint8Array> {
  let data = wire.serialize(message);
  let flags = 0;
  if (wire.compression !== null && data.byteLength >= wire.compressMinBytes) {
    data = await wire.compression.compress(data);
    flags = compressedFlag;
  }
  return encodeEnvelope(flags, data);
}

/**
 * The response body: each response serialized, compressed when worth it, and framed. An error of
 * the implementation ends the stream with its status in the trailers (an error that is not a
 * ConnectError as "internal error", its text not shown to the client); the context's signal is
 * aborted when the stream ends either way, or when the client goes (the Node adapter then returns
 * or throws into this generator, which passes it on to the implementation).
 */
async function* frames<O>(
  responses: AsyncIterator<O>,
  context: HandlerContext & { abort(reason?: unknown): void },
  wire: Wire<O>,
): AsyncGenerator<Uint8Array> {
  let failure: unknown;
  let finished = false;
  try {
    for (;;) {
      let frame: Uint8Array;
      try {
        const next = await responses.next();
        if (next.done === true) break;
        frame = wire.frame(next.value) ?? (await envelope(next.value, wire));
      } catch (error) {
        failure = error;
        break;
      }
      // A failed write arrives here, at the yield, as a throw; the client gone, as a return.
      yield frame;
    }
    finished = true;
  } catch (error) {
    context.abort(error);
    await responses.throw?.(error).catch(() => undefined);
    throw error;
  } finally {
    if (finished) {
      context.abort(failure);
      if (failure instanceof ConnectError) setTrailerStatus(context.responseTrailer, failure);
      else if (failure !== undefined) {
        setTrailerStatus(
          context.responseTrailer,
          new ConnectError("internal error", Code.Internal, undefined, undefined, failure),
        );
      }
    } else {
      context.abort();
      void responses.return?.().catch(() => undefined);
    }
  }
}

/**
 * The gRPC messages of a request body, split from its chunks in arrival order. A message longer
 * than `readMaxBytes` is refused as soon as its header is read (RESOURCE_EXHAUSTED), and a body
 * that ends inside a message is a protocol error (INVALID_ARGUMENT), as in Connect.
 */
async function* envelopes(
  body: AsyncIterable<Uint8Array>,
  readMaxBytes: number,
): AsyncGenerator<{ flags: number; payload: Uint8Array }> {
  let pending: Uint8Array = new Uint8Array(0);
  for await (const chunk of body) {
    pending = pending.byteLength === 0 ? chunk : concat(pending, chunk);
    let offset = 0;
    while (pending.byteLength - offset >= ENVELOPE_HEADER_BYTES) {
      const view = new DataView(pending.buffer, pending.byteOffset + offset, ENVELOPE_HEADER_BYTES);
      const flags = view.getUint8(0);
      const length = view.getUint32(1);
      if (length > readMaxBytes) {
        throw new ConnectError(
          `message size ${length} is larger than configured readMaxBytes ${readMaxBytes}`,
          Code.ResourceExhausted,
        );
      }
      const end = offset + ENVELOPE_HEADER_BYTES + length;
      if (pending.byteLength < end) break;
      yield { flags, payload: pending.subarray(offset + ENVELOPE_HEADER_BYTES, end) };
      offset = end;
    }
    pending = pending.subarray(offset);
  }
  if (pending.byteLength > 0) {
    throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.byteLength + b.byteLength);
  joined.set(a, 0);
  joined.set(b, a.byteLength);
  return joined;
}
