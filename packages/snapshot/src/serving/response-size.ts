/**
 * How large an xDS response is, and the limit it must stay under.
 *
 * A gRPC client refuses a message larger than its max receive message size (4 MiB by default in
 * every gRPC implementation, and in Envoy's gRPC clients), failing the whole stream. The server
 * therefore keeps each response under a limit: the server's (`switchyard serve
 * --xds-max-response-bytes`, default 4 MiB), or a node group's own when its clients accept more
 * (NodeGroupSpec.maxResponseBytes). What does not fit is split into several responses where the
 * protocol allows it (the xDS server does that), and refused at publish where it does not
 * (validate-response-size.ts).
 *
 * Sizes here are of the protobuf encoding, computed from the lengths of a resource's parts
 * without encoding anything: a resource's share of a response is exact for a bare Any (SotW) and
 * for a Delta Resource, and an upper bound when a TTL is added. Computed once per resource and
 * cached by identity (resources are immutable and shared by every stream).
 */
import type { XdsResource } from "./resource-snapshot.js";

/** gRPC's default max receive message size: what a client accepts unless configured otherwise. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** The smallest limit a server may be configured with: a response's own fields must fit. */
export const MIN_MAX_RESPONSE_BYTES = 16 * 1024;
/** The largest: a gRPC message length is a 32-bit signed integer in every implementation. */
export const MAX_MAX_RESPONSE_BYTES = 2_147_483_647;

/**
 * How many bytes of a response of `limit` bytes are kept for what is not a resource (version,
 * type URL, nonce, control plane): 64 KiB at 4 MiB and above, a sixteenth of smaller limits.
 * Far more than those fields take; a response's resources stay under `limit` minus this.
 */
export function responseHeadroom(limit: number): number {
  return Math.min(64 * 1024, Math.floor(limit / 16));
}

/** The bytes of its resources (and removed names) a response of `limit` bytes may carry. */
export function responseBudget(limit: number): number {
  return limit - responseHeadroom(limit);
}

/**
 * The form a resource takes in a response: a bare Any (SotW), or a Resource {name, version,
 * resource} (Delta; SotW with TTLs), with room for a TTL when `ttl`.
 */
export type ResourceForm = "any" | "resource";

function varintBytes(value: number): number {
  let bytes = 1;
  for (let v = Math.floor(value / 128); v > 0; v = Math.floor(v / 128)) bytes += 1;
  return bytes;
}

/** A length-delimited field of `length` bytes, with a one-byte tag (field numbers below 16). */
function delimited(length: number): number {
  return 1 + varintBytes(length) + length;
}

/** google.protobuf.Duration with seconds and nanos, as a field: at most 1 + 1 + 11 + 6 bytes. */
const TTL_FIELD_BYTES = 20;

const anySizes = new WeakMap<XdsResource, number>();
const resourceSizes = new WeakMap<XdsResource, number>();

/**
 * The bytes `resource` adds to a response (its field in `resources`, tag and length included).
 * "resource" counts a TTL in, so that one bound serves with and without.
 */
export function resourceBytes(resource: XdsResource, form: ResourceForm): number {
  const cache = form === "any" ? anySizes : resourceSizes;
  let size = cache.get(resource);
  if (size === undefined) {
    const any = delimited(Buffer.byteLength(resource.typeUrl)) + delimited(resource.body.length);
    size =
      form === "any"
        ? delimited(any)
        : delimited(
            delimited(Buffer.byteLength(resource.name)) +
              delimited(Buffer.byteLength(resource.version)) +
              delimited(any) +
              TTL_FIELD_BYTES,
          );
    cache.set(resource, size);
  }
  return size;
}

/** The bytes a Delta response's `removed_resources` entry for `name` adds. */
export function removedNameBytes(name: string): number {
  return delimited(Buffer.byteLength(name));
}

const totals = {
  any: new WeakMap<ReadonlyMap<string, XdsResource>, number>(),
  resource: new WeakMap<ReadonlyMap<string, XdsResource>, number>(),
};

/**
 * The bytes of every resource of `resources` (a snapshot's map of a type, a plan step's), in
 * `form`: what a response carrying all of them would take. Once per map: maps are immutable and
 * shared, so a fleet's streams read one sum. No response from the map is larger.
 */
export function totalBytes(
  resources: ReadonlyMap<string, XdsResource>,
  form: ResourceForm,
): number {
  const cache = totals[form];
  let total = cache.get(resources);
  if (total === undefined) {
    total = 0;
    for (const resource of resources.values()) total += resourceBytes(resource, form);
    cache.set(resources, total);
  }
  return total;
}

let processLimit = DEFAULT_MAX_RESPONSE_BYTES;

/**
 * Sets the server's response limit (`--xds-max-response-bytes`, read in the server's env.ts and
 * set once at startup): what validation judges node groups without a limit of their own by.
 */
export function setMaxResponseBytes(limit: number): void {
  if (!Number.isInteger(limit) || limit < MIN_MAX_RESPONSE_BYTES || limit > MAX_MAX_RESPONSE_BYTES)
    throw new RangeError(
      `a response size limit is a whole number of bytes from ${MIN_MAX_RESPONSE_BYTES} to ${MAX_MAX_RESPONSE_BYTES}, not ${limit}`,
    );
  processLimit = limit;
}

/** The server's response limit (setMaxResponseBytes; 4 MiB unless set). */
export function maxResponseBytes(): number {
  return processLimit;
}
