"use client";

import type { Cluster } from "@switchyard/proto/switchyard/v1/config_pb";
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
import type { EditorKind } from "./config-editor";
import { clusterHref } from "./hrefs";
import { orMissing, useConfigClient } from "./use-config-client";

/**
 * What the editor needs to know of this kind (config-editor.tsx): its form, schema and calls.
 * One module per kind, so an editor page loads its own kind's form code and no other's.
 */
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
