"use client";

import { type ConfigKindLabel, type WriteAccess, writeAccess } from "@/lib/write-access";
import { useCaller } from "./use-caller";

const KINDS: readonly string[] = [
  "cluster",
  "route configuration",
  "listener",
  "node group",
  "runtime layer",
];

/** Whether `label` names a configuration kind ("cluster", "listener", ...). */
export function isConfigKind(label: string): label is ConfigKindLabel {
  return KINDS.includes(label);
}

/**
 * Whether the signed-in user may change `name` of `kind` (create one without a name), for
 * showing only the controls that can work (lib/write-access.ts). The server stays the authority.
 */
export function useWriteAccess(kind: ConfigKindLabel, name?: string): WriteAccess {
  const caller = useCaller();
  return writeAccess(
    {
      role: caller.role,
      team: caller.team ? { name: caller.team.name, clusters: caller.team.clusters } : undefined,
    },
    kind,
    name,
  );
}
