import { create } from "@bufbuild/protobuf";
import { type Any, AnySchema, durationFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { Node } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import {
  type Resource,
  ResourceSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import {
  type HeldBack,
  isXdstp,
  type ResourceSnapshot,
  TypeUrl,
  type XdsResource,
} from "@switchyard/snapshot";
import type { XdsCallbacks, XdsVariant } from "./callbacks.js";
import {
  type AccessEntry,
  type AuthRefusalReason,
  type ClientAccess,
  identityLabel,
} from "./client-auth.js";
import { boundedNode } from "./client-bounds.js";
import { kAuthentication, kRemoteAddress } from "./context-keys.js";
import type { DeltaVerdict } from "./delta-subscription.js";
import { EventQueue } from "./event-queue.js";
import { nodeIdentity } from "./node-identity.js";
import type { ConfigWatcher, SnapshotWatch } from "./snapshot-cache.js";
import type { RequestVerdict } from "./sotw-subscription.js";
import type { Heartbeat, ResourceTtl, SessionOptions, TtlOptions } from "./subscription-ttl.js";
import { xdstpRequestProblem } from "./xdstp-naming.js";

/**
 * The one stream loop both protocol variants (SotW, Delta; ADS or per-type) run: requests,
 * snapshot changes and heartbeat ticks as one ordered event sequence fed to the variant's pure
 * session, whose responses are written out in order. What differs between variants is a
 * `StreamProtocol`: how a request is applied and how a response looks on the wire.
 *
 * Long because everything both variants share is here with the loop (request checks, name
 * refusals, resource wrapping, heartbeats): the two transports import it, not a copy each.
 */

export interface StreamOptions {
  readonly watcher: ConfigWatcher;
  readonly callbacks: XdsCallbacks;
  /** The only type URL a per-type service accepts; undefined for ADS. */
  readonly onlyTypeUrl?: string;
  readonly variant: XdsVariant;
  readonly controlPlaneId: string;
  /** Resource TTLs and heartbeats for clients that support them; none when absent. */
  readonly ttl?: TtlOptions | undefined;
  /** The xdstp:// authorities served (xdstp-naming.ts); none when absent. */
  readonly authorities?: readonly string[] | undefined;
  /** The server's response limit (SessionOptions.maxResponseBytes); 4 MiB when absent. */
  readonly maxResponseBytes?: number | undefined;
  /**
   * Node-group entitlement and revocation for authenticated streams (client-auth.ts); absent,
   * every node is served its group.
   */
  readonly access?: ClientAccess | undefined;
  /** Serve secrets to clients that did not authenticate (XdsServerOptions.anonymousSecrets). */
  readonly anonymousSecrets?: boolean | undefined;
  /**
   * Aborted when the server drains (SIGTERM): the stream then ends with UNAVAILABLE, the status
   * on which xDS clients reconnect at once, to another replica behind the load balancer.
   */
  readonly closing?: AbortSignal | undefined;
}

/** What a stream's pure session is configured with. */
export function sessionOptions(options: StreamOptions): SessionOptions {
  return {
    ...(options.ttl ? { ttl: options.ttl } : {}),
    ...(options.authorities ? { authorities: options.authorities } : {}),
    ...(options.maxResponseBytes === undefined
      ? {}
      : { maxResponseBytes: options.maxResponseBytes }),
  };
}

/**
 * The xdstp:// names of a request the session could not resolve, with why (another authority,
 * context parameters for another node, a type not served so): reported to callbacks, so the
 * server can say why a client waits for a resource that will not come.
 */
export function unresolvedNames(
  names: readonly string[],
  whyUnresolved: (name: string) => string | undefined,
): { name: string; reason: string }[] {
  return names.flatMap((name) => {
    const reason = isXdstp(name) ? whyUnresolved(name) : undefined;
    return reason === undefined ? [] : [{ name, reason }];
  });
}

/**
 * Ends the stream with INVALID_ARGUMENT when a request names a malformed xdstp:// resource, or
 * one of another type than the request's (xdstp-naming.ts): `fields` are the request's name
 * lists, each with the field it came from, for the message.
 */
export function refuseBadNames(
  typeUrl: string,
  fields: readonly (readonly [string, readonly string[]])[],
): void {
  for (const [field, names] of fields) {
    const problem = xdstpRequestProblem(field, names, typeUrl);
    if (problem) throw new ConnectError(problem, Code.InvalidArgument);
  }
}

/** How a drained stream ends (see StreamOptions.closing). */
export function drainingError(): ConnectError {
  return new ConnectError(
    "the control plane is shutting down: reconnect (a load balancer sends you to another replica)",
    Code.Unavailable,
  );
}

/** A request as the loop needs it: its type and, on the first request, the node. */
interface AnyRequest {
  readonly typeUrl: string;
  readonly node?: Node | undefined;
  readonly responseNonce: string;
}

/** A response as the loop reports it to callbacks. */
interface AnyResponse {
  readonly typeUrl: string;
  readonly nonce: string;
  readonly resources: readonly XdsResource[];
  readonly heartbeats?: readonly Heartbeat[] | undefined;
  readonly removed?: readonly string[];
}

export interface StreamProtocol<Req extends AnyRequest, Res extends AnyResponse, Wire> {
  /** "DiscoveryRequest" or "DeltaDiscoveryRequest", for messages. */
  readonly requestName: string;
  /** Where a type refused by a per-type service can be requested instead. */
  readonly adsName: string;
  onNode(node: Node): void;
  onSnapshot(snapshot: ResourceSnapshot): Res[];
  onHeartbeat(now: number): Res[];
  /** Applies a checked request; throws a ConnectError for a malformed one. */
  onRequest(request: Req): {
    verdict: RequestVerdict | DeltaVerdict;
    responses: Res[];
    resourceNames: readonly string[];
    /** Delta: the names the request unsubscribes from. */
    unsubscribed?: readonly string[];
    /** Delta, on a stream's first request: what the client says it holds already. */
    initialResourceVersions?: Readonly<Record<string, string>>;
    unresolved?: readonly { readonly name: string; readonly reason: string }[];
  };
  /** What of its snapshot the node is not sent because of its NACKs (PlanCursor.heldBack). */
  heldBack(): readonly HeldBack[];
  /** The version a response reports (version_info, or Delta's system_version_info). */
  versionOf(response: Res): string;
  toWire(response: Res): Wire;
}

/** Whether two held-back lists say the same (they are short: a few rejected resources). */
function sameHeldBack(a: readonly HeldBack[], b: readonly HeldBack[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i];
    return (
      y !== undefined &&
      x.typeUrl === y.typeUrl &&
      x.name === y.name &&
      x.version === y.version &&
      JSON.stringify(x.reason) === JSON.stringify(y.reason)
    );
  });
}

/** A resource as a bare Any: its shared, already encoded body, never re-encoded. */
export function bodyAny(resource: XdsResource): Any {
  return create(AnySchema, { typeUrl: resource.typeUrl, value: resource.body });
}

/**
 * The envoy.service.discovery.v3.Resource of `resource` (Delta's form, and SotW's with a TTL):
 * name, version, the body as an Any, and the TTL when there is one.
 */
export function wrappedResource(resource: XdsResource, ttl: ResourceTtl | undefined): Resource {
  return create(ResourceSchema, {
    name: resource.name,
    version: resource.version,
    resource: bodyAny(resource),
    ...(ttl ? { ttl: durationFromMs(ttl.ttlMs) } : {}),
  });
}

/** A TTL heartbeat: a Resource with name, version and TTL, and no body. */
export function heartbeatResource(heartbeat: Heartbeat, ttl: ResourceTtl | undefined): Resource {
  return create(ResourceSchema, {
    name: heartbeat.name,
    version: heartbeat.version,
    ...(ttl ? { ttl: durationFromMs(ttl.ttlMs) } : {}),
  });
}

/** The text of a NACK's `error_detail`, cut to size (client-bounds.ts). */
export { errorDetailText } from "./client-bounds.js";

/**
 * Runs `tick` on a timer while a stream is open, when TTLs are configured (the session decides
 * which types are due; a tick is cheap). It ticks at a quarter of the heartbeat interval, so a
 * late timer delays a heartbeat by a fraction of the interval, not a whole one. Returns the stop.
 */
export function startHeartbeatTimer(ttl: TtlOptions | undefined, tick: () => void): () => void {
  if (!ttl) return () => undefined;
  const heartbeatMs = ttl.heartbeatMs ?? ttl.ttlMs / 2;
  const timer = setInterval(tick, Math.max(5, Math.floor(heartbeatMs / 4)));
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The status a stream ends with when reading its `index`th request (from 1) fails: what was
 * wrong, and with which request. Connect reports some client faults as Internal: a message that
 * does not decode ("parse binary"), and a frame flagged compressed on a call that declared no
 * compression. Both are the client's, so they become InvalidArgument; other refusals (a frame cut
 * short by the end of the stream, one larger than MAX_REQUEST_BYTES in xds-server.ts, JSON that
 * does not decode) keep their code and say which request it was.
 * Pinned by xds-malformed.e2e.spec.ts and xds-fuzz.e2e.spec.ts.
 */
export function readError(error: unknown, messageName: string, index: number): unknown {
  if (!(error instanceof ConnectError)) return error;
  const request = `request ${index} of this stream`;
  // Decoding errors may quote the offending value: keep the status message a readable size.
  const raw = clip(error.rawMessage, 300);
  const become = (message: string, code: Code) =>
    new ConnectError(message, code, undefined, undefined, error);
  if (error.code === Code.Internal && raw.startsWith("parse binary")) {
    return become(`${request} is not a valid ${messageName} (${raw})`, Code.InvalidArgument);
  }
  if (error.code === Code.Internal && raw.startsWith("received compressed envelope")) {
    return become(
      `${request} is flagged compressed (gRPC Compressed-Flag 1), but the call declared no grpc-encoding: send the ${messageName} uncompressed, or name its compression in grpc-encoding`,
      Code.InvalidArgument,
    );
  }
  if (error.code === Code.InvalidArgument && raw.includes("incomplete envelope")) {
    return become(
      `the stream ended in the middle of ${request}: the gRPC frame of that ${messageName} is shorter than its header says (${raw})`,
      Code.InvalidArgument,
    );
  }
  if (error.code === Code.ResourceExhausted && raw.includes("readMaxBytes")) {
    return become(`${request} is too large for a ${messageName} (${raw})`, Code.ResourceExhausted);
  }
  if (error.code === Code.InvalidArgument) {
    // Connect's JSON decoding errors (application/grpc+json) name the message and the field.
    return become(`${request}: ${raw}`, Code.InvalidArgument);
  }
  return error;
}

function clip(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** A response's resources as onResponse reports them, per list of resources (plans are shared). */
const reportedLists = new WeakMap<
  readonly XdsResource[],
  {
    readonly resourceNames: readonly string[];
    readonly resources: readonly { readonly name: string; readonly version: string }[];
  }
>();

/**
 * The names and versions onResponse reports of a response: one pair of lists for every stream
 * that sends the same list of resources (a fleet's push sends thousands the same), not two new
 * lists per stream; with heartbeats, lists of its own.
 */
function reported(
  resources: readonly XdsResource[],
  heartbeats: readonly { readonly name: string }[] | undefined,
) {
  const named = () => ({
    resourceNames: resources.map((r) => r.name),
    resources: resources.map((r) => ({ name: r.name, version: r.version })),
  });
  if (heartbeats !== undefined && heartbeats.length > 0) {
    const lists = named();
    return {
      resourceNames: [...lists.resourceNames, ...heartbeats.map((h) => h.name)],
      resources: lists.resources,
    };
  }
  let lists = reportedLists.get(resources);
  if (lists === undefined) {
    lists = named();
    reportedLists.set(resources, lists);
  }
  return lists;
}

/**
 * The longest `type_url` and `node.id` a stream accepts, in UTF-8 bytes: far longer than any real
 * one, and short enough for what keeps node status to index them (a Postgres btree key holds at
 * most ~2.7 kB; the server package stores node status keyed by node id and type URL).
 */
export const MAX_TYPE_URL_BYTES = 1024;
export const MAX_NODE_ID_BYTES = 1024;

/**
 * Rejects a request whose type the stream cannot serve. Like every malformed request, it ends its
 * own stream with InvalidArgument and a message saying what to fix, and nothing else: the server
 * goes on serving every other stream (xds-malformed.e2e.spec.ts).
 */
function checkTypeUrl(
  request: AnyRequest,
  onlyTypeUrl: string | undefined,
  requestName: string,
  adsName: string,
): void {
  if (request.typeUrl === "") {
    throw new ConnectError(
      `${requestName}.type_url is empty: every request must name its resource type (for example "${onlyTypeUrl ?? TypeUrl.Cluster}")`,
      Code.InvalidArgument,
    );
  }
  const bytes = Buffer.byteLength(request.typeUrl);
  if (bytes > MAX_TYPE_URL_BYTES) {
    throw new ConnectError(
      `${requestName}.type_url is ${bytes} bytes long, more than the ${MAX_TYPE_URL_BYTES} accepted: no resource type has such a name`,
      Code.InvalidArgument,
    );
  }
  if (onlyTypeUrl !== undefined && request.typeUrl !== onlyTypeUrl) {
    throw new ConnectError(
      `${requestName}.type_url "${request.typeUrl}" is not served by this service, which serves only "${onlyTypeUrl}": request it on its own service or on ${adsName}`,
      Code.InvalidArgument,
    );
  }
}

/**
 * The node of a stream's first request, which must carry one, with what status keeps of it cut to
 * size (client-bounds.ts).
 */
function firstNode(request: AnyRequest, requestName: string): Node {
  if (!request.node) {
    throw new ConnectError(
      `the first ${requestName} of a stream must carry a node (${requestName}.node with at least an id): it selects the configuration the stream is served`,
      Code.InvalidArgument,
    );
  }
  const bytes = Buffer.byteLength(request.node.id);
  if (bytes > MAX_NODE_ID_BYTES) {
    throw new ConnectError(
      `${requestName}.node.id is ${bytes} bytes long, more than the ${MAX_NODE_ID_BYTES} accepted: a node id names one proxy in status and logs, keep it short`,
      Code.InvalidArgument,
    );
  }
  return boundedNode(request.node);
}

let streamCounter = 0;

type StreamEvent<Req> =
  | { readonly t: "request"; readonly request: Req }
  | { readonly t: "snapshot"; readonly snapshot: ResourceSnapshot; readonly group: string }
  | { readonly t: "tick" };

/**
 * Only the latest snapshot and one timer tick matter to a session: a newer one supersedes one
 * still queued. While the loop is blocked writing a response (the transport awaits HTTP/2 flow
 * control, so a client that stops reading blocks it), a stream so holds one pending snapshot
 * however many versions are published, and once it can write again serves the latest, not each
 * one in turn (stream-loop.spec.ts; with a real server, faults-load.e2e.spec.ts in
 * packages/server).
 */
const isSnapshot = (event: StreamEvent<unknown>) => event.t === "snapshot";
const isTick = (event: StreamEvent<unknown>) => event.t === "tick";
const isRequest = (event: StreamEvent<unknown>) => event.t === "request";

/**
 * Requests read ahead of the loop, at most. A client sends a few per response it reads (an ACK,
 * a subscription change); one that keeps writing while it does not read is held by flow control
 * (stream-loop.spec.ts).
 */
const MAX_QUEUED_REQUESTS = 64;

/** Why a client that did not authenticate gets no secrets. */
export const SECRETS_NEED_AUTHENTICATION =
  "secrets (SDS) are served only to clients that authenticate: this xDS port authenticates none " +
  "(--xds-auth none), so private keys are withheld; run the server with --xds-auth token or mtls " +
  "and give this proxy its credential";

/** Serves one stream of either variant (see the top of this file). */
export async function* serveStream<Req extends AnyRequest, Res extends AnyResponse, Wire>(
  requests: AsyncIterable<Req>,
  context: HandlerContext,
  options: StreamOptions,
  protocol: StreamProtocol<Req, Res, Wire>,
): AsyncGenerator<Wire> {
  const remoteAddress = context.values.get(kRemoteAddress);
  const authentication = context.values.get(kAuthentication);
  /** Reports a refusal to the callbacks and gives the error that ends the stream. */
  const refuse = (
    error: ConnectError,
    reason: AuthRefusalReason,
    nodeId?: string,
  ): ConnectError => {
    options.callbacks.onAuthRefused?.({
      code: error.code === Code.PermissionDenied ? "permission_denied" : "unauthenticated",
      reason,
      message: error.rawMessage,
      remoteAddress,
      transport: "grpc",
      ...(nodeId === undefined ? {} : { nodeId, identity: identityLabel(identity) }),
    });
    return error;
  };
  if (authentication.t === "refused") {
    throw refuse(
      new ConnectError(authentication.message, Code.Unauthenticated),
      authentication.reason,
    );
  }
  const { identity } = authentication;
  // Private keys go only to clients that proved who they are: an anonymous stream is served its
  // snapshot without secrets, and told so (below).
  const withholdSecrets = identity.t === "anonymous" && options.anonymousSecrets !== true;
  const served = (snapshot: ResourceSnapshot) =>
    withholdSecrets ? snapshot.withoutSecrets() : snapshot;
  let secretsWithheldReported = false;
  streamCounter += 1;
  const streamId = streamCounter;
  const events = new EventQueue<StreamEvent<Req>>();
  let node: Node | undefined;
  let opened = false;
  /** The held-back list last reported (onHeldBack): reported again only when it changes. */
  let reportedHeldBack: readonly HeldBack[] = [];
  let watch: SnapshotWatch | undefined;
  let access: AccessEntry | undefined;
  let stopHeartbeats: () => void = () => undefined;
  /** Ends the stream when the node's group is one its credential does not cover. */
  const serveGroup = (nodeId: string, group: string) => {
    const denied = access?.serve(group);
    if (denied) throw refuse(denied, "node_group", nodeId);
  };

  const drain = () => events.fail(drainingError());
  if (options.closing?.aborted) drain();
  options.closing?.addEventListener("abort", drain, { once: true });

  // Requests are read concurrently with snapshot changes. The reader is never awaited: when the
  // stream fails (say, on a malformed request) the client may keep its side open, and the error
  // must reach it now; the reader ends when the transport finishes the call. It stops reading while
  // MAX_QUEUED_REQUESTS wait (the loop is blocked writing to a client that does not read): HTTP/2
  // flow control then holds the client's further requests, not this process.
  void (async () => {
    let received = 0;
    try {
      for await (const request of requests) {
        received += 1;
        events.push({ t: "request", request });
        await events.room(MAX_QUEUED_REQUESTS, isRequest);
      }
      events.close();
    } catch (error) {
      events.fail(readError(error, protocol.requestName, received + 1));
    }
  })();

  try {
    for await (const event of events) {
      let responses: Res[];
      if (event.t === "snapshot") {
        if (node) serveGroup(node.id, event.group);
        responses = protocol.onSnapshot(served(event.snapshot));
      } else if (event.t === "tick") {
        responses = protocol.onHeartbeat(Date.now());
      } else {
        const { request } = event;
        checkTypeUrl(request, options.onlyTypeUrl, protocol.requestName, protocol.adsName);
        if (withholdSecrets && request.typeUrl === TypeUrl.Secret && options.onlyTypeUrl) {
          throw refuse(
            new ConnectError(SECRETS_NEED_AUTHENTICATION, Code.Unauthenticated),
            "secrets_need_authentication",
          );
        }
        if (!node) {
          // The node is only guaranteed on the first request of a stream (xDS protocol, "Basic
          // Protocol Overview"): it is read once and kept; later requests may omit it.
          node = firstNode(request, protocol.requestName);
          const nodeId = node.id;
          // A credential revoked, or narrowed, while the stream is open ends it (client-auth.ts).
          access = options.access?.enter(identity, nodeId, (error, reason) =>
            events.fail(refuse(error, reason, nodeId)),
          );
          watch = options.watcher.watch(nodeIdentity(node), (snapshot, group) =>
            events.pushLatest({ t: "snapshot", snapshot, group }, isSnapshot),
          );
          if (watch.group !== undefined) serveGroup(nodeId, watch.group);
          protocol.onNode(node);
          opened = true;
          options.callbacks.onStreamOpen?.({
            streamId,
            node,
            variant: options.variant,
            remoteAddress,
            identity: identityLabel(identity),
          });
          if (watch.current) protocol.onSnapshot(served(watch.current));
          stopHeartbeats = startHeartbeatTimer(options.ttl, () =>
            events.pushLatest({ t: "tick" }, isTick),
          );
        }
        const result = protocol.onRequest(request);
        if (withholdSecrets && request.typeUrl === TypeUrl.Secret && !secretsWithheldReported) {
          secretsWithheldReported = true;
          options.callbacks.onSecretsWithheld?.({
            streamId,
            nodeId: node.id,
            resourceNames: result.resourceNames,
          });
        }
        options.callbacks.onRequest?.({
          streamId,
          typeUrl: request.typeUrl,
          verdict: result.verdict,
          resourceNames: result.resourceNames,
          responseNonce: request.responseNonce,
          ...(result.unresolved?.length ? { unresolved: result.unresolved } : {}),
          ...(result.unsubscribed?.length ? { unsubscribed: result.unsubscribed } : {}),
          ...(result.initialResourceVersions &&
          Object.keys(result.initialResourceVersions).length > 0
            ? { initialResourceVersions: result.initialResourceVersions }
            : {}),
        });
        responses = result.responses;
      }
      const heldBack = protocol.heldBack();
      if (!sameHeldBack(heldBack, reportedHeldBack)) {
        options.callbacks.onHeldBack?.({ streamId, heldBack });
        reportedHeldBack = heldBack;
      }
      for (const response of responses) {
        options.callbacks.onResponse?.({
          streamId,
          typeUrl: response.typeUrl,
          versionInfo: protocol.versionOf(response),
          nonce: response.nonce,
          ...reported(response.resources, response.heartbeats),
          ...(response.removed ? { removed: response.removed } : {}),
        });
        yield protocol.toWire(response);
      }
    }
  } finally {
    options.closing?.removeEventListener("abort", drain);
    stopHeartbeats();
    watch?.cancel();
    access?.release();
    events.close();
    if (opened) options.callbacks.onStreamClosed?.({ streamId });
  }
}
