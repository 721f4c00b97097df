import { create, toBinary, type UnknownField } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { ResourceSchema } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import type { XdsResource } from "@switchyard/snapshot";

/**
 * Resources encoded once for every stream that sends them. A response's `resources` are written
 * as unknown fields of the response message (field number, wire type, bytes: protobuf-es writes
 * them as they are), so sending a snapshot to a thousand streams encodes each resource once
 * instead of a thousand times. The bytes are what encoding the Any (or Delta's Resource) would
 * give; a client cannot tell the difference (packed-resources.spec.ts). Resources are immutable
 * and shared by every stream of a snapshot, so their encodings are cached by identity.
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
