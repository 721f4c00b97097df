/**
 * `switchyard endpoints set|add|remove CLUSTER ADDR:PORT...` (or unix://PATH, envoy://LISTENER) and
 * `endpoints get CLUSTER`:
 * endpoint registration for deploy scripts (ConfigService.SetEndpoints). Each call publishes that
 * cluster's endpoints alone, on top of the latest version.
 */

import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  EndpointOperation,
  HealthStatus,
  HealthStatusSchema,
  type RegisteredEndpointSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { addressKind, addressTarget, formatAddress } from "@switchyard/snapshot";
import { CliError, type ConfigClient, formatIssue } from "./client.js";
import { changeLines, type Output, summarizeChanges, table } from "./output.js";

/** What `--health` takes: HealthStatus's values as the proto names them, lower-cased. */
const HEALTH: ReadonlyMap<string, HealthStatus> = new Map(
  HealthStatusSchema.values
    .filter((value) => value.number !== HealthStatus.UNSPECIFIED)
    .map((value) => [value.localName.toLowerCase(), value.number as HealthStatus]),
);
const HEALTH_NAMES = new Map([...HEALTH].map(([name, value]) => [value, name]));

export const OPERATIONS = {
  set: EndpointOperation.SET,
  add: EndpointOperation.ADD,
  remove: EndpointOperation.REMOVE,
} as const;

/**
 * "10.0.0.1:8080", "host.example:80" or "[::1]:8080" as an address and a port; a Unix socket
 * ("unix:///run/app.sock") or an internal listener ("envoy://NAME") as itself, with no port (0).
 */
export function parseEndpoint(text: string): { address: string; port: number } {
  const trimmed = text.trim();
  if (addressKind(trimmed) !== "socket") {
    if (addressTarget(trimmed) === "")
      throw new CliError(
        `"${text}" names no ${addressKind(trimmed) === "pipe" ? "socket path (unix:///run/app.sock)" : "internal listener (envoy://NAME)"}`,
      );
    return { address: trimmed, port: 0 };
  }
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  const address = match?.[1] ?? match?.[2];
  if (!match || address === undefined || port < 1 || port > 65_535)
    throw new CliError(
      `"${text}" is not ADDRESS:PORT (a port from 1 to 65535; an IPv6 address in brackets: [::1]:8080), unix://PATH or envoy://LISTENER`,
    );
  return { address, port };
}

function wholeNumber(text: string | undefined, what: string, min: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > 4_294_967_295)
    throw new CliError(`${what} must be a whole number from ${min}: "${text}"`);
  return value;
}

export interface EndpointOptions {
  region?: string;
  zone?: string;
  subZone?: string;
  priority?: string;
  weight?: string;
  health?: string;
  message?: string;
  /** Publish past predicted rejections (accept_warnings). */
  acceptWarnings?: boolean;
}

/**
 * A registration refused because a rollout runs in a node group it changes: the server's reason
 * (which names the rollout), and that a registration, unlike a publish, cannot abort it.
 */
function duringRollout(error: unknown, operation: string): unknown {
  const refused = ConnectError.from(error);
  if (refused.code !== Code.FailedPrecondition || !refused.rawMessage.includes("--abort-rollout"))
    return error;
  return new CliError(
    `${refused.rawMessage}\n  endpoints ${operation} cannot abort a rollout: run it again once the rollout has ended (switchyard wait, or switchyard rollout status)`,
    { cause: error },
  );
}

export async function setEndpoints(
  client: ConfigClient,
  output: Output,
  operation: keyof typeof OPERATIONS,
  cluster: string,
  addresses: readonly string[],
  options: EndpointOptions,
): Promise<void> {
  const health =
    options.health === undefined ? undefined : HEALTH.get(options.health.toLowerCase());
  if (options.health !== undefined && health === undefined)
    throw new CliError(
      `unknown health status "${options.health}": use ${[...HEALTH.keys()].join(", ")}`,
    );
  const weight = wholeNumber(options.weight, "--weight", 1);
  const priority = wholeNumber(options.priority, "--priority", 0) ?? 0;
  const endpoints: MessageInitShape<typeof RegisteredEndpointSchema>[] = addresses.map((text) => ({
    ...parseEndpoint(text),
    ...(weight === undefined ? {} : { weight }),
    healthStatus: health ?? HealthStatus.UNSPECIFIED,
    region: options.region ?? "",
    zone: options.zone ?? "",
    subZone: options.subZone ?? "",
    priority,
  }));
  const published = await client
    .setEndpoints({
      cluster,
      operation: OPERATIONS[operation],
      endpoints,
      message: options.message ?? "",
      acceptWarnings: options.acceptWarnings === true,
    })
    .catch((error: unknown) => {
      throw duringRollout(error, operation);
    });
  if (published.snapshot === undefined) {
    output.out(`cluster ${cluster}: no changes (its endpoints were already so)\n`);
    return;
  }
  output.out(`${summarizeChanges(published.changes)}\n${changeLines(published.changes)}`);
  for (const warning of published.warnings) output.out(`${formatIssue(warning)}\n`);
  output.out(`published version ${published.snapshot.version}\n`);
}

/** `switchyard endpoints get CLUSTER`: the stored endpoints, a row each, with their locality. */
export async function listEndpoints(
  client: ConfigClient,
  output: Output,
  cluster: string,
): Promise<void> {
  const stored = await client.getCluster({ name: cluster });
  const rows = stored.localities.flatMap((locality) =>
    locality.endpoints.map((endpoint) => [
      formatAddress(endpoint.address, endpoint.port),
      [locality.region, locality.zone, locality.subZone].filter((part) => part !== "").join("/") ||
        "-",
      String(locality.priority),
      endpoint.weight === undefined ? "-" : String(endpoint.weight),
      HEALTH_NAMES.get(endpoint.healthStatus) ?? "unknown",
    ]),
  );
  if (rows.length === 0) {
    output.out(`cluster ${cluster} has no endpoints\n`);
    return;
  }
  output.out(`${table(["ENDPOINT", "LOCALITY", "PRIORITY", "WEIGHT", "HEALTH"], rows)}\n`);
}
