/**
 * Resource names as file names (file delivery, and the bootstraps that point Envoy at those
 * files). Apart from file-delivery.ts so that the CLI loads it without the Envoy protos.
 */
import { createHash } from "node:crypto";

/**
 * The longest file name `fileNameOf` gives. A file system takes 255 bytes per name (NAME_MAX);
 * the writer adds an extension and, while it writes, a temporary prefix and suffix (~25 bytes).
 */
export const MAX_FILE_NAME = 160;

/**
 * A resource name as a file name: no "/" or other separators, never "." or "..", at most
 * MAX_FILE_NAME bytes. A longer one (a 250-character cluster name encodes to more than a file
 * system takes) keeps its readable start and ends in "+" and a hash of the whole name: "+" never
 * appears in encodeURIComponent's output, so such a name cannot collide with a short one.
 */
export function fileNameOf(name: string): string {
  const encoded = encodeURIComponent(name);
  if (encoded === "." || encoded === "..") return encoded.replaceAll(".", "%2E");
  if (encoded.length <= MAX_FILE_NAME) return encoded;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 32);
  // Cut before an escape ("%XY") rather than through it, so the start still decodes.
  const start = encoded.slice(0, MAX_FILE_NAME - hash.length - 1).replace(/%[0-9A-F]?$/, "");
  return `${start}+${hash}`;
}
