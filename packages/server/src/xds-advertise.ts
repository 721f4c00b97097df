/**
 * The xDS address proxies should dial, as `switchyard bootstrap` and the console's bootstrap hints
 * write it (WhoAmI's ServerInfo): `serve --advertise-xds-address` when the address proxies reach
 * differs from the one the port binds (a load balancer, a container's published port), else the
 * bind address and the port really listened on.
 */
import type { XdsAuthMode } from "@switchyard/xds";

export interface XdsAdvertisement {
  /** `--advertise-xds-address` (SWITCHYARD_ADVERTISE_XDS_ADDRESS), checked by xdsAddressProblem. */
  readonly advertised?: string | undefined;
  /** The address the xDS port binds (--host). */
  readonly host: string;
  /** The port it listens on: the real one when 0 asked for a free one. */
  readonly port: number;
  /** The xDS port speaks TLS. */
  readonly tls: boolean;
  readonly auth: XdsAuthMode;
}

/** What a caller is told (switchyard.v1.ServerInfo). */
export interface XdsServerInfo {
  readonly xdsAddress: string;
  readonly xdsTls: boolean;
  readonly xdsAuth: XdsAuthMode;
}

const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
const IPV6 = /^\[[0-9A-Fa-f:.]+\]$/;

/** HOST:PORT (a host name, an IPv4 address or a bracketed IPv6 one; port 1-65535), split. */
function splitHostPort(address: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]*\]|[^:[\]]+):(\d{1,5})$/.exec(address);
  if (match?.[1] === undefined) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  if (!HOST_NAME.test(match[1]) && !IPV6.test(match[1])) return undefined;
  return { host: match[1], port };
}

/** Why `address` cannot be dialled by a proxy, or undefined when it can. */
export function xdsAddressProblem(address: string): string | undefined {
  if (splitHostPort(address) !== undefined) return undefined;
  return `"${address}" is not HOST:PORT (a host name or IP address, IPv6 in brackets, and a port 1-65535), e.g. xds.example.com:18000`;
}

const WILDCARDS = new Set(["0.0.0.0", "::", "[::]", ""]);

/**
 * The host of a Host header ("switchyard.example.com:3000", "[::1]:3000", "localhost"), or
 * undefined when it is not one. The console port answers only to IP addresses, localhost and
 * --console-hosts (console-hosts.ts), so what reaches here is a name the operator allowed.
 */
function hostOfHeader(header: string | undefined): string | undefined {
  if (header === undefined || header === "") return undefined;
  const host = /^(\[[^\]]*\]|[^:]+)(?::\d{1,5})?$/.exec(header)?.[1];
  return host !== undefined && (HOST_NAME.test(host) || IPV6.test(host)) ? host : undefined;
}

/**
 * The address proxies dial: the advertised one; else the bind address and port, where a wildcard
 * bind (0.0.0.0, ::) is named by the host the caller reached the API by (`requestHost`, its Host
 * header), or localhost without one. A loopback bind stays an IP address: Envoy's STRICT_DNS
 * resolves "localhost" to ::1 first, which a 127.0.0.1 bind does not answer.
 */
export function xdsServerInfo(
  ad: XdsAdvertisement,
  requestHost: string | undefined,
): XdsServerInfo {
  const host = WILDCARDS.has(ad.host)
    ? (hostOfHeader(requestHost) ?? "localhost")
    : ad.host.includes(":") && !ad.host.startsWith("[")
      ? `[${ad.host}]`
      : ad.host;
  return {
    xdsAddress: ad.advertised ?? `${host}:${ad.port}`,
    xdsTls: ad.tls,
    xdsAuth: ad.auth,
  };
}
