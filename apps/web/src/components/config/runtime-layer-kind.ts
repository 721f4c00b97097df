"use client";

import type { RuntimeLayer } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { useMemo } from "react";
import {
  emptyRuntimeLayerForm,
  type RuntimeLayerForm,
  runtimeLayerFieldMap,
  runtimeLayerFormOf,
  runtimeLayerFormSchema,
  runtimeLayerOfForm,
} from "@/lib/runtime-layer-form";
import type { EditorKind } from "./config-editor";
import { runtimeLayerHref } from "./hrefs";
import { orMissing, useConfigClient } from "./use-config-client";

/**
 * What the editor needs to know of this kind (config-editor.tsx): its form, schema and calls.
 * One module per kind, so an editor page loads its own kind's form code and no other's.
 */
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
