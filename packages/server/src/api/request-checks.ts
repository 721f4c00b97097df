/**
 * Checks of every API request's content that no handler should have to repeat: a binary body
 * that does not decode, a JSON body that is not an object, and strings the database cannot keep
 * are refused with INVALID_ARGUMENT saying what and where, before any handler runs
 * (api-fuzz.e2e.spec.ts sends every method such bodies; request-checks.e2e.spec.ts pins each).
 */
import * as zlib from "node:zlib";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { type ConnectError, createContextKey, type Interceptor } from "@connectrpc/connect";
import {
  createAsyncIterable,
  type UniversalHandler,
  type UniversalServerRequest,
} from "@connectrpc/connect/protocol";
import { binaryProblem } from "./binary-problem.js";
import { invalidArgument } from "./errors.js";
import { textProblem } from "./text-problem.js";

/**
 * The largest request body the API reads, in bytes (Connect's `readMaxBytes`; larger ones get
 * RESOURCE_EXHAUSTED before they are buffered). Connect's default is 4 GiB, and a body is read
 * before the caller is authenticated. An Import of 10,000 clusters is about 10 MB.
 */
export const API_READ_MAX_BYTES = 64 * 1024 * 1024;

/** Why the body cannot be decoded, set by `checkRequestBodies` for the interceptor to throw. */
const BODY_PROBLEM = createContextKey<ConnectError | undefined>(undefined, {
  description: "why the request body is not a valid request message",
});

/** The INVALID_ARGUMENT a request gets, with the problem as an issue at its path. */
function refusal(
  message: string,
  problem: { readonly path: string; readonly reason: string },
): ConnectError {
  return invalidArgument(message, [
    { severity: "error", code: "invalid-request", path: problem.path, message: problem.reason },
  ]);
}

/** How a request body is framed (one bare message, or gRPC-style envelopes) and encoded. */
interface Framing {
  readonly t: "bare" | "enveloped";
  readonly format: "binary" | "json";
  /** The compression of the body (bare) or of its compressed envelopes; null for none. */
  readonly encoding: string | null;
}

function framingOf(request: UniversalServerRequest): Framing | undefined {
  if (request.method !== "POST") return undefined;
  const type = (request.header.get("content-type") ?? "").split(";", 1)[0]?.trim().toLowerCase();
  const bare = request.header.get("content-encoding");
  const connect = request.header.get("connect-content-encoding");
  const grpc = request.header.get("grpc-encoding");
  switch (type) {
    case "application/proto":
      return { t: "bare", format: "binary", encoding: bare };
    case "application/json":
      return { t: "bare", format: "json", encoding: bare };
    case "application/connect+proto":
      return { t: "enveloped", format: "binary", encoding: connect };
    case "application/connect+json":
      return { t: "enveloped", format: "json", encoding: connect };
    case "application/grpc":
    case "application/grpc+proto":
    case "application/grpc-web":
    case "application/grpc-web+proto":
      return { t: "enveloped", format: "binary", encoding: grpc };
    case "application/grpc+json":
    case "application/grpc-web+json":
      return { t: "enveloped", format: "json", encoding: grpc };
    default:
      return undefined;
  }
}

/**
 * What is wrong with one request message of `schema`, as a full sentence, or undefined. JSON that
 * does not parse, or does not decode, is left to Connect, whose message says so and names the
 * field; but for a body that is no object at all it says only "Array(1)".
 */
function messageProblem(
  schema: DescMessage,
  message: Uint8Array,
  format: Framing["format"],
): { readonly message: string; readonly path: string; readonly reason: string } | undefined {
  if (format === "binary") {
    const problem = binaryProblem(schema, message);
    return problem
      ? {
          message: `the request body is not a valid ${schema.typeName} (binary protobuf): ${problem.path}: ${problem.reason}`,
          ...problem,
        }
      : undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(message).toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof json === "object" && json !== null && !Array.isArray(json)) return undefined;
  const got = Array.isArray(json) ? "an array" : json === null ? "null" : `a ${typeof json}`;
  const reason = `must be a JSON object (a ${schema.typeName}), not ${got}`;
  return { message: `the request body ${reason}`, path: schema.name, reason };
}

/** `bytes` decompressed as `encoding` says; undefined when it cannot be (Connect then says why). */
function decompressed(bytes: Uint8Array, encoding: string | null): Uint8Array | undefined {
  const options = { maxOutputLength: API_READ_MAX_BYTES };
  try {
    switch (encoding ?? "identity") {
      case "identity":
        return bytes;
      case "gzip":
        return zlib.gunzipSync(bytes, options);
      case "br":
        return zlib.brotliDecompressSync(bytes, options);
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}

/** The messages of a body as framed; a frame that cannot be read is left to Connect. */
function messagesOf(body: Uint8Array, framing: Framing): Uint8Array[] {
  if (framing.t === "bare") {
    const message = decompressed(body, framing.encoding);
    return message ? [message] : [];
  }
  const messages: Uint8Array[] = [];
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  for (let at = 0; at + 5 <= body.length; ) {
    const flags = view.getUint8(at);
    const length = view.getUint32(at + 1);
    const payload = body.subarray(at + 5, at + 5 + length);
    if (payload.length < length) break;
    at += 5 + length;
    // Bit 0: compressed; any other bit is not a request message (Connect judges those).
    if ((flags & ~1) !== 0) continue;
    const message = flags === 0 ? payload : decompressed(payload, framing.encoding);
    if (message) messages.push(message);
  }
  return messages;
}

/** One uncompressed envelope holding `message`. */
function envelope(message: Uint8Array): Uint8Array {
  const framed = new Uint8Array(5 + message.length);
  new DataView(framed.buffer).setUint32(1, message.length);
  framed.set(message, 5);
  return framed;
}

async function readBody(
  body: AsyncIterable<Uint8Array>,
): Promise<{ chunks: Uint8Array[]; complete: boolean; rest: AsyncIterator<Uint8Array> }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const rest = body[Symbol.asyncIterator]();
  for (let next = await rest.next(); !next.done; next = await rest.next()) {
    chunks.push(next.value);
    size += next.value.length;
    if (size > API_READ_MAX_BYTES) return { chunks, complete: false, rest };
  }
  return { chunks, complete: true, rest };
}

async function* replay(
  chunks: readonly Uint8Array[],
  rest: AsyncIterator<Uint8Array>,
): AsyncIterable<Uint8Array> {
  yield* chunks;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

/**
 * Wraps a method's handler so its body is checked before Connect decodes it. Connect reports a
 * binary body (`application/proto`, gRPC, gRPC-web) that does not decode as INTERNAL "parse
 * binary: premature EOF", saying neither that the client is at fault nor where, and a JSON body
 * that is no object as "Array(1)". Such a body reaches Connect as an empty message instead, with
 * the problem in the context: the first interceptor (createRequestCheckInterceptor) throws it as
 * INVALID_ARGUMENT naming the field, in whatever protocol the call speaks. Only unary and
 * server-streaming methods (one request message) are served, so the whole body is read; one over
 * API_READ_MAX_BYTES, or compressed in a way not known here, is left to Connect.
 */
export function checkRequestBodies(handler: UniversalHandler): UniversalHandler {
  const schema: DescMessage = handler.method.input;
  const checked = async (request: UniversalServerRequest) => {
    if (request.method === "GET") return handler(checkedGet(schema, request));
    const framing = framingOf(request);
    const declared = Number(request.header.get("content-length") ?? 0);
    if (
      framing === undefined ||
      declared > API_READ_MAX_BYTES ||
      request.body === null ||
      typeof request.body !== "object" ||
      !(Symbol.asyncIterator in request.body)
    ) {
      return handler(request);
    }
    const { chunks, complete, rest } = await readBody(request.body);
    const body = Buffer.concat(chunks);
    const problem = complete
      ? messagesOf(body, framing)
          .map((message) => messageProblem(schema, message, framing.format))
          .find((found) => found !== undefined)
      : undefined;
    if (problem === undefined) return handler({ ...request, body: replay(chunks, rest) });
    request.contextValues?.set(BODY_PROBLEM, refusal(problem.message, problem));
    // An empty message, which decodes as anything, in the same framing, uncompressed.
    const header = new Headers(request.header);
    for (const name of [
      "content-length",
      "content-encoding",
      "connect-content-encoding",
      "grpc-encoding",
    ]) {
      header.delete(name);
    }
    const message = framing.format === "json" ? new TextEncoder().encode("{}") : new Uint8Array(0);
    const empty = framing.t === "bare" ? message : envelope(message);
    return handler({ ...request, header, body: createAsyncIterable([empty]) });
  };
  return Object.assign(checked, {
    protocolNames: handler.protocolNames,
    service: handler.service,
    method: handler.method,
    requestPath: handler.requestPath,
    allowedMethods: handler.allowedMethods,
    supportedContentType: handler.supportedContentType,
  });
}

/**
 * A Connect GET request (methods without side effects) with its `message` query parameter
 * checked as `checkRequestBodies` checks a body: on a problem, the message becomes an empty one
 * and the problem goes in the context.
 */
function checkedGet(schema: DescMessage, request: UniversalServerRequest): UniversalServerRequest {
  const url = new URL(request.url);
  const query = url.searchParams;
  const format =
    query.get("encoding") === "proto"
      ? "binary"
      : query.get("encoding") === "json"
        ? "json"
        : undefined;
  if (format === undefined) return request;
  let bytes: Uint8Array;
  try {
    const text = query.get("message") ?? "";
    bytes = query.get("base64") === "1" ? base64Decode(text) : new TextEncoder().encode(text);
  } catch {
    return request;
  }
  const decoded = decompressed(bytes, query.get("compression"));
  const problem = decoded && messageProblem(schema, decoded, format);
  if (!problem) return request;
  const message = problem.message.replace("the request body", "the request's message parameter");
  request.contextValues?.set(BODY_PROBLEM, refusal(message, problem));
  query.set("message", format === "json" ? "{}" : "");
  query.delete("base64");
  query.delete("compression");
  return { ...request, url: url.toString() };
}

/**
 * The interceptor to run first: it throws the body problem `checkRequestBodies` found, and refuses
 * a request holding a string the database cannot keep (text-problem.ts), naming the field.
 */
export function createRequestCheckInterceptor(): Interceptor {
  const checkText = (schema: DescMessage, message: MessageShape<DescMessage>) => {
    const problem = textProblem(schema, message);
    if (problem) throw refusal(`${problem.path} ${problem.reason}`, problem);
  };
  return (next) => async (request) => {
    const bodyProblem = request.contextValues.get(BODY_PROBLEM);
    if (bodyProblem) throw bodyProblem;
    const schema = request.method.input;
    if (!request.stream) {
      checkText(schema, request.message);
      return next(request);
    }
    const messages = request.message;
    return next({
      ...request,
      message: (async function* () {
        for await (const message of messages) {
          checkText(schema, message);
          yield message;
        }
      })(),
    });
  };
}
