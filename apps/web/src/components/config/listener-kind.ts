"use client";

import type { Listener } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { useMemo } from "react";
import {
  emptyListenerForm,
  type ListenerForm,
  listenerFieldMap,
  listenerFormOf,
  listenerFormSchema,
  listenerOfForm,
} from "@/lib/listener-form";
import type { EditorKind } from "./config-editor";
import { listenerHref } from "./hrefs";
import { orMissing, useConfigClient } from "./use-config-client";

/**
 * What the editor needs to know of this kind (config-editor.tsx): its form, schema and calls.
 * One module per kind, so an editor page loads its own kind's form code and no other's.
 */
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
