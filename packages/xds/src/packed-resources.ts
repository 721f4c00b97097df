import { create, toBinary, type UnknownField } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { ControlPlaneSchema } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import { ResourceSchema } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import type { XdsResource } from "@switchyard/snapshot";

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
export function packedAnyField(resource: XdsResource): UnknownField {
  return {
    no: 2,
    wireType: WireType.LengthDelimited,
    data: cached(anys, resource, () =>
      toBinary(AnySchema, create(AnySchema, { typeUrl: resource.typeUrl, value: resource.body })),
    ),
  };
}

/** DeltaDiscoveryResponse.resources (field 2): Resource {name, version, resource} without TTL. */
export function packedDeltaResourceField(resource: XdsResource): UnknownField {
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
export function packedStringField(no: number, value: string): UnknownField[] {
  if (value === "") return [];
  const data = cachedField(`s${value}`, () => new BinaryWriter().string(value).finish());
  return [{ no, wireType: WireType.LengthDelimited, data }];
}

/** A response's control_plane: the ControlPlane {identifier} of this replica. */
export function packedControlPlaneField(no: number, identifier: string): UnknownField {
  return {
    no,
    wireType: WireType.LengthDelimited,
    data: cachedField(`c${identifier}`, () =>
      lengthDelimited(toBinary(ControlPlaneSchema, create(ControlPlaneSchema, { identifier }))),
    ),
  };
}
