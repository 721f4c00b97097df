/**
 * The gRPC server of the xDS streams: each bidirectional streaming method served straight from
 * Node's HTTP/2 request and response, one call object per stream.
 *
 * Connect's Node adapter turns every call into a web-style request (a URL parsed, request and
 * response headers copied into `Headers`, an AbortController, the body as an async generator over
 * the Node stream, a promise per chunk written), and Connect's gRPC handler composes each
 * direction from five or six async-iterable transforms. A fleet opens thousands of long-lived
 * streams: through that plumbing (with our own per-message loop already in place of the
 * transforms) a stream cost the server ~360 µs of CPU to open, against ~70 µs for bare HTTP/2
 * stream events; served here, ~170 µs (the fleet suite's stream-setup figure, with an
 * implementation that only answers). Here a request's bytes are split into messages as they
 * arrive and handed to the implementation one promise per message, and responses are written as
 * they come, waiting only when HTTP/2 flow control says so.
 *
 * What Connect's gRPC handler does for a call, this does (grpc-streams.e2e.spec.ts): its protocol
 * parts are used as they are (content type, `grpc-timeout`, compression negotiation, the
 * serializers and their size limits, `grpc-status` trailers: all from Connect's exported protocol
 * modules), and the implementation gets a Connect HandlerContext. Unary methods, and everything on
 * the API port, keep Connect's adapter and handler.
 */
import type * as http from "node:http";
import * as http2 from "node:http2";
import type { DescMethodBiDiStreaming, DescService } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  type ContextValues,
  createContextValues,
  createServiceImplSpec,
  type HandlerContext,
  type ServiceImpl,
} from "@connectrpc/connect";
import {
  type Compression,
  compressedFlag,
  compressionNegotiate,
  createMethodSerializationLookup,
  createMethodUrl,
  encodeEnvelope,
  validateReadWriteMaxBytes,
} from "@connectrpc/connect/protocol";
import {
  contentTypeJson,
  contentTypeProto,
  grpcStatusOk,
  parseContentType,
  parseTimeout,
  setTrailerStatus,
} from "@connectrpc/connect/protocol-grpc";
import { DONE } from "./event-queue.js";
import { withoutFields } from "./wire-fields.js";

export interface GrpcStreamOptions {
  /** Compressions a client may use (Connect's `acceptCompression`). */
  readonly acceptCompression: readonly Compression[];
  /** The largest message accepted, compressed or not (Connect's `readMaxBytes`). */
  readonly readMaxBytes: number;
  /** Responses this large or larger are compressed when the client accepts it. */
  readonly compressMinBytes?: number;
  /**
   * A response framed whole by the caller, as buffers written in turn: exactly the bytes
   * serializing and then framing it would give, or undefined to have it serialized here. Not
   * asked when responses are compressed.
   */
  readonly frame?: (message: unknown) => readonly Uint8Array[] | undefined;
  /**
   * Fields of a request message (by name) that count only in a stream's first request: later
   * requests are decoded without them, their bytes skipped unread (binary requests only).
   */
  readonly firstRequestOnly?: readonly string[];
  /** What the implementation's context carries of each call (Connect's `contextValues`). */
  readonly contextValues?: (request: http2.Http2ServerRequest) => ContextValues;
}

/** What a bidirectional method's implementation is: requests in, responses out. */
type StreamImpl<I, O> = (requests: AsyncIterable<I>, context: HandlerContext) => AsyncIterable<O>;

/** Bytes of one gRPC length-prefixed message's header: flags, then a 32-bit big-endian length. */
export const ENVELOPE_HEADER_BYTES = 5;

/**
 * Request bytes a call holds before its implementation asks for them: with a whole message
 * buffered and this many bytes, the request is paused and HTTP/2 flow control holds the client's
 * further messages. (With Node's default HTTP/2 windows, 64 KiB, the window holds the client
 * first; this bounds a call whatever the windows.) Messages are split off only when the
 * implementation reads them: many tiny messages cost no more to hold than their bytes.
 */
const MAX_BUFFERED_BYTES = 64 * 1024;

// Header names as Node gives them (HTTP/2 header names are lower case, RFC 9113 §8.2.1).
const headerContentType = "content-type";
const headerEncoding = "grpc-encoding";
const headerAcceptEncoding = "grpc-accept-encoding";
const headerTimeout = "grpc-timeout";

/** Node's timers fire at once for longer delays: a deadline further off is as good as none. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What every call of a GrpcStreams reads and writes by. */
interface CallSettings {
  readonly options: GrpcStreamOptions;
  readonly limits: ReturnType<typeof validateReadWriteMaxBytes>;
  /** `options.acceptCompression`, as Connect's negotiation takes it. */
  readonly accepted: Compression[];
}

/** One method served here: its implementation and what reads and writes its messages. */
interface StreamMethod {
  readonly method: DescMethodBiDiStreaming;
  readonly impl: StreamImpl<unknown, unknown>;
  readonly serialization: ReturnType<typeof createMethodSerializationLookup>;
  /** Field numbers skipped after a stream's first request (`firstRequestOnly`). */
  readonly laterSkip: ReadonlySet<number>;
}

/**
 * The bidirectional streaming methods of the services registered, each served over HTTP/2 from
 * Node's request and response; their other methods go to a Connect router.
 */
export class GrpcStreams {
  private readonly methods = new Map<string, StreamMethod>();
  private readonly settings: CallSettings;

  constructor(options: GrpcStreamOptions) {
    this.settings = {
      options,
      limits: validateReadWriteMaxBytes(options.readMaxBytes, undefined, options.compressMinBytes),
      accepted: [...options.acceptCompression],
    };
  }

  /**
   * Registers `service`: its bidirectional streaming methods here, the others on `router`, through
   * Connect's handler (a method `implementation` lacks answers Unimplemented).
   */
  register<S extends DescService>(
    router: ConnectRouter,
    service: S,
    implementation: Partial<ServiceImpl<S>>,
  ): void {
    const spec = createServiceImplSpec(service, implementation);
    for (const method of Object.values(spec.methods)) {
      if (method.kind !== "bidi_streaming") {
        router.rpc(method.method, method.impl as never);
        continue;
      }
      const input = method.method.input;
      this.methods.set(createMethodUrl("/", method.method), {
        method: method.method,
        impl: method.impl as StreamImpl<unknown, unknown>,
        serialization: createMethodSerializationLookup(
          method.method,
          undefined,
          undefined,
          this.settings.limits,
        ),
        laterSkip: new Set(
          (this.settings.options.firstRequestOnly ?? []).flatMap(
            (name) => input.field[name]?.number ?? [],
          ),
        ),
      });
    }
  }

  /**
   * Serves `request` if it calls one of the methods registered here, and says so; false leaves it
   * to the caller. gRPC runs over HTTP/2 only: a call over HTTP/1.1 is answered 505.
   */
  serve(
    request: http.IncomingMessage | http2.Http2ServerRequest,
    response: http.ServerResponse | http2.Http2ServerResponse,
  ): boolean {
    const method = this.methods.get(request.url ?? "");
    if (method === undefined) return false;
    if (
      !(request instanceof http2.Http2ServerRequest) ||
      !(response instanceof http2.Http2ServerResponse)
    ) {
      response.writeHead(505, { "content-type": "text/plain; charset=utf-8" });
      response.end(`${request.url} is a gRPC method: call it over HTTP/2\n`);
      return true;
    }
    if (request.method !== "POST") {
      response.writeHead(405, { allow: "POST" });
      response.end();
      return true;
    }
    const type = parseContentType(headerOf(request, headerContentType));
    if (type === undefined) {
      response.writeHead(415);
      response.end();
      return true;
    }
    new GrpcCall(method, request, response, type.binary, this.settings).start();
    return true;
  }
}

/** A request header's value (the first, when sent more than once), or null. */
function headerOf(request: http2.Http2ServerRequest, name: string): string | null {
  const value = request.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

/** One gRPC message of a request, as framed: its flags and its payload. */
interface Envelope {
  readonly flags: number;
  readonly payload: Buffer;
}

/** The trailers of a call that ends well. */
const TRAILERS_OK = { "grpc-status": String(grpcStatusOk) };

/**
 * One call: its requests, read as the implementation asks for them (this object is the
 * implementation's request iterator), and its responses, written as the implementation gives
 * them. It ends once: when the implementation returns or fails, the client goes away or the
 * deadline passes; the context's signal aborts then, whichever it was.
 */
class GrpcCall implements AsyncIterableIterator<unknown> {
  private readonly context: StreamContext;
  private readonly compression: ReturnType<typeof compressionNegotiate>;
  private readonly skipLater: boolean;
  /** Bytes received not yet read as messages (kept as chunks: joined when a message spans them). */
  private chunks: Buffer[] = [];
  private buffered = 0;
  private paused = false;
  /** The implementation's read waiting for the next message. */
  private waiter: ((result: Promise<IteratorResult<unknown>>) => void) | undefined;
  /** The client ended its requests (half-closed). */
  private ended = false;
  /** Nothing more is read: the requests ended or failed, or the call is over. */
  private closed = false;
  /** Why the requests failed: what every read gets from then on. */
  private readFailure: unknown;
  private first = true;
  private responses: AsyncIterator<unknown> | undefined;
  private headersSent = false;
  private finished = false;
  /** The stream is closed: nothing more can be written. */
  private gone = false;
  /** Wakes the writer waiting for flow control. */
  private wake: (() => void) | undefined;
  private deadline: NodeJS.Timeout | undefined;

  /** The call is refused before its implementation runs (a bad grpc-timeout or grpc-encoding). */
  private readonly refused: ConnectError | undefined;

  constructor(
    private readonly method: StreamMethod,
    private readonly request: http2.Http2ServerRequest,
    private readonly response: http2.Http2ServerResponse,
    private readonly binary: boolean,
    private readonly settings: CallSettings,
  ) {
    const { options } = settings;
    this.compression = compressionNegotiate(
      settings.accepted,
      headerOf(request, headerEncoding),
      headerOf(request, headerAcceptEncoding),
      headerAcceptEncoding,
    );
    this.skipLater = binary && method.laterSkip.size > 0;
    const timeout = parseTimeout(headerOf(request, headerTimeout), Number.MAX_SAFE_INTEGER);
    this.context = new StreamContext(
      method.method,
      request,
      options.contextValues?.(request) ?? createContextValues(),
      timeout.timeoutMs,
    );
    this.refused = this.compression.error ?? timeout.error;
    if (
      this.refused === undefined &&
      timeout.timeoutMs !== undefined &&
      timeout.timeoutMs <= MAX_TIMER_MS
    ) {
      this.deadline = setTimeout(
        () => this.finish(new ConnectError("the operation timed out", Code.DeadlineExceeded)),
        timeout.timeoutMs,
      );
    }
  }

  start(): void {
    this.response.once("close", () => this.onClose());
    if (this.refused !== undefined) {
      this.finish(this.refused);
      return;
    }
    this.request.on("data", (chunk: Buffer) => this.onData(chunk));
    this.request.once("end", () => this.onEnd());
    try {
      this.responses = this.method.impl(this, this.context)[Symbol.asyncIterator]();
    } catch (error) {
      this.finish(error);
      return;
    }
    void this.write(this.responses);
  }

  // The implementation's side of the requests.

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<unknown>> {
    return (
      this.poll() ??
      new Promise((resolve) => {
        this.waiter = resolve;
      })
    );
  }

  /** The implementation stops reading (a `for await` left early): the rest is not read. */
  return(): Promise<IteratorResult<unknown>> {
    this.stopReading(undefined);
    return DONE;
  }

  /** What a read gets now: the next message, the end, a failure; undefined to wait for bytes. */
  private poll(): Promise<IteratorResult<unknown>> | undefined {
    if (this.readFailure !== undefined) return Promise.reject(this.readFailure);
    if (this.closed) return DONE;
    let envelope: Envelope | undefined;
    try {
      envelope = this.take();
    } catch (error) {
      return this.unreadable(error);
    }
    if (envelope !== undefined) {
      if (this.paused && !this.full()) {
        this.paused = false;
        this.request.resume();
      }
      return this.decoded(envelope);
    }
    if (!this.ended) return undefined;
    if (this.buffered > 0) {
      return this.unreadable(
        new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument),
      );
    }
    this.closed = true;
    return DONE;
  }

  // The wire's side of the requests.

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    this.wakeReader();
    if (!this.paused && !this.closed && this.full()) {
      this.paused = true;
      this.request.pause();
    }
  }

  private onEnd(): void {
    this.ended = true;
    this.wakeReader();
  }

  /** Answers the implementation's waiting read, if there is an answer now. */
  private wakeReader(): void {
    const waiter = this.waiter;
    if (waiter === undefined) return;
    const result = this.poll();
    if (result === undefined) return;
    this.waiter = undefined;
    waiter(result);
  }

  /**
   * The next message, split off the bytes buffered; undefined when it is not all here yet. A
   * message longer than readMaxBytes is refused on its header, before its bytes are buffered.
   */
  private take(): Envelope | undefined {
    const length = this.nextLength();
    if (length === undefined || this.buffered < ENVELOPE_HEADER_BYTES + length) return undefined;
    const data = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : this.joined();
    const end = ENVELOPE_HEADER_BYTES + length;
    const envelope = {
      flags: data[0] as number,
      payload: data.subarray(ENVELOPE_HEADER_BYTES, end),
    };
    const rest = data.subarray(end);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return envelope;
  }

  /** The length of the next message, once its header is here (checked against readMaxBytes). */
  private nextLength(): number | undefined {
    if (this.buffered < ENVELOPE_HEADER_BYTES) return undefined;
    const first = this.chunks[0] as Buffer;
    const header = first.length >= ENVELOPE_HEADER_BYTES ? first : this.joined();
    const length = header.readUInt32BE(1);
    if (length > this.settings.limits.readMaxBytes) {
      throw new ConnectError(
        `message size ${length} is larger than configured readMaxBytes ${this.settings.limits.readMaxBytes}`,
        Code.ResourceExhausted,
      );
    }
    return length;
  }

  /** Enough is buffered to stop reading: a whole message, and MAX_BUFFERED_BYTES in all. */
  private full(): boolean {
    if (this.buffered < MAX_BUFFERED_BYTES) return false;
    try {
      const length = this.nextLength();
      return length !== undefined && this.buffered >= ENVELOPE_HEADER_BYTES + length;
    } catch {
      return false; // refused when it is read
    }
  }

  /** The chunks buffered as one. */
  private joined(): Buffer {
    const whole = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [whole];
    return whole;
  }

  /**
   * Reads no more: what is buffered is dropped, and the implementation's reads get the end of
   * its requests, or `failure`.
   */
  private stopReading(failure: unknown, wake = true): void {
    if (this.closed) return;
    this.closed = true;
    if (failure !== undefined) this.readFailure = failure;
    this.chunks = [];
    this.buffered = 0;
    // Bytes still coming are read and dropped: a paused request would hold the client.
    if (this.paused) {
      this.paused = false;
      this.request.resume();
    }
    if (wake) this.wakeReader();
  }

  /** A message decoded (after decompressing it, if it is compressed); a failure ends reading. */
  private decoded(envelope: Envelope): Promise<IteratorResult<unknown>> {
    try {
      if ((envelope.flags & compressedFlag) !== compressedFlag) {
        return Promise.resolve({ done: false, value: this.parsed(envelope.payload) });
      }
      const compression = this.compression.request;
      if (compression === null) {
        throw new ConnectError(
          "received compressed envelope, but do not know how to decompress",
          Code.Internal,
        );
      }
      return compression.decompress(envelope.payload, this.settings.limits.readMaxBytes).then(
        (payload) => ({ done: false, value: this.parsed(payload) }),
        (error: unknown) => this.unreadable(error),
      );
    } catch (error) {
      return this.unreadable(error);
    }
  }

  /**
   * A message that could not be read ends reading with its error: the read that met it gets it
   * (no other read is waiting meanwhile), and so does every later one.
   */
  private unreadable(error: unknown): Promise<never> {
    this.stopReading(error, false);
    this.readFailure = error;
    return Promise.reject(error);
  }

  private parsed(payload: Uint8Array): unknown {
    const bytes =
      !this.first && this.skipLater ? withoutFields(payload, this.method.laterSkip) : payload;
    this.first = false;
    return this.method.serialization.getI(this.binary).parse(bytes);
  }

  // The responses.

  /**
   * Writes each response the implementation gives, waiting for HTTP/2 flow control when the
   * stream's buffer is full (a client that does not read holds the implementation, not this
   * process's memory); ends the call when the implementation ends, with its error if it fails.
   */
  private async write(responses: AsyncIterator<unknown>): Promise<void> {
    const serializer = this.method.serialization.getO(this.binary);
    const compression = this.compression.response;
    const frame = (this.binary && compression === null && this.settings.options.frame) || undefined;
    let failure: unknown;
    try {
      for (;;) {
        const next = await responses.next();
        if (next.done === true || this.finished) break;
        let chunks = frame?.(next.value);
        if (chunks === undefined) {
          let payload = serializer.serialize(next.value as never);
          let flags = 0;
          if (compression !== null && payload.byteLength >= this.settings.limits.compressMinBytes) {
            payload = await compression.compress(payload);
            flags = compressedFlag;
          }
          chunks = [encodeEnvelope(flags, payload)];
        }
        if (this.gone || this.finished) break;
        this.sendHeaders();
        let room = true;
        for (const chunk of chunks) room = this.response.write(chunk);
        if (!room) await this.drained();
      }
    } catch (error) {
      failure = error;
    }
    this.finish(failure);
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.response.off("drain", done);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
      this.response.once("drain", done);
    });
  }

  private sendHeaders(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    const headers: http2.OutgoingHttpHeaders = {
      [headerContentType]: this.binary ? contentTypeProto : contentTypeJson,
    };
    if (this.compression.response !== null) {
      headers[headerEncoding] = this.compression.response.name;
    }
    this.context.responseHeaderInto(headers);
    this.response.writeHead(200, headers);
  }

  /**
   * Ends the call, once: with OK, or with `failure`'s status (an error that is not a ConnectError
   * as "internal error", its text not shown to the client), unless the client is gone. The
   * context's signal aborts, reading stops, and the implementation is told to return.
   */
  private finish(failure: unknown): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.deadline);
    if (!this.gone) this.sendTrailers(failure);
    this.context.abort(failure);
    this.stopReading(failure);
    this.wake?.();
    void this.responses?.return?.().catch(() => undefined);
  }

  /** The response's end: headers if none were sent yet, then the status in trailers. */
  private sendTrailers(failure: unknown): void {
    let trailers: http2.OutgoingHttpHeaders = TRAILERS_OK;
    if (failure !== undefined || this.context.hasResponseTrailer()) {
      const status =
        failure === undefined || failure instanceof ConnectError
          ? failure
          : new ConnectError("internal error", Code.Internal, undefined, undefined, failure);
      trailers = {};
      this.context.responseTrailerInto(trailers);
      setTrailerStatus(new Headers(), status).forEach((value, key) => {
        trailers[key] = value;
      });
    }
    try {
      this.sendHeaders();
      this.response.addTrailers(trailers);
      this.response.end();
    } catch {
      // The stream was destroyed under us (its session failed): there is no one to tell.
    }
  }

  /** The stream closed: after the call ended, or because the client went away or reset it. */
  private onClose(): void {
    this.gone = true;
    // Most calls have ended by now; a ConnectError (its stack captured) is made only when not.
    if (!this.finished)
      this.finish(new ConnectError("the client closed the stream", Code.Canceled));
  }
}

/**
 * The implementation's context (Connect's HandlerContext): its headers are built only when read,
 * and its signal when asked for, since a stream's implementation seldom needs either.
 */
class StreamContext implements HandlerContext {
  readonly protocolName = "grpc";
  readonly requestMethod = "POST";
  readonly service: DescService;
  private controller: AbortController | undefined;
  private aborted: { reason: unknown } | undefined;
  private requestHeaders: Headers | undefined;
  private responseHeaders: Headers | undefined;
  private responseTrailers: Headers | undefined;
  private readonly deadlineAt: number | undefined;

  constructor(
    readonly method: DescMethodBiDiStreaming,
    private readonly request: http2.Http2ServerRequest,
    readonly values: ContextValues,
    timeoutMs: number | undefined,
  ) {
    this.service = method.parent;
    this.deadlineAt = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  }

  get url(): string {
    const scheme = this.request.scheme ?? "http";
    return `${scheme}://${this.request.authority}${this.request.url}`;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted !== undefined) this.controller.abort(this.aborted.reason);
    }
    return this.controller.signal;
  }

  timeoutMs(): number | undefined {
    return this.deadlineAt === undefined ? undefined : this.deadlineAt - Date.now();
  }

  get requestHeader(): Headers {
    if (this.requestHeaders === undefined) {
      this.requestHeaders = new Headers();
      for (const [name, value] of Object.entries(this.request.headers)) {
        if (name.startsWith(":") || value === undefined) continue;
        for (const one of Array.isArray(value) ? value : [value]) {
          this.requestHeaders.append(name, one);
        }
      }
    }
    return this.requestHeaders;
  }

  get responseHeader(): Headers {
    this.responseHeaders ??= new Headers();
    return this.responseHeaders;
  }

  get responseTrailer(): Headers {
    this.responseTrailers ??= new Headers();
    return this.responseTrailers;
  }

  /** The response headers the implementation set, added to `target`. */
  responseHeaderInto(target: http2.OutgoingHttpHeaders): void {
    this.responseHeaders?.forEach((value, name) => {
      target[name] = value;
    });
  }

  hasResponseTrailer(): boolean {
    return this.responseTrailers !== undefined;
  }

  /** The response trailers the implementation set, added to `target`. */
  responseTrailerInto(target: http2.OutgoingHttpHeaders): void {
    this.responseTrailers?.forEach((value, name) => {
      target[name] = value;
    });
  }

  abort(reason: unknown): void {
    if (this.aborted !== undefined) return;
    this.aborted = { reason };
    this.controller?.abort(reason);
  }
}
