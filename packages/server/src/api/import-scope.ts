/**
 * An import that must hold one object only (ImportRequest.object): what the console's Envoy YAML
 * editor of a cluster, listener, route configuration or runtime layer saves through, so that an
 * edit of one object cannot rename it or add or change another by mistake.
 */
import { type ConfigSpecFragment, KIND_LABEL, type SourceKind } from "@switchyard/snapshot";

const quote = JSON.stringify;

/**
 * Why `fragment` is not exactly the object `kind`/`name` in its Envoy form, or undefined when it
 * is. A cluster comes with its ClusterLoadAssignment; a listener with the route configurations it
 * embeds; either with the SDS secrets its inline certificates were moved to.
 */
export function importScopeProblem(
  fragment: ConfigSpecFragment,
  kind: SourceKind,
  name: string,
): string | undefined {
  const what = `${KIND_LABEL[kind]} ${quote(name)}`;
  if (kind === "nodeGroup" || kind === "secret") {
    return `a ${KIND_LABEL[kind]} has no Envoy form to edit: use its own form`;
  }
  const found: string[] = [
    ...fragment.clusters.map((c) => `cluster ${quote(c.name)}`),
    ...fragment.listeners.map((l) => `listener ${quote(l.name)}`),
    ...fragment.runtimeLayers.map((r) => `runtime layer ${quote(r.name)}`),
  ];
  const embedded = new Set(
    fragment.listeners.flatMap((l) =>
      l.filterChains.flatMap((c) =>
        c.inlineRouteConfigName === null ? [] : [c.inlineRouteConfigName],
      ),
    ),
  );
  for (const routes of fragment.routeConfigurations) {
    if (kind === "listener" && embedded.has(routes.name)) continue;
    found.push(`route configuration ${quote(routes.name)}`);
  }
  if (found.length === 1 && found[0] === what) return undefined;
  if (found.length === 0) return `the document holds no ${what}`;
  const others = found.filter((object) => object !== what);
  return found.includes(what)
    ? `the document holds ${others.join(", ")} besides ${what}: this edits ${what} only`
    : `the document holds ${found.join(", ")}, not ${what}: an object's name cannot change here`;
}
