"use client";

import { useMemo } from "react";
import { resourceKindLabels, resourceKinds } from "@/lib/resource-kinds";
import {
  type ConfigKindLabel,
  type WriteAccess,
  type Writer,
  writeAccess,
} from "@/lib/write-access";
import { useCaller } from "./use-caller";

const KINDS: readonly string[] = resourceKinds.map((kind) => resourceKindLabels[kind]);

/** Whether `label` names a configuration kind ("cluster", "listener", ...). */
export function isConfigKind(label: string): label is ConfigKindLabel {
  return KINDS.includes(label);
}

/**
 * The signed-in user as lib/write-access.ts weighs them: their role and their team's clusters.
 * The same object until either changes, so that it can be a memo's or a context's value.
 */
export function useWriter(): Writer {
  const { role, team } = useCaller();
  return useMemo(
    () => ({ role, team: team ? { name: team.name, clusters: team.clusters } : undefined }),
    [role, team],
  );
}

/**
 * Whether the signed-in user may change `name` of `kind` (create one without a name), for
 * showing only the controls that can work (lib/write-access.ts). The server stays the authority.
 */
export function useWriteAccess(kind: ConfigKindLabel, name?: string): WriteAccess {
  return writeAccess(useWriter(), kind, name);
}
