import { createHash } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";

/**
 * Client authentication and node-group entitlement on the xDS port (issue 7, "xDS side").
 *
 * - `none`: every client is served (the default, meant for a loopback-bound server).
 * - `mtls`: the connection must present a certificate that the TLS layer verified against the
 *   configured client CA. The handshake itself accepts any certificate, or none, so a refusal is
 *   a gRPC UNAUTHENTICATED with a message saying what is wrong (and is counted), not an opaque
 *   TLS alert.
 * - `token`: every call must carry `authorization: Bearer <token>` metadata whose SHA-256 is one
 *   of the configured tokens'.
 *
 * A credential names the node groups it may be served (`*`: any). A node whose id, cluster or
 * metadata selects another group is refused with PERMISSION_DENIED, never quietly served a
 * different group's config: a misconfigured proxy fails loudly (xds-auth.e2e.spec.ts).
 *
 * Pure apart from hashing: the transport hands in what it saw (`PeerCredentials`); the caller
 * owns loading credentials (a file, in packages/server).
 */

export type XdsAuthMode = "none" | "mtls" | "token";

/** Every node group: a grant of `["*"]`. */
export const ANY_NODE_GROUP = "*";

/** A bearer token: only its SHA-256 is known to the server. */
export interface XdsTokenGrant {
  /** Names the token in node status, logs and metrics ("token:<name>"); unique. */
  readonly name: string;
  /** Lower-case hex SHA-256 of the token's UTF-8 bytes. */
  readonly sha256: string;
  /** The node groups the token's holder may be served; `["*"]` for every group. */
  readonly nodeGroups: readonly string[];
}

/** Narrows what one client certificate may be served. */
export interface XdsCertificateGrant {
  /** Matched against the certificate's URI and DNS subject alternative names and its CN. */
  readonly subject: string;
  readonly nodeGroups: readonly string[];
}

/**
 * The credentials the server accepts. A certificate signed by the client CA and listed in no
 * `certificates` entry may be served every node group: the CA decides who connects, the list
 * narrows what each certificate may read.
 */
export interface XdsCredentials {
  readonly tokens: readonly XdsTokenGrant[];
  readonly certificates: readonly XdsCertificateGrant[];
}

export const NO_CREDENTIALS: XdsCredentials = { tokens: [], certificates: [] };

/** What the TLS layer made of the client's certificate. */
export type PeerCertificate =
  | { readonly t: "none" }
  | { readonly t: "untrusted"; readonly subject: string; readonly error: string }
  /** `names`: URI SANs, then DNS SANs, then the CN; the first one names the client. */
  | { readonly t: "trusted"; readonly names: readonly string[] };

/** What a connection and call present, as the transport saw them. */
export interface PeerCredentials {
  readonly certificate: PeerCertificate;
  /** The `authorization` header (gRPC metadata) of the call, if any. */
  readonly authorization: string | undefined;
}

/** Who a call authenticated as, and what it may be served. */
export type ClientIdentity =
  | { readonly t: "anonymous" }
  | {
      readonly t: "token";
      readonly name: string;
      readonly sha256: string;
      readonly nodeGroups: readonly string[];
    }
  | {
      readonly t: "certificate";
      readonly subject: string;
      readonly names: readonly string[];
      readonly nodeGroups: readonly string[];
    };

/** Why a call was refused; the `reason` label of the refusal metric. */
export type AuthRefusalReason =
  | "no_certificate"
  | "untrusted_certificate"
  | "no_token"
  | "malformed_authorization"
  | "unknown_token"
  | "revoked"
  | "node_group"
  /** SDS asked by a client that did not authenticate (auth mode none). */
  | "secrets_need_authentication";

export type Authentication =
  | { readonly t: "authenticated"; readonly identity: ClientIdentity }
  | {
      readonly t: "refused";
      readonly reason: AuthRefusalReason;
      readonly message: string;
    };

/** How an identity is shown in node status, logs and metrics; "" for anonymous. */
export function identityLabel(identity: ClientIdentity): string {
  switch (identity.t) {
    case "anonymous":
      return "";
    case "token":
      return `token:${identity.name}`;
    case "certificate":
      return `certificate:${identity.subject}`;
  }
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** The checked, indexed form of XdsCredentials. */
class CredentialIndex {
  readonly tokensByHash: ReadonlyMap<string, XdsTokenGrant>;
  readonly certificates: readonly XdsCertificateGrant[];

  constructor(credentials: XdsCredentials) {
    const byHash = new Map<string, XdsTokenGrant>();
    const names = new Set<string>();
    credentials.tokens.forEach((token, index) => {
      const where = `tokens[${index}] ("${token.name}")`;
      if (token.name === "") throw new TypeError(`tokens[${index}].name is empty`);
      if (!/^[0-9a-f]{64}$/.test(token.sha256)) {
        throw new TypeError(`${where}.sha256 must be 64 lower-case hex characters`);
      }
      if (names.has(token.name)) throw new TypeError(`${where}: the name is used twice`);
      if (byHash.has(token.sha256)) throw new TypeError(`${where}: the same token is listed twice`);
      names.add(token.name);
      byHash.set(token.sha256, token);
    });
    this.tokensByHash = byHash;
    this.certificates = credentials.certificates;
  }

  certificateGroups(names: readonly string[]): readonly string[] {
    const grants = this.certificates.filter((grant) => names.includes(grant.subject));
    return grants.length === 0 ? [ANY_NODE_GROUP] : grants.flatMap((grant) => grant.nodeGroups);
  }
}

/**
 * Authenticates calls and decides node-group entitlement, for one server. Credentials can be
 * replaced while it runs (`setCredentials`): identities are resolved again and the streams whose
 * credential went away, or no longer covers the group they are served, are ended.
 */
export class ClientAccess {
  readonly mode: XdsAuthMode;
  #index: CredentialIndex;
  readonly #streams = new Set<AccessEntry>();

  constructor(mode: XdsAuthMode, credentials: XdsCredentials = NO_CREDENTIALS) {
    this.mode = mode;
    this.#index = new CredentialIndex(credentials);
  }

  /** Who `peer` is, or why it is refused. */
  authenticate(peer: PeerCredentials): Authentication {
    switch (this.mode) {
      case "none":
        return { t: "authenticated", identity: { t: "anonymous" } };
      case "mtls":
        return this.#byCertificate(peer.certificate);
      case "token":
        return this.#byToken(peer.authorization);
    }
  }

  /**
   * Undefined when `identity` may be served `group`, else the PERMISSION_DENIED error saying so.
   */
  admit(identity: ClientIdentity, nodeId: string, group: string): ConnectError | undefined {
    if (identity.t === "anonymous") return undefined;
    const groups = identity.nodeGroups;
    if (groups.includes(ANY_NODE_GROUP) || groups.includes(group)) return undefined;
    return new ConnectError(
      `node "${nodeId}" selects node group "${group}", but its credential ${identityLabel(identity)} may be served only node group${groups.length === 1 ? "" : "s"} ${groups.map((g) => `"${g}"`).join(", ") || "(none)"}: connect with a credential for "${group}", or fix the node's id, cluster or metadata`,
      Code.PermissionDenied,
    );
  }

  /**
   * Tracks a served stream so a change of credentials reaches it: `end` is called (once) with the
   * error that ends it. Returns the handle the stream reports its group through and releases.
   */
  enter(
    identity: ClientIdentity,
    nodeId: string,
    end: (error: ConnectError, reason: AuthRefusalReason) => void,
  ): AccessEntry {
    const entry = new AccessEntry(this, identity, nodeId, end, () => this.#streams.delete(entry));
    this.#streams.add(entry);
    return entry;
  }

  /** Replaces the credentials; throws (changing nothing) when they are inconsistent. */
  setCredentials(credentials: XdsCredentials): void {
    this.#index = new CredentialIndex(credentials);
    for (const entry of [...this.#streams]) {
      const identity = this.#resolveAgain(entry.identity);
      if (identity === undefined) {
        entry.end(
          new ConnectError(
            `the credential ${identityLabel(entry.identity)} was revoked (it is no longer among the server's xDS credentials): this stream is closed`,
            Code.Unauthenticated,
          ),
          "revoked",
        );
        continue;
      }
      entry.identity = identity;
      if (entry.group === undefined) continue;
      const denied = this.admit(identity, entry.nodeId, entry.group);
      if (denied) entry.end(denied, "node_group");
    }
  }

  /** Open streams tracked (for tests and metrics). */
  get streamCount(): number {
    return this.#streams.size;
  }

  #resolveAgain(identity: ClientIdentity): ClientIdentity | undefined {
    switch (identity.t) {
      case "anonymous":
        return identity;
      case "token": {
        const grant = this.#index.tokensByHash.get(identity.sha256);
        return grant ? { ...identity, name: grant.name, nodeGroups: grant.nodeGroups } : undefined;
      }
      case "certificate":
        return { ...identity, nodeGroups: this.#index.certificateGroups(identity.names) };
    }
  }

  #byCertificate(certificate: PeerCertificate): Authentication {
    switch (certificate.t) {
      case "none":
        return {
          t: "refused",
          reason: "no_certificate",
          message:
            "this xDS server requires a client certificate (mTLS) and the connection presented none: give the client a certificate signed by the server's client CA",
        };
      case "untrusted":
        return {
          t: "refused",
          reason: "untrusted_certificate",
          message: `the client certificate${certificate.subject ? ` "${certificate.subject}"` : ""} is not trusted (${certificate.error}): it must be signed by the server's client CA`,
        };
      case "trusted": {
        const subject = certificate.names[0] ?? "";
        return {
          t: "authenticated",
          identity: {
            t: "certificate",
            subject,
            names: certificate.names,
            nodeGroups: this.#index.certificateGroups(certificate.names),
          },
        };
      }
    }
  }

  #byToken(authorization: string | undefined): Authentication {
    if (authorization === undefined || authorization === "") {
      return {
        t: "refused",
        reason: "no_token",
        message:
          'this xDS server requires a bearer token and the call carried none: send the metadata "authorization: Bearer <token>" (Envoy: initial_metadata of the xDS grpc_service)',
      };
    }
    const match = BEARER.exec(authorization);
    if (!match?.[1]) {
      return {
        t: "refused",
        reason: "malformed_authorization",
        message: 'the "authorization" metadata must be "Bearer <token>"',
      };
    }
    const grant = this.#index.tokensByHash.get(sha256Hex(match[1]));
    if (!grant) {
      return {
        t: "refused",
        reason: "unknown_token",
        message:
          "the bearer token is not one this xDS server accepts (unknown or revoked): ask the operator for a token for this node's group",
      };
    }
    return {
      t: "authenticated",
      identity: {
        t: "token",
        name: grant.name,
        sha256: grant.sha256,
        nodeGroups: grant.nodeGroups,
      },
    };
  }
}

/** One served stream as ClientAccess tracks it. */
export class AccessEntry {
  identity: ClientIdentity;
  /** The node group the stream is served; undefined until known. */
  group: string | undefined;
  #state: { t: "open" } | { t: "ended" } = { t: "open" };

  constructor(
    readonly access: ClientAccess,
    identity: ClientIdentity,
    readonly nodeId: string,
    readonly onEnd: (error: ConnectError, reason: AuthRefusalReason) => void,
    readonly release: () => void,
  ) {
    this.identity = identity;
  }

  /**
   * The stream is now served `group`: undefined when its identity allows it, else the
   * PERMISSION_DENIED error the stream must end with.
   */
  serve(group: string): ConnectError | undefined {
    this.group = group;
    return this.access.admit(this.identity, this.nodeId, group);
  }

  end(error: ConnectError, reason: AuthRefusalReason): void {
    if (this.#state.t === "ended") return;
    this.#state = { t: "ended" };
    this.release();
    this.onEnd(error, reason);
  }
}
