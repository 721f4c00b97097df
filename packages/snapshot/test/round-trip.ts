/**
 * The round-trip check the import tests share: what Switchyard exports for an imported spec
 * equals the imported resources after the documented normalizations, field for field and as
 * decoded messages (typed configs unpacked).
 */
import { equals } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { expect } from "vitest";
import { exportEnvoyResources } from "../src/envoy/envoy-export.js";
import {
  type DecodedResource,
  type EnvoyResource,
  normalizeEnvoyResources,
  resourceJson,
  resourceName,
  resourceSchema,
} from "../src/import/envoy-import.js";
import type { ConfigSpec, JsonObject } from "../src/model.js";
import { TypeUrl } from "../src/serving/resource-snapshot.js";

const key = (r: EnvoyResource) =>
  `${r.typeUrl.slice(r.typeUrl.lastIndexOf(".") + 1)} ${resourceName(r)}`;

const isEmptyAssignment = (json: JsonObject) =>
  Object.keys(json).every((field) => field === "clusterName");

/** `spec` (imported from `input`) exports back as `input` normalized. */
export function expectExportsAsNormalized(
  input: readonly DecodedResource[],
  spec: ConfigSpec,
): void {
  // On export, an EDS cluster's assignment with no endpoints and no settings is left out
  // (envoy-export.ts): it says nothing.
  const normalized = normalizeEnvoyResources(input).resources.filter(
    (r) => !(r.typeUrl === TypeUrl.ClusterLoadAssignment && isEmptyAssignment(resourceJson(r))),
  );
  const exported = exportEnvoyResources(spec);
  const byKey = (resources: readonly EnvoyResource[]) =>
    Object.fromEntries(resources.map((r) => [key(r), resourceJson(r)]));
  expect(byKey(exported)).toEqual(byKey(normalized));
  const given = new Map(normalized.map((r) => [key(r), r]));
  for (const resource of exported) {
    const original = given.get(key(resource));
    expect(
      original &&
        equals(resourceSchema(resource.typeUrl), resource.message, original.message, {
          registry,
          unpackAny: true,
        }),
      key(resource),
    ).toBe(true);
  }
}
