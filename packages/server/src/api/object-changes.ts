import { create } from "@bufbuild/protobuf";
import {
  ChangeType,
  type ObjectChange,
  ObjectChangeSchema,
  ResourceKind,
} from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type ConfigSpec,
  envoyForm,
  type SourceChange,
  type SourceKind,
} from "@switchyard/snapshot";
import { stringify } from "yaml";

export const resourceKindOf: Record<SourceKind, ResourceKind> = {
  cluster: ResourceKind.CLUSTER,
  listener: ResourceKind.LISTENER,
  routeConfiguration: ResourceKind.ROUTE_CONFIGURATION,
  nodeGroup: ResourceKind.NODE_GROUP,
};

const changeTypeOf = {
  added: ChangeType.ADDED,
  modified: ChangeType.MODIFIED,
  removed: ChangeType.REMOVED,
} as const;

/** The Envoy-native YAML of one object in `spec` (empty when absent), for side-by-side review. */
function yamlOf(spec: ConfigSpec | undefined, kind: SourceKind, name: string): string {
  const forms = spec ? envoyForm(spec, kind, name) : undefined;
  if (!forms) return "";
  return forms.map((form) => stringify(form, { lineWidth: 0 })).join("---\n");
}

/** Changes with both sides rendered; `before`/`after` are the specs the change goes between. */
export function objectChanges(
  changes: readonly SourceChange[],
  before: ConfigSpec | undefined,
  after: ConfigSpec | undefined,
): ObjectChange[] {
  return changes.map((change) =>
    create(ObjectChangeSchema, {
      kind: resourceKindOf[change.kind],
      name: change.name,
      change: changeTypeOf[change.change],
      before: change.change === "added" ? "" : yamlOf(before, change.kind, change.name),
      after: change.change === "removed" ? "" : yamlOf(after, change.kind, change.name),
    }),
  );
}
