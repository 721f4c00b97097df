/**
 * The config commands: apply, get, delete, diff, history, rollback, discard and export of the
 * draft's and published versions' objects (publish is publish-commands.ts). How they print is in
 * output.ts. One file, at about 450 lines, because the eight share one shape (read the flags,
 * call ConfigService, print).
 */
import * as path from "node:path";
import { toJson } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  ChangeType,
  ConfigFormat,
  DiffResponseSchema,
  ImportClashAction,
  type Issue,
  ListSnapshotsResponseSchema,
  type ObjectChange,
  ResourceKind,
  Severity,
  type SnapshotInfo,
  ValidationErrorsSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { createTwoFilesPatch } from "diff";
import { stringify as toYaml } from "yaml";
import { joinSources, readApplySources } from "./apply-sources.js";
import { CliError, type ConfigClient, formatIssue, type RolloutClient } from "./client.js";
import { kindLabel, parseKind } from "./kinds.js";
import {
  changeLines,
  clashLines,
  type Output,
  outputFormat,
  summarizeChanges,
  table,
} from "./output.js";
import { NAMES_ONLY } from "./publish-commands.js";
import { printStartedRollouts } from "./publish-rollout.js";
import { importTypesOf, parseTypeFlag } from "./resource-types.js";

function patchOf(change: ObjectChange): string {
  const name = `${kindLabel[change.kind]}/${change.name}`;
  return createTwoFilesPatch(
    change.change === ChangeType.ADDED ? "/dev/null" : `a/${name}`,
    change.change === ChangeType.REMOVED ? "/dev/null" : `b/${name}`,
    change.before,
    change.after,
    undefined,
    undefined,
    { context: 3 },
  );
}

function versionArgument(value: string): bigint {
  if (!/^\d+$/.test(value) || value === "0")
    throw new CliError(`"${value}" is not a version number (see switchyard history)`);
  return BigInt(value);
}

/** `--on-clash`: what an import does with an object whose name the draft has with other content. */
export type ClashFlag = "rename" | "replace" | "skip";

export const CLASH_ACTIONS: Record<ClashFlag, ImportClashAction> = {
  rename: ImportClashAction.RENAME,
  replace: ImportClashAction.REPLACE,
  skip: ImportClashAction.SKIP,
};

/**
 * `switchyard apply -f PATH... [-R] [--draft] [--prune [--selector S]]`: the files (directories'
 * .yaml, .yml and .json files; `-` for standard input) as one set. Without --draft they are
 * applied on top of the latest version and published in one server-side transaction
 * (ConfigService.Apply): a refusal changes nothing, and someone's pending draft is left as it is
 * unless it touches the same objects. With --draft they are only imported into the draft.
 *
 * With --prune, what the files do not hold is deleted (within the selector, and a member's team):
 * a dry run lists the deletions first, and the apply is refused if it would delete anything else.
 * A version that goes out as a rollout (the admins' default plan) is followed by its rollouts'
 * lines; --abort-rollout supersedes a rollout running in a node group it changes.
 */
export async function apply(
  client: ConfigClient,
  output: Output,
  files: readonly string[],
  options: {
    draft?: boolean;
    recursive?: boolean;
    message?: string;
    prune?: boolean;
    selector?: string;
    /** Publish although route tests fail, for this reason (admins). */
    overrideRouteTests?: string;
    /** The type of the resources without "@type" (resource-types.ts). */
    type?: string;
    /** End a rollout running in a node group the version changes, instead of being refused. */
    abortRollout?: boolean;
    /**
     * With `draft`: what to do with an object whose name the draft has with other content
     * (`switchyard import --on-clash`); `apply --draft` replaces (same name, same object).
     */
    onClash?: ClashFlag;
    /** Publish past predicted rejections (accept_warnings). */
    acceptWarnings?: boolean;
  },
  rollouts?: RolloutClient,
): Promise<void> {
  if (options.selector !== undefined && !options.prune)
    throw new CliError("--selector narrows what --prune deletes: add --prune");
  if (options.abortRollout && options.draft)
    throw new CliError("--abort-rollout: --draft publishes nothing, so there is nothing to abort");
  if (options.acceptWarnings && options.draft)
    throw new CliError(
      "--accept-warnings: --draft publishes nothing, so there is nothing to accept",
    );
  const type = parseTypeFlag(options.type);
  const sources = readApplySources(files, options.recursive === true);
  const { content, locate, sourceOf } = joinSources(sources);
  const filename =
    sources.length === 1
      ? sources[0]?.name === "stdin"
        ? "stdin"
        : path.basename(sources[0]?.name ?? "")
      : `${sources.length} files`;
  const sent = {
    content,
    filename: sources.length === 1 ? filename : "apply.yaml",
    ...importTypesOf(sources, content, sourceOf, type),
  };
  const located = <T>(call: Promise<T>): Promise<T> =>
    call.catch((error: unknown) => {
      throw withLocations(error, locate);
    });
  const selector = options.selector ?? "";
  /** The deletions a dry run finds, printed before the apply that is held to them. */
  const listPrune = async (
    dryRun: () => Promise<{ changes: readonly ObjectChange[] }>,
  ): Promise<{
    prune?: {
      selector: string;
      listed: boolean;
      deletions: { kind: ResourceKind; name: string }[];
    };
  }> => {
    if (!options.prune) return {};
    const deletions = (await located(dryRun())).changes.filter(
      (change) => change.change === ChangeType.REMOVED,
    );
    output.out(
      deletions.length === 0
        ? `${filename}: nothing to prune${selector ? ` (selector ${selector})` : ""}\n`
        : `${filename}: pruning ${deletions.length} object${deletions.length === 1 ? "" : "s"} the files do not hold${selector ? ` (selector ${selector})` : ""}:\n${changeLines(deletions)}`,
    );
    return {
      prune: {
        selector,
        listed: true,
        deletions: deletions.map(({ kind, name }) => ({ kind, name })),
      },
    };
  };
  if (options.draft) {
    const merged = { ...sent, onClash: CLASH_ACTIONS[options.onClash ?? "replace"] };
    const pruning = await listPrune(() =>
      client.import({ ...merged, dryRun: true, prune: { selector } }),
    );
    const imported = await located(client.import({ ...merged, ...pruning }));
    for (const issue of imported.issues) output.out(`${locatedIssue(issue, locate)}\n`);
    output.out(clashLines(imported.clashes));
    if (imported.changes.length === 0) {
      output.out(`${filename}: no changes (already up to date)\n`);
      return;
    }
    output.out(
      `${filename}: ${summarizeChanges(imported.changes)}\n${changeLines(imported.changes)}`,
    );
    output.out(
      "saved to the draft; review with `switchyard diff`, then `switchyard publish -m MESSAGE`\n",
    );
    return;
  }
  const pruning = await listPrune(() =>
    client.apply({
      ...sent,
      dryRun: true,
      prune: { selector },
      acceptWarnings: options.acceptWarnings === true,
      bodies: NAMES_ONLY,
    }),
  );
  const published = await located(
    client.apply({
      ...sent,
      ...pruning,
      message: options.message ?? `apply ${filename}`,
      routeTestOverride: options.overrideRouteTests ?? "",
      abortRollout: options.abortRollout === true,
      acceptWarnings: options.acceptWarnings === true,
      bodies: NAMES_ONLY,
    }),
  );
  if (published.snapshot === undefined) {
    output.out(`${filename}: no changes (the latest version already holds it)\n`);
    return;
  }
  output.out(
    `${filename}: ${summarizeChanges(published.changes)}\n${changeLines(published.changes)}`,
  );
  // What the files replaced that objects outside them use, then the import's notes and
  // validation's warnings (the notes are at lines of the files).
  output.out(clashLines(published.outside));
  for (const warning of published.warnings) output.out(`${locatedIssue(warning, locate)}\n`);
  output.out(`published version ${published.snapshot.version}\n`);
  await printStartedRollouts(output, published.rolloutIds, rollouts);
}

/** An issue as the CLI prints it, with the file and line it is at when the server says. */
function locatedIssue(issue: Issue, locate: (line: number) => string | undefined): string {
  const at = locate(issue.line);
  return `${formatIssue(issue)}${at ? ` [${at}${issue.column > 0 ? `:${issue.column}` : ""}]` : ""}`;
}

/** An import refused with issues at lines of the joined text: each issue told its file and line. */
function withLocations(error: unknown, locate: (line: number) => string | undefined): unknown {
  const connectError = ConnectError.from(error);
  const details = connectError.findDetails(ValidationErrorsSchema);
  if (details.length === 0) return error;
  const lines = details.flatMap((detail) =>
    detail.issues.map((issue) => locatedIssue(issue, locate)),
  );
  return new CliError(`${connectError.rawMessage}\n${lines.join("\n")}`);
}

export async function get(
  client: ConfigClient,
  output: Output,
  kindName: string,
  name: string | undefined,
  options: { output?: string },
): Promise<void> {
  const kind = parseKind(kindName);
  // Secrets have their own forms, never with a private key: the command tree sends them to
  // secret-commands.ts getSecrets.
  if (kind === ResourceKind.SECRET) throw new Error("get: secrets go to getSecrets");
  if (name === undefined) {
    const format = outputFormat(options.output, ["table", "json", "yaml"], "table");
    const { resources } = await client.listResources({ kind });
    if (format !== "table") {
      const list = resources.map((r) => ({
        name: r.name,
        description: r.description,
        references: r.references,
      }));
      output.out(format === "json" ? `${JSON.stringify(list, null, 2)}\n` : toYaml(list));
      return;
    }
    if (resources.length === 0) {
      output.out(`no ${kindLabel[kind]}s stored\n`);
      return;
    }
    output.out(
      table(
        ["NAME", "DESCRIPTION", "REFERENCES"],
        resources.map((r) => [r.name, r.description, r.references.join(", ")]),
      ),
    );
    return;
  }
  const format = outputFormat(options.output, ["yaml", "json"], "yaml");
  const { resource } = await client.getEnvoyResource({ kind, name });
  output.out(
    format === "json"
      ? `${JSON.stringify(resource, null, 2)}\n`
      : toYaml(resource, { lineWidth: 0 }),
  );
}

export async function remove(
  client: ConfigClient,
  output: Output,
  kindName: string,
  name: string,
): Promise<void> {
  const kind = parseKind(kindName);
  const request = { name };
  switch (kind) {
    case ResourceKind.CLUSTER:
      await client.deleteCluster(request);
      break;
    case ResourceKind.LISTENER:
      await client.deleteListener(request);
      break;
    case ResourceKind.ROUTE_CONFIGURATION:
      await client.deleteRouteConfiguration(request);
      break;
    case ResourceKind.RUNTIME_LAYER:
      await client.deleteRuntimeLayer(request);
      break;
    case ResourceKind.SECRET:
      await client.deleteSecret(request);
      break;
    default:
      await client.deleteNodeGroup(request);
  }
  output.out(
    `deleted ${kindLabel[kind]} ${name} from the draft; publish to apply it (switchyard publish -m MESSAGE)\n`,
  );
}

export async function showDiff(
  client: ConfigClient,
  output: Output,
  options: { from?: string; to?: string; output?: string },
): Promise<void> {
  const format = outputFormat(options.output, ["patch", "json"], "patch");
  const result = await client.diff({
    fromVersion: options.from ? versionArgument(options.from) : 0n,
    toVersion: options.to ? versionArgument(options.to) : 0n,
  });
  if (format === "json") {
    output.out(`${JSON.stringify(toJson(DiffResponseSchema, result), null, 2)}\n`);
    return;
  }
  const target = result.toVersion === 0n ? "the draft" : `version ${result.toVersion}`;
  if (result.changes.length === 0) {
    output.out(`no changes between version ${result.fromVersion} and ${target}\n`);
    return;
  }
  output.out(`version ${result.fromVersion} → ${target}: ${summarizeChanges(result.changes)}\n\n`);
  for (const change of result.changes) output.out(patchOf(change));
}

/**
 * The exit codes of `switchyard diff -f`, for CI (README, "switchyard diff -f exit codes"). One
 * run gives the first that applies, from the last: a failed run, errors, a predicted rejection,
 * a warning under --strict, a difference, none.
 */
export const DIFF_EXIT = {
  /** Applying the files would change nothing. */
  same: 0,
  /** It would change the draft, and a publish of the result would go through. */
  differs: 1,
  /** The files cannot be applied, or a publish of the result would be refused for an error. */
  errors: 2,
  /**
   * A publish of the result would be refused because validation predicts that some node group's
   * clients will reject it (a rejection the latest version does not have): it needs
   * --accept-warnings.
   */
  rejected: 3,
  /** --strict, and there is a warning (any, a predicted rejection already published included). */
  warnings: 4,
  /** The command itself failed: no server, bad credentials, an unreadable file, a bad flag. */
  failed: 5,
} as const;

/**
 * `switchyard diff -f PATH... [-R] [--strict]`: what applying the files would change in the
 * draft, and every issue the import and a publish of the result would raise, computed by the
 * server without changing anything (Import with dry_run and validate). Returns the exit code
 * (DIFF_EXIT), as diff(1) does for 0 and 1.
 */
export async function diffFiles(
  client: ConfigClient,
  output: Output,
  files: readonly string[],
  options: {
    recursive?: boolean;
    prune?: boolean;
    selector?: string;
    type?: string;
    /** `switchyard import --dry-run --on-clash`; diff -f previews an apply, which replaces. */
    onClash?: ClashFlag;
    strict?: boolean;
  },
): Promise<(typeof DIFF_EXIT)[keyof typeof DIFF_EXIT]> {
  if (options.selector !== undefined && !options.prune)
    throw new CliError("--selector narrows what --prune deletes: add --prune");
  const type = parseTypeFlag(options.type);
  const sources = readApplySources(files, options.recursive === true);
  const { content, locate, sourceOf } = joinSources(sources);
  const name = sources.length === 1 ? (sources[0]?.name ?? "") : `${sources.length} files`;
  let response: Awaited<ReturnType<ConfigClient["import"]>>;
  try {
    response = await client.import({
      content,
      filename: sources.length === 1 ? path.basename(name) : "apply.yaml",
      ...importTypesOf(sources, content, sourceOf, type),
      dryRun: true,
      validate: true,
      onClash: CLASH_ACTIONS[options.onClash ?? "replace"],
      ...(options.prune ? { prune: { selector: options.selector ?? "" } } : {}),
    });
  } catch (error) {
    const connectError = ConnectError.from(error);
    if (connectError.code !== Code.InvalidArgument) throw error;
    output.out(`${name}: cannot be applied: ${connectError.rawMessage}\n`);
    for (const detail of connectError.findDetails(ValidationErrorsSchema))
      for (const issue of detail.issues) output.out(`${locatedIssue(issue, locate)}\n`);
    return DIFF_EXIT.errors;
  }
  const errors = response.issues.filter((issue) => issue.severity === Severity.ERROR);
  output.out(
    response.changes.length === 0
      ? `${name}: no changes (the draft already holds it)\n`
      : `${name}: ${summarizeChanges(response.changes)}\n\n`,
  );
  for (const change of response.changes) output.out(patchOf(change));
  output.out(clashLines(response.clashes));
  for (const issue of response.issues) output.out(`${locatedIssue(issue, locate)}\n`);
  if (errors.length > 0) return DIFF_EXIT.errors;
  // Predicted rejections the latest version lacks: a publish would be refused without
  // --accept-warnings (the server's rejection gate); one it has too refuses nothing.
  const rejected = response.issues.filter(
    (issue) => issue.rejection !== undefined && !issue.rejection.alreadyPublished,
  );
  if (rejected.length > 0) {
    output.out(
      `${name}: would be rejected: validation predicts that clients of node group(s) ${[
        ...new Set(rejected.flatMap((issue) => issue.rejection?.nodeGroups ?? [])),
      ].join(
        ", ",
      )} will reject ${rejected.length === 1 ? "this" : `these ${rejected.length}`} (a publish needs --accept-warnings)\n`,
    );
    return DIFF_EXIT.rejected;
  }
  if (options.strict && response.issues.some((issue) => issue.severity === Severity.WARNING)) {
    output.out(`${name}: --strict: warnings fail\n`);
    return DIFF_EXIT.warnings;
  }
  return response.changes.length > 0 ? DIFF_EXIT.differs : DIFF_EXIT.same;
}

function when(info: SnapshotInfo): string {
  return info.createTime
    ? timestampDate(info.createTime).toISOString().replace("T", " ").slice(0, 19)
    : "";
}

export async function history(
  client: ConfigClient,
  output: Output,
  options: { limit?: string; output?: string },
): Promise<void> {
  const format = outputFormat(options.output, ["table", "json"], "table");
  const limit = options.limit === undefined ? 20 : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new CliError(`--limit must be a positive number, got "${options.limit}"`);
  const listed = await client.listSnapshots({ limit });
  if (format === "json") {
    output.out(`${JSON.stringify(toJson(ListSnapshotsResponseSchema, listed), null, 2)}\n`);
    return;
  }
  const { snapshots } = listed;
  if (snapshots.length === 0) {
    output.out("nothing published yet\n");
    return;
  }
  output.out(
    table(
      ["VERSION", "PUBLISHED (UTC)", "AUTHOR", "CHANGES", "MESSAGE"],
      snapshots.map((s) => [
        String(s.version),
        when(s),
        s.author,
        `+${s.added} ~${s.modified} -${s.removed}`,
        s.rolledBackFrom > 0n ? `${s.message} (rollback to ${s.rolledBackFrom})` : s.message,
      ]),
    ),
  );
}

export async function rollback(
  client: ConfigClient,
  output: Output,
  versionText: string,
  options: { message?: string },
): Promise<void> {
  const version = versionArgument(versionText);
  const { snapshots } = await client.listSnapshots({ limit: 1 });
  const published = await client.rollback({
    version,
    message: options.message ?? "",
    baseVersion: snapshots[0]?.version ?? 0n,
    bodies: NAMES_ONLY,
  });
  output.out(
    `published version ${published.snapshot?.version}: the content of version ${version} (${summarizeChanges(published.changes)})\n`,
  );
}

/**
 * `switchyard discard [KIND NAME]...`: undoes the draft's unpublished changes (of the objects
 * named, as KIND NAME pairs, or every one), back to the latest published version.
 */
export async function discard(
  client: ConfigClient,
  output: Output,
  args: readonly string[],
): Promise<void> {
  if (args.length % 2 !== 0)
    throw new CliError(
      `name each object by its kind and name (switchyard discard cluster payments route shop-routes); "${args.at(-1)}" has no name`,
    );
  const objects = [];
  for (let i = 0; i < args.length; i += 2)
    objects.push({ kind: parseKind(args[i] ?? ""), name: args[i + 1] ?? "" });
  const { changes, version } = await client.discardDraft({ objects });
  if (changes.length === 0) {
    output.out(`nothing to discard: the draft is version ${version}\n`);
    return;
  }
  for (const change of changes)
    output.out(
      `discarded: ${kindLabel[change.kind]} ${change.name} (${CHANGE_WORD[change.change]})\n`,
    );
  output.out(
    `the draft is back to version ${version} for ${changes.length === 1 ? "this object" : `these ${changes.length} objects`}\n`,
  );
}

/** How a change reads in the CLI. */
const CHANGE_WORD: Record<ChangeType, string> = {
  [ChangeType.UNSPECIFIED]: "changed",
  [ChangeType.ADDED]: "added in the draft, now gone",
  [ChangeType.MODIFIED]: "modified in the draft, now as published",
  [ChangeType.REMOVED]: "deleted in the draft, now back",
};

export async function exportConfig(
  client: ConfigClient,
  output: Output,
  options: { output?: string; version?: string },
): Promise<void> {
  const format = outputFormat(options.output, ["yaml", "json"], "yaml");
  const { content } = await client.export({
    format: format === "json" ? ConfigFormat.JSON : ConfigFormat.YAML,
    version: options.version ? versionArgument(options.version) : 0n,
  });
  output.out(content.endsWith("\n") ? content : `${content}\n`);
}
