/**
 * An Envoy address (envoy.config.core.v3.Address) as the model stores it: one text and a port.
 *
 * Envoy's Address is a oneof of three kinds, and the model's `address` text says which, in the
 * URL forms Envoy itself prints for them (its admin output and logs):
 *   - a socket address: an IP literal or a host name, with the port in its own field
 *     (`socket_address { address, port_value }`);
 *   - `unix://PATH`: a Unix domain socket (`pipe { path }`), `unix://@NAME` for Linux's abstract
 *     namespace; no port;
 *   - `envoy://LISTENER`: an internal listener of the same proxy (`envoy_internal_address
 *     { server_listener_name }`), reached without a socket; no port.
 * The kind's other fields (`protocol`, `ipv4_compat`, a pipe's `mode`, an internal address's
 * `endpoint_id`, ...) are kept in the owner's `extra` under the same oneof member, as the rest of
 * the unmodelled fields are.
 *
 * A text can never be two kinds: a host name holds no ":" and an IPv6 literal holds no "/".
 */
import type { JsonObject, JsonValue } from "../model.js";

export const PIPE_PREFIX = "unix://";
export const INTERNAL_PREFIX = "envoy://";

export type AddressKind = "socket" | "pipe" | "internal";

export function addressKind(address: string): AddressKind {
  if (address.startsWith(PIPE_PREFIX)) return "pipe";
  if (address.startsWith(INTERNAL_PREFIX)) return "internal";
  return "socket";
}

/** The Address oneof member (proto3 JSON name) that holds each kind. */
const MEMBER: Readonly<Record<AddressKind, string>> = {
  socket: "socketAddress",
  pipe: "pipe",
  internal: "envoyInternalAddress",
};

/** The pipe path or internal listener name a text names: what follows its prefix. */
export function addressTarget(address: string): string {
  const kind = addressKind(address);
  return kind === "pipe"
    ? address.slice(PIPE_PREFIX.length)
    : kind === "internal"
      ? address.slice(INTERNAL_PREFIX.length)
      : address;
}

function objectOrEmpty(value: JsonValue | undefined): JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : {};
}

/**
 * The Address JSON of `address` and `port`, over the kind's unmodelled fields that `extra` (an
 * Address JSON holding only those) keeps.
 */
export function addressJson(
  extra: JsonValue | undefined,
  address: string,
  port: number,
): JsonObject {
  const kind = addressKind(address);
  const kept = objectOrEmpty(objectOrEmpty(extra)[MEMBER[kind]]);
  switch (kind) {
    case "pipe":
      return { pipe: { ...kept, path: addressTarget(address) } };
    case "internal":
      return { envoyInternalAddress: { ...kept, serverListenerName: addressTarget(address) } };
    case "socket":
      return { socketAddress: { ...kept, address, portValue: port } };
  }
}

/** What `addressFrom` reads from an Address JSON. */
export interface AddressParts {
  readonly address: string;
  /** The socket address's port; null for a pipe or an internal address, which have none. */
  readonly port: number | null;
  /** The kind's unmodelled fields, as an Address JSON; undefined when there are none. */
  readonly extra: JsonObject | undefined;
}

/**
 * An Address JSON (normalized proto3 JSON) as the model's text, port and kept fields, or the
 * reason it cannot be stored: no address at all, or a named port (resolved only by a custom
 * resolver, which Switchyard's model does not name).
 */
export function addressFrom(
  json: JsonValue | undefined,
): AddressParts | { readonly problem: string } {
  const value = objectOrEmpty(json);
  const rest = (member: JsonObject, modelled: readonly string[]): JsonObject | undefined => {
    const kept = Object.fromEntries(
      Object.entries(member).filter(([key]) => !modelled.includes(key)),
    );
    return Object.keys(kept).length > 0 ? kept : undefined;
  };
  if (typeof value.pipe === "object" && value.pipe !== null) {
    const pipe = objectOrEmpty(value.pipe);
    const kept = rest(pipe, ["path"]);
    return {
      address: `${PIPE_PREFIX}${typeof pipe.path === "string" ? pipe.path : ""}`,
      port: null,
      extra: kept ? { pipe: kept } : undefined,
    };
  }
  if (typeof value.envoyInternalAddress === "object" && value.envoyInternalAddress !== null) {
    const internal = objectOrEmpty(value.envoyInternalAddress);
    const name = internal.serverListenerName;
    const kept = rest(internal, ["serverListenerName"]);
    return {
      address: `${INTERNAL_PREFIX}${typeof name === "string" ? name : ""}`,
      port: null,
      extra: kept ? { envoyInternalAddress: kept } : undefined,
    };
  }
  if (typeof value.socketAddress === "object" && value.socketAddress !== null) {
    const socket = objectOrEmpty(value.socketAddress);
    if (socket.namedPort !== undefined) {
      return { problem: "named_port cannot be stored: give port_value" };
    }
    const kept = rest(socket, ["address", "portValue"]);
    return {
      address: typeof socket.address === "string" ? socket.address : "",
      port: typeof socket.portValue === "number" ? socket.portValue : 0,
      extra: kept ? { socketAddress: kept } : undefined,
    };
  }
  return {
    problem: "the address is empty: give a socket_address, a pipe or an envoy_internal_address",
  };
}

/** `address` and `port` as people read them: `10.0.0.1:80`, `[::1]:80`, `unix:///run/x.sock`. */
export function formatAddress(address: string, port: number | null): string {
  if (addressKind(address) !== "socket" || port === null) return address;
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}
