/**
 * Which resources of a response a NACK rejected, read from its `error_detail`.
 *
 * Clients accept the valid resources of a response and reject only the invalid ones, naming them:
 * gRPC (gRFC A46, "xDS NACK Semantics Improvement") writes
 * `xDS response validation errors: [resource index 0: svc-a: INVALID_ARGUMENT: ...]` (C-core) or
 * `[resource index 0: Cluster message validation failed: ...]` (grpc-js-xds, which gives the index
 * of the resource in the response only); Envoy writes
 * `Error adding/updating cluster(s) svc-a: ...` (CDS), `Error adding/updating listener(s) edge:
 * ...` (LDS), and its RDS and EDS subscriptions take one resource each. The xDS protocol page
 * ("ACK and NACK semantics") leaves the text to the client, so names are found as whole words: a
 * name counts where it is delimited by the start or end of the text, white space, a colon, a
 * comma, brackets or quotes, so that "svc" is not read inside "svc-a".
 */

/** Characters that may delimit a resource name in a client's error text. */
const DELIMITERS = new Set([" ", "\t", "\n", ":", ",", "[", "]", "(", ")", "{", "}", "'", '"']);

function delimited(text: string, start: number, end: number): boolean {
  const before = start === 0 || DELIMITERS.has(text[start - 1] ?? "");
  const after = end === text.length || DELIMITERS.has(text[end] ?? "");
  return before && after;
}

/** Whether `text` names `name` as a whole word. */
function names(text: string, name: string): boolean {
  if (name === "") return false;
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
    if (delimited(text, at, at + name.length)) return true;
  }
  return false;
}

const RESOURCE_INDEX = /resource index (\d+):/g;

/**
 * The names among `sent` (the resources of the NACKed response, in the response's order) that
 * `errorDetail` names, or points at by gRPC's "resource index N"; undefined when it names none of
 * them, and the whole response must be taken as rejected.
 */
export function rejectedNames(
  errorDetail: string,
  sent: readonly string[],
): ReadonlySet<string> | undefined {
  const rejected = new Set<string>();
  for (const [, index] of errorDetail.matchAll(RESOURCE_INDEX)) {
    const name = sent[Number(index)];
    if (name !== undefined) rejected.add(name);
  }
  for (const name of sent) if (names(errorDetail, name)) rejected.add(name);
  return rejected.size === 0 ? undefined : rejected;
}
