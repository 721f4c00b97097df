import type { Route } from "next";

/**
 * Where each stored object is edited. Kept apart from kinds.ts (which holds every editor's form
 * schemas) so that list pages link to objects without loading the editors' code.
 */
const segment = (name: string) => encodeURIComponent(name);

export const clusterHref = (name: string): Route => `/clusters/${segment(name)}` as Route;
export const routeConfigHref = (name: string): Route => `/routes/${segment(name)}` as Route;
export const listenerHref = (name: string): Route => `/listeners/${segment(name)}` as Route;
export const nodeGroupHref = (name: string): Route => `/node-groups/${segment(name)}` as Route;
export const runtimeLayerHref = (name: string): Route => `/runtime/${segment(name)}` as Route;
export const secretHref = (name: string): Route => `/secrets/${segment(name)}` as Route;
