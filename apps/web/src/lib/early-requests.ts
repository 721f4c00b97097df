import {
  create,
  type DescMessage,
  type DescMethod,
  type MessageInitShape,
  toJsonString,
} from "@bufbuild/protobuf";
import { ConfigService, ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import { NODES_PAGE_SIZE } from "./node-filter-params";
import { OPEN_REVIEWS, RECENT_REVIEWS } from "./review-filter";

/**
 * Early requests: on a full page load, each page's first API calls start from a small inline
 * script in the document's head, while the browser is still downloading and hydrating the
 * console's JavaScript, instead of after hydration (which costs 300–500 ms on a small machine).
 * The transport's fetch (early-fetch.ts) hands each response to the query or stream that asks for
 * exactly the same call; one it does not claim is aborted after a while. Client-side navigations
 * never use them.
 *
 * The calls here must be exactly those the pages make on mount (same method, same input): the
 * console's browser tests fail if a page leaves an early request unclaimed.
 */

/** A path parameter, replaced in the request by the value from the URL (JSON-escaped). */
const placeholder = (name: string) => `@@${name}@@`;

interface Call {
  readonly method: DescMethod;
  /** The request, built from the path's parameters (given as placeholders). */
  readonly request: (param: (name: string) => string) => string;
}

function call<I extends DescMessage>(
  method: DescMethod & { readonly input: I },
  input: (param: (name: string) => string) => MessageInitShape<I>,
): Call {
  return {
    method,
    // Exactly what connect-web sends: the request in protobuf JSON with default options.
    request: (param) => toJsonString(method.input, create(method.input, input(param))),
  };
}

interface EarlyRoute {
  /** The pathname, with `:name` segments for parameters. */
  readonly path: string;
  readonly calls: readonly Call[];
}

/** Static paths first: the first route that matches wins, so /clusters/new is not a cluster. */
export const EARLY_ROUTES: readonly EarlyRoute[] = [
  {
    path: "/",
    calls: [
      call(StatusService.method.watchFleet, () => ({ recentNacks: 5 })),
      call(ConfigService.method.listSnapshots, () => ({ limit: 1 })),
      call(StatusService.method.watchConvergence, () => ({ version: 0n, summaryOnly: true })),
      call(ConfigService.method.listResources, () => ({})),
    ],
  },
  {
    path: "/nodes",
    // The Nodes list's first page with no filter (node-filter-params.ts, nodePageRequest).
    calls: [call(StatusService.method.watchNodes, () => ({ pageSize: NODES_PAGE_SIZE }))],
  },
  {
    path: "/nodes/:id",
    calls: [call(StatusService.method.watchNode, (p) => ({ id: p("id") }))],
  },
  { path: "/clusters", calls: [call(ConfigService.method.listClusters, () => ({}))] },
  { path: "/clusters/new", calls: [] },
  {
    path: "/clusters/:name",
    calls: [call(ConfigService.method.getCluster, (p) => ({ name: p("name") }))],
  },
  { path: "/routes", calls: [call(ConfigService.method.listResources, () => ({}))] },
  { path: "/routes/new", calls: [] },
  {
    path: "/routes/:name",
    calls: [
      call(ConfigService.method.getRouteConfiguration, (p) => ({ name: p("name") })),
      call(ConfigService.method.listResources, () => ({ kind: ResourceKind.CLUSTER })),
    ],
  },
  { path: "/listeners", calls: [call(ConfigService.method.listListeners, () => ({}))] },
  { path: "/listeners/new", calls: [] },
  {
    path: "/listeners/:name",
    calls: [
      call(ConfigService.method.getListener, (p) => ({ name: p("name") })),
      call(ConfigService.method.listResources, () => ({
        kind: ResourceKind.ROUTE_CONFIGURATION,
      })),
    ],
  },
  { path: "/node-groups", calls: [call(ConfigService.method.listNodeGroups, () => ({}))] },
  {
    path: "/topology",
    calls: [
      call(ConfigService.method.listListeners, () => ({})),
      call(ConfigService.method.listRouteConfigurations, () => ({})),
      call(ConfigService.method.listClusters, () => ({})),
    ],
  },
  {
    path: "/changes",
    calls: [
      call(ConfigService.method.diff, () => ({})),
      call(ConfigService.method.validate, () => ({})),
    ],
  },
  {
    path: "/reviews",
    // The default view (review-filter.ts, reviewLists): every open request, the newest of all.
    calls: [
      call(ConfigService.method.listReviewRequests, () => OPEN_REVIEWS),
      call(ConfigService.method.listReviewRequests, () => RECENT_REVIEWS),
    ],
  },
  { path: "/history", calls: [call(ConfigService.method.listSnapshots, () => ({ limit: 200 }))] },
  { path: "/inventory", calls: [call(ConfigService.method.listResources, () => ({}))] },
];

/** What the inline script needs of a route: a pattern, and per call its URL, kind and body. */
interface ScriptRoute {
  /** Regular expression source with named groups. */
  readonly p: string;
  readonly c: readonly { readonly u: string; readonly s: boolean; readonly b: string }[];
}

function scriptRoute(route: EarlyRoute): ScriptRoute {
  const pattern = route.path
    .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    .replace(/:(\w+)/g, "(?<$1>[^/]+)");
  return {
    p: `^${pattern}/?$`,
    c: route.calls.map(({ method, request }) => ({
      u: `/${method.parent.typeName}/${method.name}`,
      s: method.methodKind === "server_streaming",
      b: request(placeholder),
    })),
  };
}

/**
 * The inline script (for the root layout's head). It starts the matching route's calls with the
 * Connect protocol's headers (JSON; a server stream's request is one enveloped message) and keeps
 * them on `window.__syEarly` for early-fetch.ts. A page with a query string (e.g. Nodes with
 * filters) starts nothing: its first calls depend on it.
 */
export function earlyRequestsScript(): string {
  const table = JSON.stringify(EARLY_ROUTES.map(scriptRoute));
  return `(function(T){try{
var E=window.__syEarly=[];if(location.search)return;
var m;for(var i=0;i<T.length&&!m;i++){m=new RegExp(T[i].p).exec(location.pathname);if(m)m.r=T[i];}
if(!m)return;var enc=new TextEncoder();
m.r.c.forEach(function(c){
var json=c.b.replace(/@@(\\w+)@@/g,function(_,k){var v=m.groups[k];try{v=decodeURIComponent(v)}catch(_){}return JSON.stringify(v).slice(1,-1);});
var msg=enc.encode(json),body=msg;
if(c.s){body=new Uint8Array(5+msg.length);new DataView(body.buffer).setUint32(1,msg.length);body.set(msg,5);}
var ctl=new AbortController();
var e={url:c.u,body:body,ctl:ctl,used:false,response:fetch(c.u,{method:"POST",signal:ctl.signal,body:body,
headers:{"Content-Type":c.s?"application/connect+json":"application/json","Connect-Protocol-Version":"1"}})};
e.response.catch(function(){});E.push(e);
setTimeout(function(){if(!e.used)ctl.abort();},20000);
});}catch(_){}})(${table});`;
}
