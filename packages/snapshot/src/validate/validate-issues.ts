/**
 * The result of `validate`: one structured form shared by the API, the CLI and the console.
 *
 * Every issue carries a stable `code` from `VALIDATION_CODES`; a code always has the same
 * severity, so clients may switch on codes without also checking the severity.
 */

export type Severity = "error" | "warning";

export interface ValidationIssue {
  /** An error blocks a publish; a warning does not. Always `VALIDATION_CODES[code].severity`. */
  readonly severity: Severity;
  /** Stable, kebab-case: what kind of problem this is (see `VALIDATION_CODES`). */
  readonly code: ValidationCode;
  /**
   * Where, in the stored model, in the syntax of `ConfigIssue` paths (see validate-path.ts):
   * `routeConfigurations["ingress"].virtualHosts["api"].routes[2].cluster`.
   */
  readonly path: string;
  /** What is wrong, in words, self-contained (it names the objects involved). */
  readonly message: string;
  /** How to fix it, when there is something specific to say. */
  readonly hint?: string;
  /**
   * Set on a warning whose code is a predicted rejection (`VALIDATION_CODES[code].rejectedBy`)
   * when some node group's clients receive what it is about: those clients would NACK the
   * resource (validate-rejections.ts). A publish that adds one needs accept_warnings.
   */
  readonly rejection?: PredictedRejection;
}

/** Which clients a predicted rejection is for: proxyless gRPC clients, or Envoy proxies. */
export type RejectingClient = "grpc" | "envoy";

/** Who would reject what a warning is about, by node group (validate-rejections.ts). */
export interface PredictedRejection {
  readonly by: RejectingClient;
  /** The node groups whose clients receive it, sorted; never empty. */
  readonly nodeGroups: readonly string[];
  /**
   * Set by a caller that compared with the published version (markPublishedRejections): true
   * when that version has the same rejection for every one of these groups, so a publish is not
   * refused for it.
   */
  readonly alreadyPublished?: boolean;
}

export interface ValidationReport {
  /**
   * Errors first, then warnings; within each, by check (structure, references, duplicates,
   * encoding, proxyless gRPC) and then by position in the stored model. Deterministic.
   */
  readonly issues: readonly ValidationIssue[];
  /** True when there is no error (warnings allowed): the config may be published. */
  readonly ok: boolean;
}

interface CodeInfo {
  readonly severity: Severity;
  /**
   * True when the problem involves another stored object (a reference, a conflict, a duplicate):
   * an object may be saved to the draft with such an error, which then blocks only a publish.
   */
  readonly crossObject: boolean;
  readonly summary: string;
  /**
   * A predicted rejection: the clients named (of the node groups that receive the object at
   * fault) would NACK the resource, not merely misbehave. Only on warnings: what every client
   * rejects is an error. A publish that adds one is refused without accept_warnings.
   */
  readonly rejectedBy?: RejectingClient;
}

const error = (summary: string, crossObject = false): CodeInfo => ({
  severity: "error",
  crossObject,
  summary,
});
const warning = (summary: string, crossObject = false): CodeInfo => ({
  severity: "warning",
  crossObject,
  summary,
});
/** A warning that `client`s receiving the object would NACK it (CodeInfo.rejectedBy). */
const rejection = (client: RejectingClient, summary: string, crossObject = false): CodeInfo => ({
  ...warning(summary, crossObject),
  rejectedBy: client,
});

/** Every code `validate` reports, with its severity and meaning. */
export const VALIDATION_CODES = {
  // Structure of one object.
  "invalid-name": error(
    "a name is empty, holds whitespace or control characters, or is longer than 512 characters",
  ),
  "invalid-port": error(
    "a port is out of range (an endpoint's from 1 to 65535, a listener's from 0), or set for a Unix socket or internal address",
  ),
  "invalid-address": error(
    "an address is empty, neither an IP address nor a host name (nor unix://PATH or envoy://LISTENER), or of a kind its owner cannot use",
  ),
  "socket-address-required": error("a socket listener has no address or no port"),
  "api-listener-address": error(
    "an api_listener or internal listener has an address or port (it must have neither), or a listener is both",
  ),
  "internal-listener-feature": error(
    "an internal listener sets a socket feature it has no socket for (reuse port, socket options, ...)",
  ),
  "filter-chain-count": error(
    "an api_listener has other than one filter chain, a TCP or QUIC listener has none (its default chain counting), a UDP listener has some, a QUIC chain has no transport socket, or a listener has two default chains",
  ),
  "invalid-route-specifier": error(
    "a filter chain sets not exactly one of rdsRouteConfigName and inlineRouteConfigName, or sets a route specifier in hcmExtra",
  ),
  "invalid-http-filter": error("an HTTP filter is not an object with a name"),
  "invalid-network-filter": error(
    "a network filter is not an object with a name, an HTTP connection manager is kept among the network filters, or a chain's terminal filter is not its last (or its last is not terminal)",
  ),
  "empty-filter-chain": warning("a filter chain without an HTTP connection manager has no filter"),
  "router-filter-not-last": error("the router HTTP filter is not the last HTTP filter"),
  "invalid-timeout": error("a connect timeout is not > 0, or a route timeout is negative"),
  "invalid-weight": error(
    "an endpoint or locality weight is not an integer >= 1, or weighted cluster weights are negative, all zero or overflow uint32",
  ),
  "resolver-name-on-dns-cluster": error(
    "a STRICT_DNS or LOGICAL_DNS cluster's endpoint names a custom resolver, which Envoy refuses",
  ),
  "invalid-priority": error("a locality priority is not an integer from 0 to 128"),
  "endpoint-not-ip": error("a STATIC or EDS cluster has an endpoint address that is not an IP"),
  "logical-dns-endpoint-count": error(
    "a LOGICAL_DNS cluster has other than exactly one locality with one endpoint",
  ),
  "invalid-path-match": error(
    "a CONNECT or PATH_MATCH_POLICY route match lacks its matcher in extra.match",
  ),
  "unmatchable-path": warning(
    "a PATH (other than *) or PATH_SEPARATED_PREFIX route match does not start with /: no request path matches it",
  ),
  "invalid-regex": error("a SAFE_REGEX route match is not a valid RE2 regular expression"),
  "incomplete-route-action": error(
    "a route lacks what its actionKind needs (cluster, weightedClusters, redirect, directResponse, or the cluster specifier or action kept in extra)",
  ),
  "invalid-direct-response": error("a direct response has no status from 200 to 599"),
  "empty-domains": error("a virtual host has no domains"),
  "invalid-domain": error(
    "a virtual host domain is empty, or holds whitespace or control characters (Envoy refuses NUL, CR and LF)",
  ),
  "invalid-envoy-json": error("Envoy's schema rejects a stored Envoy field (extra, JSON columns)"),
  "inline-secret": error(
    "a private key or another secret Envoy marks sensitive is written inline in a listener, cluster or route (it would be shown back): use an SDS secret",
  ),
  "envoy-rule": error(
    "a field breaks a constraint Envoy's protos declare (validate.rules), or a regular expression does not compile with RE2",
  ),
  "invalid-runtime-key": error(
    "a runtime key is empty, holds whitespace or control characters, or has an empty segment between dots",
  ),
  "duplicate-runtime-key": error("a runtime layer lists one key twice"),
  "vhds-virtual-host-name": error(
    'a virtual host of a route configuration with on-demand virtual hosts (VHDS) has "/" in its name',
  ),
  "invalid-runtime-value": error("a runtime value is not a string, a finite number or a boolean"),
  "invalid-certificate": error(
    "a secret's certificate chain or trusted CA is not PEM certificates that parse, or holds a private key",
  ),
  "expired-certificate": warning("a certificate in a secret is past its notAfter"),
  "missing-private-key": error("a TLS certificate secret has no private key"),
  "secret-field-for-other-type": error(
    "a secret sets a field of another secret type (a key or chain in a validation context, a CA in a TLS certificate, a value in either)",
  ),
  "missing-secret-value": error(
    "a generic secret has no value, or session ticket keys no key (or one that is not sealed)",
  ),
  "invalid-secret-value": error(
    "a generic secret is empty or above 64 KiB, or a session ticket key is not exactly 80 bytes",
  ),
  "invalid-subject-alt-name": error("a SAN to match is empty or holds whitespace"),
  // Between objects.
  "vhds-inline-route-configuration": error(
    "a listener embeds a route configuration with on-demand virtual hosts (VHDS), which needs RDS",
    true,
  ),
  "duplicate-name": error(
    "two objects of one kind, or two virtual hosts of one route configuration, share a name",
    true,
  ),
  "duplicate-domain": error(
    "two virtual hosts of one route configuration claim the same domain",
    true,
  ),
  "duplicate-eds-service-name": error(
    "two EDS clusters serve their endpoints under the same assignment name",
    true,
  ),
  "duplicate-default-node-group": error("more than one node group is the default", true),
  "listener-address-conflict": error(
    "two socket listeners that one node group receives listen on the same address and port",
    true,
  ),
  "dangling-cluster-reference": error(
    "a route, a filter (tcp_proxy, ext_authz, a tracer, ...), a cluster or a node group names a cluster that does not exist",
    true,
  ),
  "dangling-route-configuration-reference": error(
    "a listener names a route configuration that does not exist",
    true,
  ),
  "dangling-listener-reference": error(
    "a node group names a listener that does not exist, or an endpoint an internal listener that does not exist",
    true,
  ),
  "secret-not-entitled": warning(
    "a team's cluster names a secret its team may not use (neither its own nor shared with it): no node gets the secret for it",
  ),
  "dangling-secret-reference": error(
    "a cluster or filter chain names a secret (tlsSecretName, or an SDS secret over ADS in its TLS context) that does not exist",
    true,
  ),
  "secret-type-mismatch": error(
    "a field names a secret of another kind than it takes: a filter chain a secret that is not a TLS certificate, a cluster one that is not a validation context, session_ticket_keys_sds_secret_config one that is not session ticket keys, an OAuth2 or credential injector secret one that is not a generic secret",
    true,
  ),
  "node-group-missing-cluster": error(
    "a node group receives a listener, route or cluster that refers to a cluster (or an internal listener) the group does not receive",
    true,
  ),
  "response-too-large": error(
    "a node group would be sent an xDS response over its message limit that cannot be split: all of its listeners or clusters (full-state in SotW), or one resource",
    true,
  ),
  "invalid-max-response-bytes": error(
    "a node group's maxResponseBytes is not a whole number of bytes from 16 KiB to 2^31 - 1",
  ),
  // Warnings: publishable, but probably not what was meant.
  "cluster-without-endpoints": warning("a cluster has no endpoints: requests routed to it fail"),
  "unvalidated-extension": warning(
    "an extension of a type Switchyard has no schema for is sent as written (a TypedStruct), unchecked",
  ),
  "ignored-route-action-field": warning("a route sets a field its actionKind ignores"),
  "literal-wildcard-domain": warning(
    'a virtual host domain has a "*" that Envoy matches as the character (in the middle, or a second one)',
  ),
  "total-weight-mismatch": warning(
    "a weighted route's deprecated total_weight differs from the sum of its weights (ignored by current Envoy; older Envoy and gRPC C-core refuse it)",
  ),
  // Proxyless gRPC (@grpc/grpc-js-xds), only for what an api_listener reaches. Those a client
  // NACKs are predicted rejections (`rejectedBy: "grpc"`); grpc-locality-weight is not: the
  // client takes the assignment and drops the locality.
  "grpc-unsupported-http-filter": rejection(
    "grpc",
    "a proxyless gRPC client would reject an HTTP filter",
    true,
  ),
  "grpc-unsupported-route-action": rejection(
    "grpc",
    "a proxyless gRPC client would reject a REDIRECT or DIRECT_RESPONSE route",
    true,
  ),
  "grpc-unsupported-cluster-type": rejection(
    "grpc",
    "a proxyless gRPC client would reject a STATIC or STRICT_DNS cluster",
    true,
  ),
  "grpc-unsupported-lb-policy": rejection(
    "grpc",
    "a proxyless gRPC client would reject an lb policy other than ROUND_ROBIN or RING_HASH",
    true,
  ),
  "grpc-unsupported-tls": rejection(
    "grpc",
    "a proxyless gRPC client would reject a cluster's SDS TLS context",
    true,
  ),
  "grpc-retry-policy": rejection(
    "grpc",
    "a proxyless gRPC client would reject a retry policy of num_retries 0 (gRFC A44)",
    true,
  ),
  "grpc-locality-weight": warning(
    "a proxyless gRPC client would ignore a locality without a weight, and its endpoints",
    true,
  ),
  "grpc-duplicate-locality": rejection(
    "grpc",
    "a proxyless gRPC client would reject an assignment listing one locality and priority twice",
    true,
  ),
  "grpc-duplicate-endpoint": rejection(
    "grpc",
    "a proxyless gRPC client would reject an assignment listing one address and port twice",
    true,
  ),
  "grpc-priority-gap": rejection(
    "grpc",
    "a proxyless gRPC client would reject an assignment whose locality priorities skip a level",
    true,
  ),
} as const satisfies Record<string, CodeInfo>;

export type ValidationCode = keyof typeof VALIDATION_CODES;

/** Which clients would NACK what an issue of `code` is about; undefined when none would. */
export function rejectedBy(code: ValidationCode): RejectingClient | undefined {
  return (VALIDATION_CODES[code] as CodeInfo).rejectedBy;
}

/** Records issues as the checks find them; the severity comes from the code. */
export class IssueList {
  readonly #issues: ValidationIssue[] = [];

  add(code: ValidationCode, path: string, message: string, hint?: string): void {
    const severity = VALIDATION_CODES[code].severity;
    this.#issues.push(
      hint === undefined
        ? { severity, code, path, message }
        : { severity, code, path, message, hint },
    );
  }

  /** The issues so far, in the order found. */
  get found(): readonly ValidationIssue[] {
    return this.#issues;
  }

  report(): ValidationReport {
    const errors = this.#issues.filter((issue) => issue.severity === "error");
    const warnings = this.#issues.filter((issue) => issue.severity === "warning");
    return { issues: [...errors, ...warnings], ok: errors.length === 0 };
  }
}
