"use client";

import {
  type ConfigKindLabel,
  type WriteAccess,
  type Writer,
  writeAccess,
} from "@/lib/write-access";
import { useCaller } from "./use-caller";

const KINDS: readonly string[] = [
  "cluster",
  "route configuration",
  "listener",
  "node group",
  "runtime layer",
  "secret",
];

/** Whether `label` names a configuration kind ("cluster", "listener", ...). */
export function isConfigKind(label: string): label is ConfigKindLabel {
  return KINDS.includes(label);
}

/** The signed-in user as lib/write-access.ts weighs them: their role and their team's clusters. */
export function useWriter(): Writer {
  const caller = useCaller();
  return {
    role: caller.role,
    team: caller.team ? { name: caller.team.name, clusters: caller.team.clusters } : undefined,
  };
}

/**
 * Whether the signed-in user may change `name` of `kind` (create one without a name), for
 * showing only the controls that can work (lib/write-access.ts). The server stays the authority.
 */
export function useWriteAccess(kind: ConfigKindLabel, name?: string): WriteAccess {
  return writeAccess(useWriter(), kind, name);
}
