import { Code, ConnectError } from "@connectrpc/connect";
import { truncateUtf8 } from "@switchyard/snapshot";
import type { LoadRow } from "@switchyard/status";
import { CLIENT_TEXT_LIMITS } from "@switchyard/xds";

/**
 * What a load report names of its own, bounded where LRS keeps it (lrs-service.ts): the cluster
 * is one the node was asked for (so its name is the config's), but the node id, the localities
 * and the endpoint addresses are the proxy's text, stored in load rows and served by GetLoad and
 * /metrics. As on the xDS streams (packages/xds client-bounds.ts): a node id over 1 KiB is
 * refused, since it names the node; locality parts and endpoints are cut to 1 KiB with the marker.
 * Pinned by test/load-reporting.e2e.spec.ts ("a report's own text is bounded").
 */

/** As MAX_NODE_ID_BYTES on the xDS streams. */
export const LRS_NODE_ID_MAX_BYTES = 1024;

/** The first request's node id, checked: InvalidArgument naming node.id when too long. */
export function checkedNodeId(id: string): string {
  const bytes = Buffer.byteLength(id, "utf8");
  if (bytes > LRS_NODE_ID_MAX_BYTES)
    throw new ConnectError(
      `node.id is ${bytes} bytes long, more than the ${LRS_NODE_ID_MAX_BYTES} accepted: a node id names one proxy in load and status, keep it short`,
      Code.InvalidArgument,
    );
  return id;
}

const part = (text: string) => truncateUtf8(text, CLIENT_TEXT_LIMITS.nodeFieldBytes);

/** `row` with its locality parts and endpoint within CLIENT_TEXT_LIMITS.nodeFieldBytes each. */
export function boundedLoadRow(row: LoadRow): LoadRow {
  const bounded = {
    ...row,
    region: part(row.region),
    zone: part(row.zone),
    subZone: part(row.subZone),
    endpoint: part(row.endpoint),
  };
  return bounded.region === row.region &&
    bounded.zone === row.zone &&
    bounded.subZone === row.subZone &&
    bounded.endpoint === row.endpoint
    ? row
    : bounded;
}
