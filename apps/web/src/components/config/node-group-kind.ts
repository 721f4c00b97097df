"use client";

import type { NodeGroup } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { useMemo } from "react";
import {
  emptyNodeGroupForm,
  type NodeGroupForm,
  nodeGroupFieldMap,
  nodeGroupFormOf,
  nodeGroupFormSchema,
  nodeGroupOfForm,
} from "@/lib/node-group-form";
import type { EditorKind } from "./config-editor";
import { nodeGroupHref } from "./hrefs";
import { orMissing, useConfigClient } from "./use-config-client";

/**
 * What the editor needs to know of this kind (config-editor.tsx): its form, schema and calls.
 * One module per kind, so an editor page loads its own kind's form code and no other's.
 */
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
