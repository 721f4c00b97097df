/**
 * ImportRequest.resource_type and document_types (also ApplyRequest's) as the import reads them
 * (ParseOptions.resourceType, documentTypes): the type of the resources a document gives without
 * "@type". A value the enum does not have (binary protobuf carries any number) is refused,
 * saying which field and which values there are.
 */
import { EnvoyResourceType } from "@switchyard/proto/switchyard/v1/config_pb";
import type { ResourceListType } from "@switchyard/snapshot";
import type { ImportTypes } from "../import/envoy-import-worker.js";
import { invalidArgument } from "./errors.js";

const LIST_TYPES: ReadonlyMap<EnvoyResourceType, ResourceListType> = new Map([
  [EnvoyResourceType.LISTENERS, "listeners"],
  [EnvoyResourceType.CLUSTERS, "clusters"],
  [EnvoyResourceType.ROUTES, "routes"],
  [EnvoyResourceType.ENDPOINTS, "endpoints"],
  [EnvoyResourceType.SECRETS, "secrets"],
]);

const VALUES = `ENVOY_RESOURCE_TYPE_UNSPECIFIED (0, every resource names its "@type"), ${[
  ...LIST_TYPES.keys(),
]
  .map((value) => `ENVOY_RESOURCE_TYPE_${EnvoyResourceType[value]} (${value})`)
  .join(", ")}`;

function listType(value: EnvoyResourceType, path: string, message: string) {
  if (value === EnvoyResourceType.UNSPECIFIED) return undefined;
  const type = LIST_TYPES.get(value);
  if (type !== undefined) return type;
  const reason = `${value} is not an EnvoyResourceType: use one of ${VALUES}`;
  throw invalidArgument(`${message}.${path} ${reason}`, [
    { severity: "error", code: "invalid-request", path: `${message}.${path}`, message: reason },
  ]);
}

/**
 * The types a request names, checked. `message` names the request in errors ("ImportRequest",
 * "ApplyRequest").
 */
export function importTypes(
  request: {
    readonly resourceType: EnvoyResourceType;
    readonly documentTypes: { readonly [position: number]: EnvoyResourceType };
  },
  message: string,
): ImportTypes {
  const resourceType = listType(request.resourceType, "resource_type", message);
  const documentTypes = Object.entries(request.documentTypes).flatMap(([position, value]) => {
    const type = listType(value, `document_types[${position}]`, message);
    return type === undefined ? [] : [[Number(position), type] as const];
  });
  return {
    ...(resourceType === undefined ? {} : { resourceType }),
    ...(documentTypes.length === 0 ? {} : { documentTypes }),
  };
}
