"use client";

import { type Client, createClient } from "@connectrpc/connect";
import { useTransport } from "@connectrpc/connect-query";
import { RolloutService } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { useMemo } from "react";

/** A RolloutService client on the console's transport: WatchRollout and the commands. */
export function useRolloutClient(): Client<typeof RolloutService> {
  const transport = useTransport();
  return useMemo(() => createClient(RolloutService, transport), [transport]);
}
