/**
 * The edge of the route tester's tests, as Envoy YAML: four STATIC clusters, route configuration
 * `edge-routes` (virtual host `api` on api.example.com and *.api.example.com: /v2/ to
 * `v2Cluster` with a prefix rewrite, an x-canary header to `canary`, the rest to `api-v1` with a
 * timeout and retries; virtual host `www` on "*" to `web`) and listener `edge` loading it over RDS.
 */
const staticCluster = (name: string, port: number) => `
"@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
name: ${name}
type: STATIC
connect_timeout: 1s
load_assignment:
  cluster_name: ${name}
  endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: 127.0.0.1, port_value: ${port} } } } }] }]
`;

/** The edge's routes; `v2Cluster` is where /v2/ goes (the draft moves it). */
const edgeRoutes = (v2Cluster: string) => `
"@type": type.googleapis.com/envoy.config.route.v3.RouteConfiguration
name: edge-routes
virtual_hosts:
- name: api
  domains: ["api.example.com", "*.api.example.com"]
  request_headers_to_add: [{ header: { key: x-edge, value: api } }]
  routes:
  - name: v2
    match: { prefix: /v2/ }
    route: { cluster: ${v2Cluster}, prefix_rewrite: / }
  - name: canary
    match: { prefix: /, headers: [{ name: x-canary, string_match: { exact: "1" } }] }
    route: { cluster: canary }
  - name: default
    match: { prefix: / }
    route: { cluster: api-v1, timeout: 5s, retry_policy: { retry_on: 5xx, num_retries: 2 } }
- name: www
  domains: ["*"]
  routes:
  - match: { prefix: / }
    route: { cluster: web }
`;

const edgeListener = `
"@type": type.googleapis.com/envoy.config.listener.v3.Listener
name: edge
address: { socket_address: { address: 0.0.0.0, port_value: 10000 } }
filter_chains:
- filters:
  - name: envoy.filters.network.http_connection_manager
    typed_config:
      "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
      stat_prefix: edge
      rds: { route_config_name: edge-routes, config_source: { ads: {} } }
      http_filters:
      - name: envoy.filters.http.router
        typed_config: { "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router }
`;

export const edgeConfig = (v2Cluster: string) =>
  [
    staticCluster("web", 9001),
    staticCluster("api-v1", 9002),
    staticCluster("api-v2", 9003),
    staticCluster("canary", 9004),
    edgeRoutes(v2Cluster),
    edgeListener,
  ].join("---\n");
