/**
 * What routes where in a draft, for tests that check an import or apply left listeners as they
 * were: each listener with the route configurations its chains load, then their routes' clusters.
 */
import { fileURLToPath } from "node:url";
import type { Client } from "@connectrpc/connect";
import type { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";

export async function listenerRouting(
  api: Client<typeof ConfigService>,
): Promise<Record<string, string[]>> {
  const { listeners } = await api.listListeners({});
  const out: Record<string, string[]> = {};
  for (const listener of listeners) {
    const names = listener.filterChains.map(
      (c) => c.rdsRouteConfigName || c.inlineRouteConfigName || "",
    );
    const clusters: string[] = [];
    for (const name of names) {
      if (!name) continue;
      const rc = await api.getRouteConfiguration({ name });
      for (const vh of rc.virtualHosts) for (const r of vh.routes) clusters.push(r.cluster ?? "");
    }
    out[listener.name] = [...names, ...clusters];
  }
  return out;
}

/** Envoy's example configurations (the corpus beside the repository, or SWITCHYARD_ENVOY_CORPUS). */
export const ENVOY_EXAMPLES =
  process.env.SWITCHYARD_ENVOY_CORPUS ??
  fileURLToPath(new URL("../../../../../shared/corpus/envoy-examples/", import.meta.url));
