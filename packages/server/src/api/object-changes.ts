import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  type ChangeBodies,
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
  runtimeLayer: ResourceKind.RUNTIME_LAYER,
  secret: ResourceKind.SECRET,
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

/**
 * The changes a request's ChangeBodies asks for (`only` those objects, or all) and whether their
 * YAML is wanted. Refuses a malformed `only` entry, naming it.
 */
export function selectChanges(
  changes: readonly SourceChange[],
  bodies: ChangeBodies | undefined,
): { readonly changes: readonly SourceChange[]; readonly withBodies: boolean } {
  const only = bodies?.only ?? [];
  only.forEach((ref, i) => {
    if (ref.kind === ResourceKind.UNSPECIFIED || ref.name === "")
      throw new ConnectError(
        `bodies.only[${i}]: both kind and name are required`,
        Code.InvalidArgument,
      );
  });
  const wanted = new Set(only.map((ref) => `${ref.kind}/${ref.name}`));
  return {
    changes:
      wanted.size === 0
        ? changes
        : changes.filter((c) => wanted.has(`${resourceKindOf[c.kind]}/${c.name}`)),
    withBodies: bodies?.omit !== true,
  };
}

/**
 * Changes with both sides rendered; `before`/`after` are the specs the change goes between.
 * Without specs (`undefined` sides for names only), before and after stay empty.
 */
export function objectChanges(
  changes: readonly SourceChange[],
  sides:
    | { readonly before: ConfigSpec | undefined; readonly after: ConfigSpec | undefined }
    | undefined,
): ObjectChange[] {
  return changes.map((change) =>
    create(ObjectChangeSchema, {
      kind: resourceKindOf[change.kind],
      name: change.name,
      change: changeTypeOf[change.change],
      before:
        sides === undefined || change.change === "added"
          ? ""
          : yamlOf(sides.before, change.kind, change.name),
      after:
        sides === undefined || change.change === "removed"
          ? ""
          : yamlOf(sides.after, change.kind, change.name),
    }),
  );
}
