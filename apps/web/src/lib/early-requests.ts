import {
  create,
  type DescMessage,
  type DescMethod,
  type MessageInitShape,
  toBinary,
} from "@bufbuild/protobuf";
import { AccessService } from "@switchyard/proto/switchyard/v1/access_pb";
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

/**
 * A request's binary protobuf, as the script assembles it: fixed bytes, and the path's parameters
 * as top-level string fields (their length prefix is written by the script, as UTF-8 needs).
 */
type Part = { readonly bytes: string } | { readonly param: string };

interface Call {
  readonly method: DescMethod;
  /** The request, built from the path's parameters (a function of their names to values). */
  readonly parts: readonly Part[];
}

/** `bytes` as the script reads them back: base64 (atob). */
const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

/** Protobuf's varint, as the script writes the length of a parameter's UTF-8 bytes. */
function varint(n: number): number[] {
  const out: number[] = [];
  for (; n > 0x7f; n >>>= 7) out.push((n & 0x7f) | 0x80);
  out.push(n);
  return out;
}

/**
 * The parts of a request: it is encoded with a marker in place of each parameter, then cut
 * around each marker's length prefix and bytes. Checked against protobuf-es's own encoding of a
 * sample (a parameter in a nested message would need its parents' lengths rewritten too): a call
 * the script could not build exactly fails as the console starts, not in a user's browser.
 */
function partsOf<I extends DescMessage>(
  schema: I,
  input: (param: (name: string) => string) => MessageInitShape<I>,
): Part[] {
  const marker = (name: string) => `@@${name}@@`;
  const bytes = toBinary(schema, create(schema, input(marker)));
  const parts: Part[] = [];
  let from = 0;
  const text = new TextDecoder("latin1").decode(bytes);
  for (const m of text.matchAll(/@@(\w+)@@/g)) {
    const name = m[1] ?? "";
    const prefix = varint(marker(name).length).length;
    parts.push({ bytes: base64(bytes.subarray(from, m.index - prefix)) }, { param: name });
    from = m.index + m[0].length;
  }
  parts.push({ bytes: base64(bytes.subarray(from)) });
  const sample = (name: string) => `${name}-é/x`;
  const expected = toBinary(schema, create(schema, input(sample)));
  const built = assemble(parts, sample);
  if (built.length !== expected.length || built.some((b, i) => b !== expected[i])) {
    throw new Error(`early-requests: ${schema.typeName} cannot be assembled from path parameters`);
  }
  return parts;
}

/** What the script does with a call's parts, here for the check above. */
function assemble(parts: readonly Part[], param: (name: string) => string): Uint8Array {
  const out: number[] = [];
  for (const part of parts) {
    if ("bytes" in part) {
      for (const c of atob(part.bytes)) out.push(c.charCodeAt(0));
    } else {
      const value = new TextEncoder().encode(param(part.param));
      out.push(...varint(value.length), ...value);
    }
  }
  return new Uint8Array(out);
}

function call<I extends DescMessage>(
  method: DescMethod & { readonly input: I },
  input: (param: (name: string) => string) => MessageInitShape<I>,
): Call {
  // Exactly what connect-web sends with the console's transport (binary protobuf).
  return { method, parts: partsOf(method.input, input) };
}

/** Every signed-in page's first call: who is signed in (the sidebar, the user menu, controls). */
const EVERY_PAGE: readonly Call[] = [call(AccessService.method.whoAmI, () => ({}))];

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
    // The default view; a focus in the query string is asked for once the page runs.
    calls: [call(ConfigService.method.getTopology, () => ({ focus: "" }))],
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

/** What the inline script needs of a call: its URL, whether it streams, and its parts. */
interface ScriptCall {
  readonly u: string;
  readonly s: boolean;
  readonly b: readonly (string | { readonly p: string })[];
}

function scriptCall({ method, parts }: Call): ScriptCall {
  return {
    u: `/${method.parent.typeName}/${method.name}`,
    s: method.methodKind === "server_streaming",
    b: parts.map((part) => ("bytes" in part ? part.bytes : { p: part.param })),
  };
}

/** A route for the script: a regular expression's source with named groups, and its calls. */
function scriptRoute(route: EarlyRoute): { readonly p: string; readonly c: readonly ScriptCall[] } {
  const pattern = route.path
    .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    .replace(/:(\w+)/g, "(?<$1>[^/]+)");
  return { p: `^${pattern}/?$`, c: route.calls.map(scriptCall) };
}

/**
 * The inline script (for the root layout's head). It starts WhoAmI on every page but the login
 * page, and the matching route's calls, with the Connect protocol's headers (binary protobuf; a
 * server stream's request is one enveloped message), and keeps them on `window.__syEarly` for
 * early-fetch.ts. A page with a query string (e.g. Nodes with filters) starts only WhoAmI: its
 * other first calls depend on the query.
 */
export function earlyRequestsScript(): string {
  const table = JSON.stringify({ a: EVERY_PAGE.map(scriptCall), r: EARLY_ROUTES.map(scriptRoute) });
  return `(function(T){try{
var E=window.__syEarly=[];if(location.pathname==="/login")return;
var calls=T.a.slice(),m;
if(!location.search)for(var i=0;i<T.r.length&&!m;i++){m=new RegExp(T.r[i].p).exec(location.pathname);if(m)calls=calls.concat(T.r[i].c);}
var enc=new TextEncoder();
calls.forEach(function(c){
var bytes=[];
c.b.forEach(function(x){
if(typeof x==="string"){var r=atob(x);for(var j=0;j<r.length;j++)bytes.push(r.charCodeAt(j));return;}
var v=m.groups[x.p];try{v=decodeURIComponent(v)}catch(_){}
var u=enc.encode(v),n=u.length;while(n>127){bytes.push((n&127)|128);n>>>=7;}bytes.push(n);
for(var k=0;k<u.length;k++)bytes.push(u[k]);});
var msg=new Uint8Array(bytes),body=msg;
if(c.s){body=new Uint8Array(5+msg.length);new DataView(body.buffer).setUint32(1,msg.length);body.set(msg,5);}
var ctl=new AbortController();
var e={url:c.u,body:body,ctl:ctl,used:false,response:fetch(c.u,{method:"POST",signal:ctl.signal,body:body,
headers:{"Content-Type":c.s?"application/connect+proto":"application/proto","Connect-Protocol-Version":"1"}})};
e.response.catch(function(){});E.push(e);
setTimeout(function(){if(!e.used)ctl.abort();},20000);
});}catch(_){}})(${table});`;
}
