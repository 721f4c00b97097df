"use client";

import { useQuery } from "@connectrpc/connect-query";
import {
  ConfigService,
  type Listener,
  ResourceKind,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { useSearchParams } from "next/navigation";
import { useMemo } from "react";
import { emptyListenerForm } from "@/lib/listener-form";
import { ConfigEditor } from "./config-editor";
import { ListenerFields } from "./listener-fields";
import { useListenerKind } from "./listener-kind";
import { Loaded } from "./loaded";

/** The route configurations' names (summaries: not every route of every configuration). */
function useRouteConfigNames(): string[] {
  const query = useQuery(ConfigService.method.listResources, {
    kind: ResourceKind.ROUTE_CONFIGURATION,
  });
  return useMemo(() => (query.data?.resources ?? []).map((rc) => rc.name), [query.data]);
}

export function NewListener() {
  const kind = useListenerKind();
  const names = useRouteConfigNames();
  // "/listeners/new?routes=NAME" (from a route configuration) starts with that one chosen.
  const preset = useSearchParams().get("routes") ?? "";
  return (
    <ConfigEditor
      kind={kind}
      original={undefined}
      initialValues={emptyListenerForm(preset)}
      description="Saved to the draft; it goes live when the draft is published."
    >
      <ListenerFields editing={false} routeConfigNames={names} />
    </ConfigEditor>
  );
}

export function EditListener({ name }: { name: string }) {
  const kind = useListenerKind();
  const names = useRouteConfigNames();
  const query = useQuery(ConfigService.method.getListener, { name }, { staleTime: 0 });
  return (
    <Loaded query={query} what="listener" listHref={kind.listHref} listLabel={kind.listLabel}>
      {(listener: Listener) => (
        <ConfigEditor key={listener.name} kind={kind} original={listener}>
          <ListenerFields editing routeConfigNames={names} />
        </ConfigEditor>
      )}
    </Loaded>
  );
}
