"use client";

import { createClient } from "@connectrpc/connect";
import { createConnectQueryKey, useTransport } from "@connectrpc/connect-query";
import { AccessService } from "@switchyard/proto/switchyard/v1/access_pb";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo } from "react";

/** The AccessService client on the console's transport, for writes (reads go through useQuery). */
export function useAccessClient() {
  const transport = useTransport();
  return useMemo(() => createClient(AccessService, transport), [transport]);
}

/** After a write: every AccessService read (users, teams, tokens, the audit log) is stale. */
export function useInvalidateAccess() {
  const queryClient = useQueryClient();
  return useCallback(
    () =>
      queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: AccessService, cardinality: undefined }),
      }),
    [queryClient],
  );
}
