"use client";

import type { RouteConfiguration } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { useMemo } from "react";
import {
  emptyRouteConfigForm,
  placeOwnershipRefusal,
  type RouteConfigForm,
  routeConfigFieldMap,
  routeConfigFormOf,
  routeConfigFormSchema,
  routeConfigOfForm,
} from "@/lib/route-config-form";
import type { EditorKind } from "./config-editor";
import { routeConfigHref } from "./hrefs";
import { orMissing, useConfigClient } from "./use-config-client";

/**
 * What the editor needs to know of this kind (config-editor.tsx): its form, schema and calls.
 * One module per kind, so an editor page loads its own kind's form code and no other's.
 */
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
