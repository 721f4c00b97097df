/** A word for a POSIX shell: as is when it is plain, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_./:@%+=,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

export interface BootstrapTarget {
  readonly id: string;
  readonly cluster: string;
  /** e.g. "ads-sotw", "ads-delta", "cds-sotw". */
  readonly variant: string;
  /** e.g. "envoy", "grpc-node-js". */
  readonly userAgentName: string;
  /** The authority of the xdstp:// names the node holds its listeners by, if it does. */
  readonly xdstpAuthority?: string | undefined;
  /** Where proxies reach the xDS port, as the server says (WhoAmI's ServerInfo), once known. */
  readonly xdsAddress?: string | undefined;
}

/**
 * The authority of the first xdstp:// name in `names` (a node's held resource names), or
 * undefined when it holds none by xdstp:// names.
 */
export function xdstpAuthorityIn(names: Iterable<string>): string | undefined {
  for (const name of names) {
    const authority = /^xdstp:\/\/([^/]+)\//.exec(name)?.[1];
    if (authority !== undefined) return authority;
  }
  return undefined;
}

/**
 * The `switchyard bootstrap` command that prints a bootstrap for this node: a gRPC one for a gRPC
 * client (its user agent starts with "grpc"), an Envoy one otherwise, over Delta when the node
 * last spoke Delta. The xDS address is the server's own answer (`serve --advertise-xds-address`,
 * else its xDS bind address and port), so the command is right wherever it is run; until the
 * answer is in, it is left out, and the CLI asks the server itself. A gRPC client that holds its
 * listener by an xdstp:// name gets the federation bootstrap for that authority.
 */
export function bootstrapCommand(node: BootstrapTarget): string {
  const grpc = node.userAgentName.toLowerCase().startsWith("grpc");
  const words = ["npx", "switchyard", "bootstrap", "--node-id", shellQuote(node.id)];
  if (node.cluster !== "") words.push("--cluster", shellQuote(node.cluster));
  if (grpc) {
    words.push("--grpc");
    // A federated gRPC client (its listener held by an xdstp:// name) keeps its authority.
    if (node.xdstpAuthority) words.push("--xdstp-authority", shellQuote(node.xdstpAuthority));
  } else if (node.variant.includes("delta")) words.push("--delta");
  if (node.xdsAddress) words.push("--xds-address", shellQuote(node.xdsAddress));
  return words.join(" ");
}
