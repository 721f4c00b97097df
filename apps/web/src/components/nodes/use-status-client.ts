"use client";

import { type Client, createClient } from "@connectrpc/connect";
import { useTransport } from "@connectrpc/connect-query";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import { useMemo } from "react";

/** A StatusService client on the console's transport, for the server-streaming Watch calls. */
export function useStatusClient(): Client<typeof StatusService> {
  const transport = useTransport();
  return useMemo(() => createClient(StatusService, transport), [transport]);
}
