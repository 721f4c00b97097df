"use client";

import { createClient } from "@connectrpc/connect";
import { createConnectQueryKey, useTransport } from "@connectrpc/connect-query";
import { RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo } from "react";

/** The RoutingService client on the console's transport, for writes and runs. */
export function useRoutingClient() {
  const transport = useTransport();
  return useMemo(() => createClient(RoutingService, transport), [transport]);
}

/** After a route test is written or deleted: the stored tests' list is stale. */
export function useInvalidateRouteTests() {
  const queryClient = useQueryClient();
  return useCallback(
    () =>
      queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({
          schema: RoutingService.method.listRouteTests,
          cardinality: undefined,
        }),
      }),
    [queryClient],
  );
}
