/**
 * Checks of every API request's content that no handler should have to repeat: a binary body
 * that does not decode, a JSON body that is not an object, and strings the database cannot keep
 * are refused with INVALID_ARGUMENT saying what and where, before any handler runs
 * (api-fuzz.e2e.spec.ts sends every method such bodies; request-checks.e2e.spec.ts pins each).
 *
 * Before any of that, and before a byte of the body is read, the caller is authenticated from the
 * headers (BodyPolicy.admit), and the body is bounded per method (BodyPolicy.limitOf): by its
 * declared length, by the bytes read, and by what it decompresses to. A request from nobody, or
 * over its limit, costs the server its headers only.
 */
import * as zlib from "node:zlib";
import type { DescMessage, DescMethod, MessageShape } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import {
  Code,
  ConnectError,
  type ContextValues,
  createContextKey,
  type Interceptor,
} from "@connectrpc/connect";
import {
  createAsyncIterable,
  type UniversalHandler,
  type UniversalServerRequest,
} from "@connectrpc/connect/protocol";
import { binaryProblem } from "./binary-problem.js";
import { invalidArgument } from "./errors.js";
import { textProblem } from "./text-problem.js";

/** What a method's request may cost before its handler runs. */
export interface BodyPolicy {
  /** The most bytes a request body of `method` may hold, read or decompressed. */
  limitOf(method: DescMethod): number;
  /**
   * Whether the caller may send `method` a body at all, from the headers alone: the refusal (the
   * caller is unknown), or undefined. Runs before the body is read; may keep what it learnt in
   * `contextValues` for the interceptors.
   */
  admit(
    method: DescMethod,
    header: Headers,
    contextValues: ContextValues | undefined,
  ): Promise<ConnectError | undefined>;
}

/** Without a policy (unit tests of the checks): any caller, and the largest limit. */
const OPEN_POLICY: BodyPolicy = {
  limitOf: () => API_READ_MAX_BYTES,
  admit: async () => undefined,
};

/**
 * The largest request body the API reads, in bytes, whatever the method: Connect's
 * `readMaxBytes`, a last bound behind the per-method limits of the BodyPolicy (an Import of 8 MiB
 * of YAML is up to twice that as a JSON string).
 */
export const API_READ_MAX_BYTES = 20 * 1024 * 1024;

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

/** A body that decompresses to more than its method's limit. */
class TooLarge extends Error {}

/**
 * `bytes` decompressed as `encoding` says, stopping at `limit` bytes (TooLarge past it); undefined
 * when it cannot be (Connect then says why).
 */
function decompressed(
  bytes: Uint8Array,
  encoding: string | null,
  limit: number,
): Uint8Array | undefined {
  const options = { maxOutputLength: limit };
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
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") throw new TooLarge();
    return undefined;
  }
}

/** The messages of a body as framed; a frame that cannot be read is left to Connect. */
function messagesOf(body: Uint8Array, framing: Framing, limit: number): Uint8Array[] {
  if (framing.t === "bare") {
    const message = decompressed(body, framing.encoding, limit);
    return message ? [message] : [];
  }
  const messages: Uint8Array[] = [];
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let total = 0;
  for (let at = 0; at + 5 <= body.length; ) {
    const flags = view.getUint8(at);
    const length = view.getUint32(at + 1);
    const payload = body.subarray(at + 5, at + 5 + length);
    if (payload.length < length) break;
    at += 5 + length;
    // Bit 0: compressed; any other bit is not a request message (Connect judges those).
    if ((flags & ~1) !== 0) continue;
    const message = flags === 0 ? payload : decompressed(payload, framing.encoding, limit - total);
    if (message) {
      total += message.length;
      messages.push(message);
    }
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

/** The body's chunks, or undefined once it holds more than `limit` bytes (the rest unread). */
async function readBody(
  body: AsyncIterable<Uint8Array>,
  limit: number,
): Promise<Uint8Array[] | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return chunks;
}

function tooLarge(method: DescMethod, limit: number, what: string): ConnectError {
  return new ConnectError(
    `the request body ${what} more than the ${limit} bytes (${mebibytes(limit)}) ${method.name} accepts`,
    Code.ResourceExhausted,
  );
}

function mebibytes(bytes: number): string {
  const mib = bytes / 1024 / 1024;
  return mib >= 1 ? `${mib} MiB` : `${bytes / 1024} KiB`;
}

/**
 * Wraps a method's handler so its caller is admitted and its body checked before Connect reads
 * it. A refusal reaches Connect as an empty message instead, with the refusal in the context: the
 * first interceptor (createRequestCheckInterceptor) throws it, in whatever protocol the call
 * speaks, before any other runs.
 *
 * - An unknown caller (policy.admit) is refused with the body unread.
 * - A body declared, read or decompressed past the method's limit: RESOURCE_EXHAUSTED, reading
 *   stopped there.
 * - Connect reports a binary body (`application/proto`, gRPC, gRPC-web) that does not decode as
 *   INTERNAL "parse binary: premature EOF", saying neither that the client is at fault nor where,
 *   and a JSON body that is no object as "Array(1)": INVALID_ARGUMENT naming the field instead.
 *
 * Only unary and server-streaming methods (one request message) are served, so the whole body is
 * read; one compressed in a way not known here is left to Connect.
 */
export function checkRequestBodies(
  handler: UniversalHandler,
  policy: BodyPolicy = OPEN_POLICY,
): UniversalHandler {
  const { method } = handler;
  const schema: DescMessage = method.input;
  const limit = policy.limitOf(method);
  const checked = async (request: UniversalServerRequest) => {
    const refuse = (error: ConnectError) => {
      request.contextValues?.set(BODY_PROBLEM, error);
      return handler(emptied(request, framingOf(request)));
    };
    const unknownCaller = await policy.admit(method, request.header, request.contextValues);
    if (unknownCaller) return refuse(unknownCaller);
    if (request.method === "GET") return handler(checkedGet(method, request, limit));
    const framing = framingOf(request);
    const declared = Number(request.header.get("content-length") ?? 0);
    if (declared > limit) return refuse(tooLarge(method, limit, `is ${declared} bytes,`));
    if (
      framing === undefined ||
      request.body === null ||
      typeof request.body !== "object" ||
      !(Symbol.asyncIterator in request.body)
    ) {
      return handler(request);
    }
    const chunks = await readBody(request.body, limit);
    if (chunks === undefined) return refuse(tooLarge(method, limit, "holds"));
    let messages: Uint8Array[];
    try {
      messages = messagesOf(Buffer.concat(chunks), framing, limit);
    } catch (error) {
      if (error instanceof TooLarge) return refuse(tooLarge(method, limit, "decompresses to"));
      throw error;
    }
    const problem = messages
      .map((message) => messageProblem(schema, message, framing.format))
      .find((found) => found !== undefined);
    if (problem !== undefined) return refuse(refusal(problem.message, problem));
    return handler({ ...request, body: createAsyncIterable(chunks) });
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
 * `request` with an empty message in its framing, uncompressed, that decodes as anything; its own
 * body is left unread (Node discards it once the response is sent). A GET keeps its query.
 */
function emptied(
  request: UniversalServerRequest,
  framing: Framing | undefined,
): UniversalServerRequest {
  if (request.method === "GET" || framing === undefined) return request;
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
  return { ...request, header, body: createAsyncIterable([empty]) };
}

/**
 * A Connect GET request (methods without side effects) with its `message` query parameter
 * checked as `checkRequestBodies` checks a body: on a problem, the message becomes an empty one
 * and the problem goes in the context.
 */
function checkedGet(
  method: DescMethod,
  request: UniversalServerRequest,
  limit: number,
): UniversalServerRequest {
  const schema = method.input;
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
  let decoded: Uint8Array | undefined;
  try {
    decoded = decompressed(bytes, query.get("compression"), limit);
  } catch (error) {
    if (!(error instanceof TooLarge)) throw error;
    request.contextValues?.set(BODY_PROBLEM, tooLarge(method, limit, "decompresses to"));
    return request;
  }
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
