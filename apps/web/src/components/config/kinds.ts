"use client";

import { Code, ConnectError } from "@connectrpc/connect";
import type {
  Cluster,
  Listener,
  NodeGroup,
  RouteConfiguration,
  RuntimeLayer,
  Secret,
} from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { useMemo } from "react";
import {
  type ClusterForm,
  clusterFieldMap,
  clusterFormOf,
  clusterFormSchema,
  clusterOfForm,
  emptyClusterForm,
} from "@/lib/cluster-form";
import {
  emptyListenerForm,
  type ListenerForm,
  listenerFieldMap,
  listenerFormOf,
  listenerFormSchema,
  listenerOfForm,
} from "@/lib/listener-form";
import {
  emptyNodeGroupForm,
  type NodeGroupForm,
  nodeGroupFieldMap,
  nodeGroupFormOf,
  nodeGroupFormSchema,
  nodeGroupOfForm,
} from "@/lib/node-group-form";
import {
  emptyRouteConfigForm,
  placeOwnershipRefusal,
  type RouteConfigForm,
  routeConfigFieldMap,
  routeConfigFormOf,
  routeConfigFormSchema,
  routeConfigOfForm,
} from "@/lib/route-config-form";
import {
  emptyRuntimeLayerForm,
  type RuntimeLayerForm,
  runtimeLayerFieldMap,
  runtimeLayerFormOf,
  runtimeLayerFormSchema,
  runtimeLayerOfForm,
} from "@/lib/runtime-layer-form";
import {
  emptySecretForm,
  type SecretForm,
  secretFieldMap,
  secretFormOf,
  secretFormSchema,
  secretOfForm,
} from "@/lib/secret-form";
import type { EditorKind } from "./config-editor";
import { useConfigClient } from "./use-config-client";

/** `undefined` for NotFound, so the editor can tell "deleted meanwhile" from a failure. */
async function orMissing<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (ConnectError.from(error).code === Code.NotFound) return undefined;
    throw error;
  }
}

import {
  clusterHref,
  listenerHref,
  nodeGroupHref,
  routeConfigHref,
  runtimeLayerHref,
  secretHref,
} from "./hrefs";

export { clusterHref, listenerHref, nodeGroupHref, routeConfigHref, runtimeLayerHref, secretHref };

export function useClusterKind(): EditorKind<Cluster, ClusterForm> {
  const client = useConfigClient();
  return useMemo(
    () => ({
      label: "cluster",
      listHref: "/clusters" as Route,
      listLabel: "Clusters",
      hrefOf: clusterHref,
      schema: clusterFormSchema,
      empty: emptyClusterForm,
      fieldMap: clusterFieldMap,
      formOf: clusterFormOf,
      messageOf: clusterOfForm,
      create: (m) => client.createCluster(m),
      update: (m) => client.updateCluster(m),
      remove: (name) => client.deleteCluster({ name }),
      current: (name) => orMissing(client.getCluster({ name })),
    }),
    [client],
  );
}

export function useRouteConfigKind(): EditorKind<RouteConfiguration, RouteConfigForm> {
  const client = useConfigClient();
  return useMemo(
    () => ({
      label: "route configuration",
      listHref: "/routes" as Route,
      listLabel: "Routes",
      hrefOf: routeConfigHref,
      schema: routeConfigFormSchema,
      empty: emptyRouteConfigForm,
      fieldMap: routeConfigFieldMap,
      formOf: routeConfigFormOf,
      messageOf: routeConfigOfForm,
      create: (m) => client.createRouteConfiguration(m),
      update: (m) => client.updateRouteConfiguration(m),
      remove: (name) => client.deleteRouteConfiguration({ name }),
      current: (name) => orMissing(client.getRouteConfiguration({ name })),
      placeRefusal: placeOwnershipRefusal,
    }),
    [client],
  );
}

export function useListenerKind(): EditorKind<Listener, ListenerForm> {
  const client = useConfigClient();
  return useMemo(
    () => ({
      label: "listener",
      listHref: "/listeners" as Route,
      listLabel: "Listeners",
      hrefOf: listenerHref,
      schema: listenerFormSchema,
      empty: () => emptyListenerForm(),
      fieldMap: listenerFieldMap,
      formOf: listenerFormOf,
      messageOf: listenerOfForm,
      create: (m) => client.createListener(m),
      update: (m) => client.updateListener(m),
      remove: (name) => client.deleteListener({ name }),
      current: (name) => orMissing(client.getListener({ name })),
    }),
    [client],
  );
}

export function useNodeGroupKind(): EditorKind<NodeGroup, NodeGroupForm> {
  const client = useConfigClient();
  return useMemo(
    () => ({
      label: "node group",
      listHref: "/node-groups" as Route,
      listLabel: "Node groups",
      hrefOf: nodeGroupHref,
      schema: nodeGroupFormSchema,
      empty: emptyNodeGroupForm,
      fieldMap: nodeGroupFieldMap,
      formOf: nodeGroupFormOf,
      messageOf: (form) => nodeGroupOfForm(form),
      create: (m) => client.createNodeGroup(m),
      update: (m) => client.updateNodeGroup(m),
      remove: (name) => client.deleteNodeGroup({ name }),
      current: (name) => orMissing(client.getNodeGroup({ name })),
    }),
    [client],
  );
}

export function useRuntimeLayerKind(): EditorKind<RuntimeLayer, RuntimeLayerForm> {
  const client = useConfigClient();
  return useMemo(
    () => ({
      label: "runtime layer",
      listHref: "/runtime" as Route,
      listLabel: "Runtime",
      hrefOf: runtimeLayerHref,
      schema: runtimeLayerFormSchema,
      empty: emptyRuntimeLayerForm,
      fieldMap: runtimeLayerFieldMap,
      formOf: runtimeLayerFormOf,
      messageOf: (form) => runtimeLayerOfForm(form),
      create: (m) => client.createRuntimeLayer(m),
      update: (m) => client.updateRuntimeLayer(m),
      remove: (name) => client.deleteRuntimeLayer({ name }),
      current: (name) => orMissing(client.getRuntimeLayer({ name })),
    }),
    [client],
  );
}

export function useSecretKind(): EditorKind<Secret, SecretForm> {
  const client = useConfigClient();
  return useMemo(
    () => ({
      label: "secret",
      listHref: "/secrets" as Route,
      listLabel: "Secrets",
      hrefOf: secretHref,
      schema: secretFormSchema,
      empty: emptySecretForm,
      fieldMap: secretFieldMap,
      formOf: secretFormOf,
      messageOf: (form) => secretOfForm(form),
      create: (m) => client.createSecret(m),
      update: (m) => client.updateSecret(m),
      remove: (name) => client.deleteSecret({ name }),
      current: (name) => orMissing(client.getSecret({ name })),
    }),
    [client],
  );
}
