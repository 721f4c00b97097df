/**
 * `--type` of `apply -f` and `diff -f`: the type of the resources the files give without "@type"
 * (ImportRequest.resource_type), as tools write one type to a file: Envoy Gateway's translator
 * writes `listeners.yaml`, `NAME.clusters.yaml`, ...; `istioctl proxy-config cluster -o json`
 * prints a list of clusters. A file whose name says its type (resourceListTypeOfFile) is read as
 * that type, each of its documents (ImportRequest.document_types); `--type` is the type of the
 * others, and contradicting a file's name is refused rather than guessed at.
 */
import * as path from "node:path";
import { EnvoyResourceType } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  RESOURCE_LIST_TYPE_NAMES,
  RESOURCE_LIST_TYPES,
  type ResourceListType,
  resourceListTypeOfFile,
} from "@switchyard/snapshot";
import { Parser } from "yaml";
import type { ApplySource } from "./apply-sources.js";
import { CliError } from "./client.js";

const ENUM: Readonly<Record<ResourceListType, EnvoyResourceType>> = {
  listeners: EnvoyResourceType.LISTENERS,
  clusters: EnvoyResourceType.CLUSTERS,
  routes: EnvoyResourceType.ROUTES,
  endpoints: EnvoyResourceType.ENDPOINTS,
  secrets: EnvoyResourceType.SECRETS,
};

/** `--type`'s value, checked: one of the types, case aside. */
export function parseTypeFlag(value: string | undefined): ResourceListType | undefined {
  if (value === undefined) return undefined;
  const type = value.toLowerCase();
  if (type in RESOURCE_LIST_TYPES) return type as ResourceListType;
  throw new CliError(`--type "${value}": use ${RESOURCE_LIST_TYPE_NAMES}`);
}

/** The line (from 1) each YAML document of `content` starts at, in order. */
function documentLines(content: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let counted = 0;
  for (const token of new Parser().parse(content)) {
    if (token.type !== "document") continue;
    for (; counted < token.offset; counted++) if (content.charCodeAt(counted) === 10) line++;
    lines.push(line);
  }
  return lines;
}

/**
 * What to send as resource_type and document_types for `sources` joined into `content`
 * (joinSources: `sourceOf` tells which source a line is in).
 */
export function importTypesOf(
  sources: readonly ApplySource[],
  content: string,
  sourceOf: (line: number) => number | undefined,
  flag: ResourceListType | undefined,
): {
  readonly resourceType?: EnvoyResourceType;
  readonly documentTypes?: { [position: number]: EnvoyResourceType };
} {
  const named = sources.map((source) =>
    source.name === "stdin" ? undefined : resourceListTypeOfFile(path.basename(source.name)),
  );
  for (const [i, type] of named.entries()) {
    if (type !== undefined && flag !== undefined && type !== flag) {
      throw new CliError(
        `${sources[i]?.name}: its name says it holds ${type}, but --type says ${flag}: rename the file or leave out --type`,
      );
    }
  }
  const all = flag === undefined ? {} : { resourceType: ENUM[flag] };
  if (named.every((type) => type === undefined)) return all;
  if (sources.length === 1) return { resourceType: ENUM[named[0] as ResourceListType] };
  const documentTypes: { [position: number]: EnvoyResourceType } = {};
  for (const [position, line] of documentLines(content).entries()) {
    const source = sourceOf(line);
    const type = source === undefined ? undefined : named[source];
    if (type !== undefined) documentTypes[position] = ENUM[type];
  }
  return { ...all, documentTypes };
}
