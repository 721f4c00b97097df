"use client";

import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectQueryKey, useTransport } from "@connectrpc/connect-query";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo } from "react";

/** The ConfigService client on the console's transport, for writes (reads go through useQuery). */
export function useConfigClient() {
  const transport = useTransport();
  return useMemo(() => createClient(ConfigService, transport), [transport]);
}

/** After a write: every ConfigService read (lists, objects, the home page's inventory) is stale. */
export function useInvalidateConfig() {
  const queryClient = useQueryClient();
  return useCallback(
    () =>
      queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: ConfigService, cardinality: undefined }),
      }),
    [queryClient],
  );
}

/** `undefined` for NotFound, so the editor can tell "deleted meanwhile" from a failure. */
export async function orMissing<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (ConnectError.from(error).code === Code.NotFound) return undefined;
    throw error;
  }
}
