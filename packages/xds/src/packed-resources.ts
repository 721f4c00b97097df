import { create, toBinary, type UnknownField } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { ControlPlaneSchema } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import {
  DeltaDiscoveryResponseSchema,
  DiscoveryResponseSchema,
  ResourceSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import type { XdsResource } from "@switchyard/snapshot";
import { ENVELOPE_HEADER_BYTES } from "./grpc-streams.js";
import { isSharedList } from "./subscription.js";

/** The nonce's field number: the same in SotW and Delta responses (the spec frames both). */
const NONCE_FIELD = DiscoveryResponseSchema.field.nonce.number;
const REMOVED_FIELD = DeltaDiscoveryResponseSchema.field.removedResources.number;

/**
 * Resources encoded once for every stream that sends them. A response's `resources` are written
 * as unknown fields of the response message (field number, wire type, bytes: protobuf-es writes
 * them as they are), so sending a snapshot to a thousand streams encodes each resource once
 * instead of a thousand times. The bytes are what encoding the Any (or Delta's Resource) would
 * give; a client cannot tell the difference (packed-resources.spec.ts). Resources are immutable
 * and shared by every stream of a snapshot, so their encodings are cached by identity.
 *
 * The same goes for the strings every stream of a version sends alike (type URL, version, the
 * control plane): encoded once rather than per response (UTF-8 encoding each string allocated a
 * buffer per response). Only the nonce is a response's own.
 */

const anys = new WeakMap<XdsResource, Uint8Array>();
const deltaResources = new WeakMap<XdsResource, Uint8Array>();

/** `message` prefixed with its length: the bytes of a length-delimited field after its tag. */
function lengthDelimited(message: Uint8Array): Uint8Array {
  return new BinaryWriter().bytes(message).finish();
}

function cached(
  cache: WeakMap<XdsResource, Uint8Array>,
  resource: XdsResource,
  encode: () => Uint8Array,
): Uint8Array {
  let bytes = cache.get(resource);
  if (bytes === undefined) {
    bytes = lengthDelimited(encode());
    cache.set(resource, bytes);
  }
  return bytes;
}

/** DiscoveryResponse.resources (field 2): the resource as a bare Any of its body. */
function packedAnyField(resource: XdsResource): UnknownField {
  return {
    no: 2,
    wireType: WireType.LengthDelimited,
    data: cached(anys, resource, () =>
      toBinary(AnySchema, create(AnySchema, { typeUrl: resource.typeUrl, value: resource.body })),
    ),
  };
}

/** DeltaDiscoveryResponse.resources (field 2): Resource {name, version, resource} without TTL. */
function packedDeltaResourceField(resource: XdsResource): UnknownField {
  return {
    no: 2,
    wireType: WireType.LengthDelimited,
    data: cached(deltaResources, resource, () =>
      toBinary(
        ResourceSchema,
        create(ResourceSchema, {
          name: resource.name,
          version: resource.version,
          resource: { typeUrl: resource.typeUrl, value: resource.body },
        }),
      ),
    ),
  };
}

/** Encoded strings and control planes: few distinct values (types, versions held, one replica). */
const fields = new Map<string, Uint8Array>();
/** Past this many, the cache starts over (versions come and go; a stream reads few of them). */
const MAX_CACHED_FIELDS = 4096;

function cachedField(key: string, encode: () => Uint8Array): Uint8Array {
  let bytes = fields.get(key);
  if (bytes === undefined) {
    if (fields.size >= MAX_CACHED_FIELDS) fields.clear();
    bytes = encode();
    fields.set(key, bytes);
  }
  return bytes;
}

/**
 * A string field of a response, encoded once per value; none for the empty string (proto3 writes
 * no default value).
 */
function packedStringField(no: number, value: string): UnknownField[] {
  if (value === "") return [];
  const data = cachedField(`s${value}`, () => new BinaryWriter().string(value).finish());
  return [{ no, wireType: WireType.LengthDelimited, data }];
}

/** A response's control_plane: the ControlPlane {identifier} of this replica. */
function packedControlPlaneField(no: number, identifier: string): UnknownField {
  return {
    no,
    wireType: WireType.LengthDelimited,
    data: cachedField(`c${identifier}`, () =>
      lengthDelimited(toBinary(ControlPlaneSchema, create(ControlPlaneSchema, { identifier }))),
    ),
  };
}

/**
 * What a packed response carries besides its own fields: the pre-encoded fields (the message's
 * unknown fields, for a serializer) and, for a body shared by many streams, the same fields as one
 * buffer, which packedFrame sends as it is after the response's own fields.
 */
export interface PackedBody {
  readonly fields: readonly UnknownField[];
  readonly bytes?: Buffer;
}

/**
 * Shared bodies by the list of resources they carry (a fleet's streams are given one list when
 * they are sent the same resources, subscription.ts sharedList), then by the rest of the key
 * (type, version, control plane): built once per list and key.
 */
const bodies = new WeakMap<readonly XdsResource[], Map<string, Required<PackedBody>>>();
/** Past this many keys for one list, its bodies start over (a list is seldom sent otherwise). */
const MAX_BODIES_PER_LIST = 16;

/** The field numbers of a response's version, type URL and control plane, by variant. */
const RESPONSE_FIELDS = {
  sotw: {
    version: DiscoveryResponseSchema.field.versionInfo.number,
    typeUrl: DiscoveryResponseSchema.field.typeUrl.number,
    controlPlane: DiscoveryResponseSchema.field.controlPlane.number,
    resource: packedAnyField,
  },
  delta: {
    version: DeltaDiscoveryResponseSchema.field.systemVersionInfo.number,
    typeUrl: DeltaDiscoveryResponseSchema.field.typeUrl.number,
    controlPlane: DeltaDiscoveryResponseSchema.field.controlPlane.number,
    resource: packedDeltaResourceField,
  },
} as const;

/**
 * The body of a SotW or Delta response: its version (version_info, system_version_info), type
 * URL and control plane, then its resources. A list shared by many streams (subscription.ts
 * sharedList) gets one body, bytes and all, for every stream that sends it with the same version;
 * another list, fields of its own, framed with the response (a cache would cost more than it
 * saves for a list one stream sends).
 */
export function packedResponseBody(
  variant: keyof typeof RESPONSE_FIELDS,
  resources: readonly XdsResource[],
  version: string,
  typeUrl: string,
  controlPlaneId: string,
): PackedBody {
  const field = RESPONSE_FIELDS[variant];
  const fields = () => [
    ...packedStringField(field.version, version),
    ...packedStringField(field.typeUrl, typeUrl),
    packedControlPlaneField(field.controlPlane, controlPlaneId),
    ...resources.map(field.resource),
  ];
  if (!isSharedList(resources)) return { fields: fields() };
  let byKey = bodies.get(resources);
  if (byKey === undefined) {
    byKey = new Map();
    bodies.set(resources, byKey);
  }
  const key = `${variant}\u0000${version}\u0000${typeUrl}\u0000${controlPlaneId}`;
  let body = byKey.get(key);
  if (body === undefined) {
    const all = fields();
    const bytes = Buffer.allocUnsafe(fieldsLength(all));
    writeFields(bytes, 0, all);
    body = { fields: all, bytes };
    if (byKey.size >= MAX_BODIES_PER_LIST) byKey.clear();
    byKey.set(key, body);
  }
  return body;
}

function fieldsLength(fields: readonly UnknownField[]): number {
  let length = 0;
  for (const { no, wireType, data } of fields) {
    length += varintBytes((no << 3) | wireType) + data.byteLength;
  }
  return length;
}

function writeFields(buffer: Buffer, at: number, fields: readonly UnknownField[]): number {
  let offset = at;
  for (const { no, wireType, data } of fields) {
    offset = writeVarint(buffer, offset, (no << 3) | wireType);
    buffer.set(data, offset);
    offset += data.byteLength;
  }
  return offset;
}

/** The responses built packed (packed below), by the body each carries. */
const packedBodies = new WeakMap<object, PackedBody>();

/** A packed response's own fields: its nonce, and a Delta response's removed names. */
type OwnFields = { readonly nonce: string; readonly removedResources?: readonly string[] };

/**
 * `message`, whose only set fields are its nonce (and a Delta response's removed names), with
 * `body`'s fields as its pre-encoded fields, and known to packedFrame. The message is the wire
 * form of one response: not altered afterwards (its unknown fields are the body's, shared).
 */
export function packed<T extends OwnFields & { $unknown?: UnknownField[] | undefined }>(
  message: T,
  body: PackedBody,
): T {
  message.$unknown = body.fields as UnknownField[];
  packedBodies.set(message, body);
  return message;
}

/** The bytes of `value` as a protobuf varint (values below 2^32). */
function varintBytes(value: number): number {
  let bytes = 1;
  for (let v = value >>> 7; v > 0; v >>>= 7) bytes += 1;
  return bytes;
}

function writeVarint(buffer: Buffer, at: number, value: number): number {
  let offset = at;
  let v = value >>> 0;
  while (v > 0x7f) {
    buffer[offset++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buffer[offset++] = v;
  return offset;
}

/**
 * A packed response framed for gRPC: the same bytes as framing `toBinary` of it
 * (packed-resources.spec.ts). The envelope header and the response's own fields come first; a
 * shared body follows as its own buffer, the same for every stream that sends it (nothing of it
 * copied per stream); a body of the response's own is written into the same buffer, each
 * resource's bytes copied once. Undefined for any other message.
 */
export function packedFrame(message: unknown): readonly Uint8Array[] | undefined {
  const body = typeof message === "object" && message !== null && packedBodies.get(message);
  if (!body) return undefined;
  const own = message as OwnFields;
  // In field-number order, as toBinary writes known fields (before the unknown ones): proto3
  // writes no empty singular string, but a repeated field's empty element it does.
  const strings = [
    ...(own.nonce === "" ? [] : [{ no: NONCE_FIELD, value: own.nonce }]),
    ...(own.removedResources ?? []).map((value) => ({ no: REMOVED_FIELD, value })),
  ].map(({ no, value }) => ({
    tag: (no << 3) | WireType.LengthDelimited,
    value,
    bytes: Buffer.byteLength(value, "utf8"),
  }));
  let ownLength = 0;
  for (const { tag, bytes } of strings) ownLength += varintBytes(tag) + varintBytes(bytes) + bytes;
  const bodyLength = body.bytes?.byteLength ?? fieldsLength(body.fields);
  const head = Buffer.allocUnsafe(
    ENVELOPE_HEADER_BYTES + ownLength + (body.bytes === undefined ? bodyLength : 0),
  );
  head[0] = 0;
  head.writeUInt32BE(ownLength + bodyLength, 1);
  let offset = ENVELOPE_HEADER_BYTES;
  for (const { tag, value, bytes } of strings) {
    offset = writeVarint(head, offset, tag);
    offset = writeVarint(head, offset, bytes);
    offset += head.write(value, offset, "utf8");
  }
  if (body.bytes !== undefined) return [head, body.bytes];
  writeFields(head, offset, body.fields);
  return [head];
}
