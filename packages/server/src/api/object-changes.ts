import { setImmediate as yieldToEventLoop } from "node:timers/promises";
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
  SPEC_FIELD,
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

const kindOfResource: Record<ResourceKind, SourceKind | undefined> = {
  [ResourceKind.UNSPECIFIED]: undefined,
  [ResourceKind.CLUSTER]: "cluster",
  [ResourceKind.LISTENER]: "listener",
  [ResourceKind.ROUTE_CONFIGURATION]: "routeConfiguration",
  [ResourceKind.NODE_GROUP]: "nodeGroup",
  [ResourceKind.RUNTIME_LAYER]: "runtimeLayer",
  [ResourceKind.SECRET]: "secret",
};

/** The stored kind of an API kind; InvalidArgument when it is unspecified. */
export function sourceKindOf(kind: ResourceKind): SourceKind {
  const sourceKind = kindOfResource[kind];
  if (!sourceKind)
    throw new ConnectError(
      "kind is required (cluster, listener, route configuration, node group, runtime layer or secret)",
      Code.InvalidArgument,
    );
  return sourceKind;
}

const changeTypeOf = {
  added: ChangeType.ADDED,
  modified: ChangeType.MODIFIED,
  removed: ChangeType.REMOVED,
} as const;

/**
 * The YAML of objects already rendered, by object. An object unchanged between the draft and the
 * versions keeps its instance (the store shares them), so a publish's "before" side is the
 * previous publish's "after", rendered once. Rendering a route configuration of 100 routes takes
 * 15–30 ms, and a publish's answer waits for it. Not for listeners: a listener's Envoy form embeds
 * the route configurations it names, which may change without it.
 */
const renderedYaml = new WeakMap<object, string>();

/** The Envoy-native YAML of one object in `spec` (empty when absent), for side-by-side review. */
export function yamlOf(spec: ConfigSpec | undefined, kind: SourceKind, name: string): string {
  if (spec === undefined) return "";
  const object =
    kind === "listener"
      ? undefined
      : (spec[SPEC_FIELD[kind]] as readonly { readonly name: string }[]).find(
          (o) => o.name === name,
        );
  const known = object && renderedYaml.get(object);
  if (known !== undefined) return known;
  const forms = envoyForm(spec, kind, name);
  if (!forms) return "";
  const yaml = forms.map((form) => stringify(form, { lineWidth: 0 })).join("---\n");
  if (object) renderedYaml.set(object, yaml);
  return yaml;
}

/** Which of a request's changes are answered (`only` those objects, or all), and with YAML or not. */
export type BodiesSelection = (changes: readonly SourceChange[]) => {
  readonly changes: readonly SourceChange[];
  readonly withBodies: boolean;
};

/**
 * What a request's ChangeBodies asks for: checked now, so that a request that writes (a publish)
 * is refused before it writes anything; applied to its changes once they are known. Refuses a
 * malformed `only` entry, naming it.
 */
export function bodiesSelection(bodies: ChangeBodies | undefined): BodiesSelection {
  const only = bodies?.only ?? [];
  only.forEach((ref, i) => {
    if (ref.kind === ResourceKind.UNSPECIFIED || ref.name === "")
      throw new ConnectError(
        `bodies.only[${i}]: both kind and name are required`,
        Code.InvalidArgument,
      );
  });
  const wanted = new Set(only.map((ref) => `${ref.kind}/${ref.name}`));
  const withBodies = bodies?.omit !== true;
  return (changes) => ({
    changes:
      wanted.size === 0
        ? changes
        : changes.filter((c) => wanted.has(`${resourceKindOf[c.kind]}/${c.name}`)),
    withBodies,
  });
}

/**
 * Changes with both sides rendered; `before`/`after` are the specs the change goes between.
 * Without specs (`undefined` sides for names only), before and after stay empty.
 *
 * Rendering is ~0.3 ms an object: an import of thousands would hold the event loop (every xDS
 * stream) for seconds, so the work yields to it every few milliseconds.
 */
export async function objectChanges(
  changes: readonly SourceChange[],
  sides:
    | { readonly before: ConfigSpec | undefined; readonly after: ConfigSpec | undefined }
    | undefined,
): Promise<ObjectChange[]> {
  const rendered: ObjectChange[] = [];
  let slice = performance.now();
  for (const change of changes) {
    if (performance.now() - slice > YIELD_AFTER_MS) {
      await yieldToEventLoop();
      slice = performance.now();
    }
    const named = nameOnly(change);
    if (sides !== undefined) {
      if (change.change !== "added") named.before = yamlOf(sides.before, change.kind, change.name);
      if (change.change !== "removed") named.after = yamlOf(sides.after, change.kind, change.name);
    }
    rendered.push(named);
  }
  return rendered;
}

const YIELD_AFTER_MS = 10;

/** Changes by name only, both sides empty. */
export function changeNames(changes: readonly SourceChange[]): ObjectChange[] {
  return changes.map(nameOnly);
}

function nameOnly(change: SourceChange): ObjectChange {
  return create(ObjectChangeSchema, {
    kind: resourceKindOf[change.kind],
    name: change.name,
    change: changeTypeOf[change.change],
  });
}
