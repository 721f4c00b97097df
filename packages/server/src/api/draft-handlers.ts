import { type Timestamp, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import {
  ConfigFormat,
  type ConfigService,
  ResourceKind,
} from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type ClusterSpec,
  type ConfigSpec,
  configSpecOf,
  diffManifests,
  envoyForm,
  exportEnvoyConfig,
  importEnvoyConfig,
  type ListenerSpec,
  type NodeGroupSpec,
  parseEnvoyConfig,
  type RouteConfigurationSpec,
  type SourceKind,
  sourceManifest,
  sourceObjects,
  VALIDATION_CODES,
  type ValidationCode,
  type ValidationIssue,
  validate,
} from "@switchyard/snapshot";
import {
  findCluster,
  findListener,
  findNodeGroup,
  findRouteConfiguration,
  listClusters,
  listListeners,
  listNodeGroups,
  listRouteConfigurations,
  readConfigSpec,
  type Stored,
} from "../store/config-store.js";
import {
  deleteObject,
  writeCluster,
  writeListener,
  writeNodeGroup,
  writeObjects,
  writeRouteConfiguration,
} from "../store/draft-store.js";
import { specOfVersion } from "../store/snapshot-store.js";
import { type ApiIssue, invalidArgument, issueMessage, notFound, translated } from "./errors.js";
import {
  clusterMessageOf,
  clusterSpecOf,
  listenerMessageOf,
  listenerSpecOf,
  nodeGroupMessageOf,
  nodeGroupSpecOf,
  routeConfigurationMessageOf,
  routeConfigurationSpecOf,
} from "./model-mapping.js";
import { objectChanges } from "./object-changes.js";
import { listSummaries } from "./summaries.js";

/** How one kind of stored object is read, written, validated and mapped to the API. */
interface KindOps<Spec extends { name: string }, Message extends { name: string }> {
  readonly kind: SourceKind;
  /** "cluster", "listener", ... as users read it in messages. */
  readonly label: string;
  /** Builds a one-object spec, to validate an object on its own. */
  readonly alone: (spec: Spec) => ConfigSpec;
  readonly list: (db: TransactionClient) => Promise<Stored<Spec>[]>;
  readonly find: (db: TransactionClient, name: string) => Promise<Stored<Spec> | undefined>;
  readonly write: (db: TransactionClient, spec: Spec) => Promise<void>;
  readonly specOf: (message: Message) => Spec;
  readonly messageOf: (spec: Spec, updatedAt?: Date) => Message;
}

/**
 * Problems within one object. Issues between objects (a reference to one not created yet, a
 * conflict with another) may sit in the draft while it is edited; they only block a publish.
 */
function objectProblems(issues: readonly ValidationIssue[]): ValidationIssue[] {
  return issues.filter(
    (issue) =>
      issue.severity === "error" && !VALIDATION_CODES[issue.code as ValidationCode]?.crossObject,
  );
}

const RESOURCE_NAME = /^[^\s\p{Cc}]+$/u;

function checkName(label: string, name: string): void {
  if (!RESOURCE_NAME.test(name)) {
    throw new ConnectError(
      name === ""
        ? `a ${label} needs a name`
        : `${label} name ${JSON.stringify(name)} must not contain whitespace or control characters`,
      Code.InvalidArgument,
    );
  }
}

function crud<
  Spec extends { name: string },
  Message extends { name: string; updateTime?: Timestamp | undefined },
>(prisma: PrismaClient, ops: KindOps<Spec, Message>) {
  const save = async (message: Message, mode: "create" | "update"): Promise<Message> => {
    checkName(ops.label, message.name);
    const spec = ops.specOf(message);
    const problems = objectProblems(validate(ops.alone(spec)).issues);
    if (problems.length > 0) {
      throw invalidArgument(
        `${ops.label} "${spec.name}" is invalid: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`,
        problems,
      );
    }
    return translated(() =>
      prisma.$transaction(async (tx) => {
        const existing = await ops.find(tx, spec.name);
        if (mode === "create" && existing) {
          throw new ConnectError(
            `${ops.label} "${spec.name}" already exists: update it instead`,
            Code.AlreadyExists,
          );
        }
        if (mode === "update" && !existing) throw notFound(`${ops.label} "${spec.name}"`);
        // Optimistic concurrency (AIP-154 style, update_time as the etag): an update that says
        // which version it edited is refused if the object changed since. Without update_time,
        // the update replaces whatever is stored (scripts, `switchyard apply`).
        if (mode === "update" && message.updateTime !== undefined && existing) {
          const edited = timestampMs(message.updateTime);
          const stored = existing.updatedAt.getTime();
          if (edited !== stored) {
            throw new ConnectError(
              `${ops.label} "${spec.name}" was changed by someone else at ${existing.updatedAt.toISOString()}, after the version you edited (${new Date(edited).toISOString()}): read it again and re-apply your change, or update without update_time to overwrite it`,
              Code.Aborted,
            );
          }
        }
        await ops.write(tx, spec);
        const saved = await ops.find(tx, spec.name);
        return ops.messageOf(saved?.spec ?? spec, saved?.updatedAt);
      }),
    );
  };
  return {
    list: async () =>
      (await ops.list(prisma)).map((item) => ops.messageOf(item.spec, item.updatedAt)),
    get: async (name: string) => {
      const found = await ops.find(prisma, name);
      if (!found) throw notFound(`${ops.label} "${name}"`);
      return ops.messageOf(found.spec, found.updatedAt);
    },
    create: (message: Message) => save(message, "create"),
    update: (message: Message) => save(message, "update"),
    delete: async (name: string) => {
      const existed = await translated(() =>
        prisma.$transaction((tx) => deleteObject(tx, ops.kind, name)),
      );
      if (!existed) throw notFound(`${ops.label} "${name}"`);
      return {};
    },
  };
}

const kindOfResource: Record<ResourceKind, SourceKind | undefined> = {
  [ResourceKind.UNSPECIFIED]: undefined,
  [ResourceKind.CLUSTER]: "cluster",
  [ResourceKind.LISTENER]: "listener",
  [ResourceKind.ROUTE_CONFIGURATION]: "routeConfiguration",
  [ResourceKind.NODE_GROUP]: "nodeGroup",
};

export function sourceKindOf(kind: ResourceKind): SourceKind {
  const sourceKind = kindOfResource[kind];
  if (!sourceKind)
    throw new ConnectError(
      "kind is required (cluster, listener, route configuration or node group)",
      Code.InvalidArgument,
    );
  return sourceKind;
}

/** Reads the draft (version 0) or a published version's content. */
async function specAt(prisma: PrismaClient, version: bigint): Promise<ConfigSpec> {
  return translated(() =>
    prisma.$transaction(
      (tx) => (version === 0n ? readConfigSpec(tx) : specOfVersion(tx, Number(version))),
      {
        isolationLevel: "RepeatableRead",
      },
    ),
  );
}

/** Thrown to roll back a dry-run import after its effect was measured. */
class DryRun extends Error {
  constructor(readonly result: { before: ConfigSpec; after: ConfigSpec }) {
    super("dry run");
  }
}

export function draftHandlers(prisma: PrismaClient): Partial<ServiceImpl<typeof ConfigService>> {
  const clusters = crud(prisma, {
    kind: "cluster",
    label: "cluster",
    alone: (spec: ClusterSpec) => configSpecOf({ clusters: [spec] }),
    list: listClusters,
    find: findCluster,
    write: writeCluster,
    specOf: clusterSpecOf,
    messageOf: clusterMessageOf,
  });
  const listeners = crud(prisma, {
    kind: "listener",
    label: "listener",
    alone: (spec: ListenerSpec) => configSpecOf({ listeners: [spec] }),
    list: listListeners,
    find: findListener,
    write: writeListener,
    specOf: listenerSpecOf,
    messageOf: listenerMessageOf,
  });
  const routeConfigurations = crud(prisma, {
    kind: "routeConfiguration",
    label: "route configuration",
    alone: (spec: RouteConfigurationSpec) => configSpecOf({ routeConfigurations: [spec] }),
    list: listRouteConfigurations,
    find: findRouteConfiguration,
    write: writeRouteConfiguration,
    specOf: routeConfigurationSpecOf,
    messageOf: routeConfigurationMessageOf,
  });
  const nodeGroups = crud(prisma, {
    kind: "nodeGroup",
    label: "node group",
    alone: (spec: NodeGroupSpec) => configSpecOf({ nodeGroups: [spec] }),
    list: listNodeGroups,
    find: findNodeGroup,
    write: writeNodeGroup,
    specOf: nodeGroupSpecOf,
    messageOf: nodeGroupMessageOf,
  });

  return {
    async listResources(request) {
      return { resources: await listSummaries(prisma, request.kind) };
    },

    listClusters: async () => ({ clusters: await clusters.list() }),
    getCluster: (request) => clusters.get(request.name),
    createCluster: (request) => clusters.create(request),
    updateCluster: (request) => clusters.update(request),
    deleteCluster: (request) => clusters.delete(request.name),

    listListeners: async () => ({ listeners: await listeners.list() }),
    getListener: (request) => listeners.get(request.name),
    createListener: (request) => listeners.create(request),
    updateListener: (request) => listeners.update(request),
    deleteListener: (request) => listeners.delete(request.name),

    listRouteConfigurations: async () => ({
      routeConfigurations: await routeConfigurations.list(),
    }),
    getRouteConfiguration: (request) => routeConfigurations.get(request.name),
    createRouteConfiguration: (request) => routeConfigurations.create(request),
    updateRouteConfiguration: (request) => routeConfigurations.update(request),
    deleteRouteConfiguration: (request) => routeConfigurations.delete(request.name),

    listNodeGroups: async () => ({ nodeGroups: await nodeGroups.list() }),
    getNodeGroup: (request) => nodeGroups.get(request.name),
    createNodeGroup: (request) => nodeGroups.create(request),
    updateNodeGroup: (request) => nodeGroups.update(request),
    deleteNodeGroup: (request) => nodeGroups.delete(request.name),

    async getEnvoyResource(request) {
      const kind = sourceKindOf(request.kind);
      const forms = envoyForm(await specAt(prisma, request.version), kind, request.name);
      const [first] = forms ?? [];
      if (!first)
        throw notFound(
          `${kind} "${request.name}"${request.version ? ` in version ${request.version}` : ""}`,
        );
      return { resource: first as never };
    },

    async validate() {
      const report = validate(await specAt(prisma, 0n));
      return { issues: report.issues.map(issueMessage), ok: report.ok };
    },

    async import(request) {
      const document = request.filename || "the document";
      const parsed = parseEnvoyConfig(
        request.content,
        request.filename ? { filename: request.filename } : {},
      );
      if ("errors" in parsed) {
        throw invalidArgument(
          `${document} is not valid Envoy v3 config: ${summarize(parsed.errors)}`,
          parsed.errors,
        );
      }
      const imported = importEnvoyConfig(parsed.resources);
      const errors = imported.issues.filter((issue) => issue.severity === "error");
      if (errors.length > 0)
        throw invalidArgument(
          `${document} cannot be imported: ${summarize(errors)}`,
          imported.issues,
        );
      const apply = () =>
        prisma.$transaction(
          async (tx) => {
            const before = await readConfigSpec(tx);
            await writeObjects(tx, imported.spec);
            const after = await readConfigSpec(tx);
            const result = { before, after };
            // A dry run measures the effect inside the transaction, then rolls it back.
            if (request.dryRun) throw new DryRun(result);
            return result;
          },
          { timeout: 120_000 },
        );
      let result: { before: ConfigSpec; after: ConfigSpec };
      try {
        result = await translated(apply);
      } catch (error) {
        if (!(error instanceof DryRun)) throw error;
        result = error.result;
      }
      const changes = diffManifests(
        sourceManifest(sourceObjects(result.before)),
        sourceManifest(sourceObjects(result.after)),
      );
      return {
        changes: objectChanges(changes, { before: result.before, after: result.after }),
        issues: imported.issues.map(issueMessage),
      };
    },

    async export(request) {
      const spec = await specAt(prisma, request.version);
      return {
        content: exportEnvoyConfig(spec, {
          format: request.format === ConfigFormat.JSON ? "json" : "yaml",
        }),
      };
    },
  };
}

function summarize(issues: readonly ApiIssue[]): string {
  const shown = issues
    .slice(0, 3)
    .map((issue) => `${issue.path}: ${issue.message}`)
    .join("; ");
  return issues.length > 3 ? `${shown} (and ${issues.length - 3} more)` : shown;
}
