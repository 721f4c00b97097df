/**
 * Which stored objects use which: the listeners loading a route configuration, the route
 * configurations and clusters sending to a cluster, the objects fetching a secret over SDS, the
 * node groups serving a listener or cluster. What an import or apply says before it replaces or
 * removes an object the document does not show the users of ("route configuration local_route is
 * replaced; listener 0.0.0.0_8080, not in these files, uses it"). References are read with the
 * table validation and access control read (object-references.ts, envoy-references.ts). Pure.
 */
import { listenerJson } from "./envoy/envoy-json.js";
import { findReferencesInJson } from "./envoy/envoy-references.js";
import type { ConfigSpec } from "./model.js";
import { clusterReferences, routeConfigurationReferences } from "./object-references.js";
import type { SourceKind } from "./sources.js";
import { routeConfigurationName } from "./validate/validate-context.js";

export interface ObjectKey {
  readonly kind: SourceKind;
  readonly name: string;
}

const keyOf = (kind: string, name: string) => `${kind}\u0000${name}`;

/** Object (kind, name) → the stored objects that name it, each once, sorted by kind and name. */
export type Dependents = ReadonlyMap<string, readonly ObjectKey[]>;

/** Every object of `spec` that something in `spec` names, with what names it. */
export function dependentsIn(spec: ConfigSpec): Dependents {
  const users = new Map<string, Map<string, ObjectKey>>();
  const add = (target: ObjectKey, user: ObjectKey) => {
    if (target.name === "" || (target.kind === user.kind && target.name === user.name)) return;
    const key = keyOf(target.kind, target.name);
    const found = users.get(key) ?? new Map<string, ObjectKey>();
    users.set(key, found);
    found.set(keyOf(user.kind, user.name), user);
  };
  for (const cluster of spec.clusters) {
    const user = { kind: "cluster", name: cluster.name } as const;
    for (const r of clusterReferences(cluster)) add({ kind: r.kind, name: r.name }, user);
  }
  for (const rc of spec.routeConfigurations) {
    const user = { kind: "routeConfiguration", name: rc.name } as const;
    for (const r of routeConfigurationReferences(rc)) add({ kind: r.kind, name: r.name }, user);
  }
  for (const listener of spec.listeners) {
    const user = { kind: "listener", name: listener.name } as const;
    for (const chain of listener.filterChains) {
      const name = routeConfigurationName(chain);
      if (name !== null) add({ kind: "routeConfiguration", name }, user);
    }
    // What the listener names besides its route configurations (a TCP proxy's cluster, an
    // ext_authz service, a TLS context's SDS secret, an internal listener): its own Envoy form,
    // route configurations left out (they are named above, and their own references are theirs).
    const json = listenerJson(listener, () => undefined);
    for (const r of findReferencesInJson("envoy.config.listener.v3.Listener", json))
      if (r.kind !== "routeConfiguration") add({ kind: r.kind, name: r.name }, user);
  }
  for (const group of spec.nodeGroups) {
    const user = { kind: "nodeGroup", name: group.name } as const;
    for (const name of group.listeners) add({ kind: "listener", name }, user);
    for (const name of group.clusters) add({ kind: "cluster", name }, user);
  }
  const order = (a: ObjectKey, b: ObjectKey) =>
    a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  return new Map([...users].map(([key, found]) => [key, [...found.values()].sort(order)]));
}

/** The objects of `dependents` that name `object`. */
export function dependentsOf(dependents: Dependents, object: ObjectKey): readonly ObjectKey[] {
  return dependents.get(keyOf(object.kind, object.name)) ?? [];
}
