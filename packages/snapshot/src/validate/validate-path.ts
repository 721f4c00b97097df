/**
 * Paths of validation issues: where in the stored model (model.ts) a problem is, in the syntax the
 * compiler's `ConfigIssue` already uses, so the console can put an error at its field and the CLI
 * can print it.
 *
 *   path    = kind "[" name "]" { step }
 *   kind    = "clusters" | "listeners" | "routeConfigurations" | "nodeGroups" | "runtimeLayers"
 *           | "secrets"
 *   step    = "." field                  a field of the model, by its name in model.ts
 *           | "[" name "]"               a child with a name: virtualHosts["api"]
 *           | "[" index "]"              a child without one, by zero-based position: routes[2]
 *   name    = a JSON string literal      ["payments"], ["a \"quoted\" name"]
 *
 * Inside stored JSON (`extra`, `directResponse`, ...) steps follow the JSON: `.extra.perConnectionBufferLimitBytes`,
 * with `["key"]` for a key that is not an identifier.
 *
 *   clusters["payments"].localities[0].endpoints[1].port
 *   routeConfigurations["ingress"].virtualHosts["api"].routes[2].cluster
 *   listeners["edge"].filterChains[0].rdsRouteConfigName
 *   nodeGroups["team-a"].listeners[1]
 *   runtimeLayers["faults"].entries[0].key
 *   secrets["edge-cert"].certificateChain
 */

/** `["name"]`: a named object or child. */
export function named(name: string): string {
  return `[${JSON.stringify(name)}]`;
}

export const clusterPath = (name: string): string => `clusters${named(name)}`;
export const listenerPath = (name: string): string => `listeners${named(name)}`;
export const routeConfigurationPath = (name: string): string => `routeConfigurations${named(name)}`;
export const nodeGroupPath = (name: string): string => `nodeGroups${named(name)}`;
export const runtimeLayerPath = (name: string): string => `runtimeLayers${named(name)}`;
export const secretPath = (name: string): string => `secrets${named(name)}`;

export const runtimeEntryPath = (layer: string, index: number): string =>
  `${runtimeLayerPath(layer)}.entries[${index}]`;

export const virtualHostPath = (routeConfiguration: string, virtualHost: string): string =>
  `${routeConfigurationPath(routeConfiguration)}.virtualHosts${named(virtualHost)}`;

export const routePath = (routeConfiguration: string, virtualHost: string, index: number): string =>
  `${virtualHostPath(routeConfiguration, virtualHost)}.routes[${index}]`;

export const localityPath = (cluster: string, index: number): string =>
  `${clusterPath(cluster)}.localities[${index}]`;

export const endpointPath = (cluster: string, locality: number, index: number): string =>
  `${localityPath(cluster, locality)}.endpoints[${index}]`;

export const filterChainPath = (listener: string, index: number): string =>
  `${listenerPath(listener)}.filterChains[${index}]`;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A step into stored JSON: `.key`, or `["key"]` when the key is not an identifier. */
export function jsonKey(key: string): string {
  return IDENTIFIER.test(key) ? `.${key}` : named(key);
}

/** `a.b[0].c` → `a`, `a.b`, `a.b[0]`, `a.b[0].c`; dots and brackets inside quoted names don't count. */
export function pathPrefixes(path: string): string[] {
  const prefixes: string[] = [];
  let quoted = false;
  for (let i = 0; i < path.length; i++) {
    const char = path[i];
    if (quoted) {
      if (char === "\\") i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') {
      quoted = true;
    } else if ((char === "." || char === "[") && i > 0) {
      prefixes.push(path.slice(0, i));
    }
  }
  prefixes.push(path);
  return prefixes;
}
