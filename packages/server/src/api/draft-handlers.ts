/**
 * ConfigService's draft objects: List/Get/Create/Update/Delete of clusters, listeners, route
 * configurations, node groups and runtime layers (one generic `crud`), and the draft-wide reads
 * over shared row caches (ListResources, GetTopology, GetEnvoyResource). Secrets are in
 * secret-handlers.ts; Import and Export in import-export-handlers.ts.
 */
import { type Timestamp, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import {
  type ConfigService,
  type Issue,
  type RouteConfiguration,
  RouteConfigurationView,
} from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type ClusterSpec,
  type ConfigSpec,
  configSpecOf,
  envoyForm,
  issuesAbout,
  type ListenerSpec,
  type NodeGroupSpec,
  nameProblem,
  quotedInput,
  quotedName,
  type RouteConfigurationSpec,
  type RuntimeLayerSpec,
  type SourceKind,
  shownPath,
  VALIDATION_CODES,
  type ValidationCode,
  type ValidationIssue,
  validate,
} from "@switchyard/snapshot";
import {
  auditWrites,
  authorizeWrites,
  claimNewOwners,
  DEFAULT_WRITE_POLICY,
  type WritePolicy,
} from "../access/config-guard.js";
import { callerOf, ipOf } from "../access/request-context.js";
import { loadDomainOwnership, virtualHostOwner } from "../auth/index.js";
import type { SecretKeyring } from "../secrets-key.js";
import {
  findCluster,
  findListener,
  findNodeGroup,
  findRouteConfiguration,
  findRuntimeLayer,
  listListeners,
  listNodeGroups,
  listRuntimeLayers,
  readConfigSpec,
  rowsById,
  type Stored,
} from "../store/config-store.js";
import {
  deleteObject,
  writeCluster,
  writeListener,
  writeNodeGroup,
  writeRouteConfiguration,
  writeRuntimeLayer,
} from "../store/draft-store.js";
import { specOfVersion } from "../store/publish-transaction.js";
import { perInstance, RowCache } from "../store/row-cache.js";
import type { SnapshotStore } from "../store/snapshot-store.js";
import { invalidArgument, issueMessage, notFound, translated } from "./errors.js";
import {
  clusterMessageOf,
  clusterSpecOf,
  listenerMessageOf,
  listenerSpecOf,
  nodeGroupMessageOf,
  nodeGroupSpecOf,
  routeConfigurationMessageOf,
  routeConfigurationSpecOf,
  routeConfigurationTargetsOf,
  runtimeLayerMessageOf,
  runtimeLayerSpecOf,
} from "./model-mapping.js";
import { sourceKindOf } from "./object-changes.js";
import { version as storedVersion } from "./publishing.js";
import { secretHandlers } from "./secret-handlers.js";
import { listSummaries, type SummarySources } from "./summaries.js";
import { TopologyCache, topologyView } from "./topology.js";

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
  /**
   * Fills output-only fields that are not part of the stored object (a virtual host's owner team),
   * once for all the messages of a call. The messages may be shared (a list's, made once per
   * stored revision): it returns filled copies and leaves them as they are.
   */
  readonly fillOutputOnly?: (
    db: PrismaClient | TransactionClient,
    messages: readonly Message[],
  ) => Promise<Message[]>;
}

/**
 * Each virtual host's owner_team (output only), by the rule every write is checked by
 * (auth/ownership.ts): one read of the teams' domain patterns per call.
 */
async function fillVirtualHostOwners(
  db: PrismaClient | TransactionClient,
  messages: readonly RouteConfiguration[],
): Promise<RouteConfiguration[]> {
  if (messages.length === 0) return [];
  const ownership = await loadDomainOwnership(db);
  return messages.map((rc) => ({
    ...rc,
    virtualHosts: rc.virtualHosts.map((vh) => ({
      ...vh,
      ownerTeam: virtualHostOwner(vh, ownership)?.teamName ?? "",
    })),
  }));
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

function checkName(label: string, name: string): void {
  const problem = nameProblem(name);
  if (problem) {
    throw new ConnectError(
      name === "" ? `a ${label} needs a name` : `${label} name ${quotedName(name)} ${problem}`,
      Code.InvalidArgument,
    );
  }
}

/**
 * The draft's issues about one object just saved (issue-objects.ts issuesAbout): a reference to
 * an object that does not exist, a second listener on its address, an extension without a schema.
 * Said once, where the object is edited, not on every unrelated publish. Empty when the draft
 * cannot be validated now (the save stands; Validate says why).
 */
export type SavedIssues = (kind: SourceKind, name: string) => Promise<Issue[]>;

export function savedIssuesOf(store: SnapshotStore | undefined): SavedIssues {
  return async (kind, name) => {
    if (store === undefined) return [];
    try {
      const report = await store.validateDraft();
      return issuesAbout(report.issues, [{ kind, name }]).map(issueMessage);
    } catch {
      return [];
    }
  };
}

function crud<
  Spec extends { name: string },
  Message extends { name: string; updateTime?: Timestamp | undefined; warnings: Issue[] },
>(
  prisma: PrismaClient,
  ops: KindOps<Spec, Message>,
  policy: WritePolicy,
  savedIssues: SavedIssues,
) {
  const filled = async (db: PrismaClient | TransactionClient, messages: Message[]) =>
    (await ops.fillOutputOnly?.(db, messages)) ?? messages;
  const filledOne = async (db: PrismaClient | TransactionClient, message: Message) =>
    (await ops.fillOutputOnly?.(db, [message]))?.[0] ?? message;
  /**
   * A stored object's message, made once per instance: the list caches (row-cache.ts) return an
   * unchanged object as the same instance, so a list of 5,000 routes is not converted again on
   * every call. Shared: never altered (fillOutputOnly copies).
   */
  const messageOf = perInstance((item: Stored<Spec>) => ops.messageOf(item.spec, item.updatedAt));
  const save = async (
    message: Message,
    mode: "create" | "update",
    context: HandlerContext,
  ): Promise<Message> => {
    const caller = callerOf(context);
    checkName(ops.label, message.name);
    const spec = ops.specOf(message);
    const problems = objectProblems(validate(ops.alone(spec)).issues);
    if (problems.length > 0) {
      throw invalidArgument(
        `${ops.label} ${quotedInput(spec.name)} is invalid: ${problems.map((p) => `${shownPath(p.path)}: ${p.message}`).join("; ")}`,
        problems,
      );
    }
    const saved = await translated(() =>
      prisma.$transaction(async (tx) => {
        const existing = await ops.find(tx, spec.name);
        if (mode === "create" && existing) {
          throw new ConnectError(
            `${ops.label} ${quotedInput(spec.name)} already exists: update it instead`,
            Code.AlreadyExists,
          );
        }
        if (mode === "update" && !existing)
          throw notFound(`${ops.label} ${quotedInput(spec.name)}`);
        // Optimistic concurrency (AIP-154 style, update_time as the etag): an update that says
        // which version it edited is refused if the object changed since. Without update_time,
        // the update replaces whatever is stored (scripts, `switchyard apply`).
        if (mode === "update" && message.updateTime !== undefined && existing) {
          const edited = timestampMs(message.updateTime);
          const stored = existing.updatedAt.getTime();
          if (edited !== stored) {
            throw new ConnectError(
              `${ops.label} ${quotedInput(spec.name)} was changed by someone else at ${existing.updatedAt.toISOString()}, after the version you edited (${new Date(edited).toISOString()}): read it again and re-apply your change, or update without update_time to overwrite it`,
              Code.Aborted,
            );
          }
        }
        // Authorized against the object as stored, never the client's idea of it (auth/index.ts).
        const writes = [
          { kind: ops.kind, name: spec.name, before: existing?.spec ?? null, after: spec },
        ];
        await authorizeWrites(tx, caller, writes, policy);
        await ops.write(tx, spec);
        await claimNewOwners(tx, caller, writes);
        await auditWrites(tx, caller, ipOf(context), writes);
        const saved = await ops.find(tx, spec.name);
        return filledOne(tx, ops.messageOf(saved?.spec ?? spec, saved?.updatedAt));
      }),
    );
    return { ...saved, warnings: await savedIssues(ops.kind, spec.name) };
  };
  return {
    list: async () => filled(prisma, (await ops.list(prisma)).map(messageOf)),
    get: async (name: string) => {
      const found = await ops.find(prisma, name);
      if (!found) throw notFound(`${ops.label} ${quotedInput(name)}`);
      return filledOne(prisma, ops.messageOf(found.spec, found.updatedAt));
    },
    create: (message: Message, context: HandlerContext) => save(message, "create", context),
    update: (message: Message, context: HandlerContext) => save(message, "update", context),
    delete: async (name: string, context: HandlerContext) => {
      const caller = callerOf(context);
      const existed = await translated(() =>
        prisma.$transaction(async (tx) => {
          const existing = await ops.find(tx, name);
          if (!existing) return false;
          const writes = [{ kind: ops.kind, name, before: existing.spec, after: null }];
          await authorizeWrites(tx, caller, writes, policy);
          await deleteObject(tx, ops.kind, name);
          await auditWrites(tx, caller, ipOf(context), writes);
          return true;
        }),
      );
      if (!existed) throw notFound(`${ops.label} ${quotedInput(name)}`);
      return {};
    },
  };
}

/** Reads the draft (version 0) or a published version's content (also for Export). */
export async function specAt(prisma: PrismaClient, version: bigint): Promise<ConfigSpec> {
  return translated(() =>
    prisma.$transaction(
      (tx) =>
        version === 0n ? readConfigSpec(tx) : specOfVersion(tx, storedVersion(version, "version")),
      {
        isolationLevel: "RepeatableRead",
      },
    ),
  );
}

export function draftHandlers(options: {
  readonly prisma: PrismaClient;
  readonly keyring: SecretKeyring;
  readonly writePolicy?: WritePolicy;
  /** Validates the draft for a save's answer (Cluster.warnings, ...); none without it. */
  readonly store?: SnapshotStore;
}) {
  const { prisma, keyring } = options;
  const savedIssues = savedIssuesOf(options.store);
  const policy = options.writePolicy ?? DEFAULT_WRITE_POLICY;
  // The two big lists (every endpoint, every route) come from caches refreshed by row revision.
  const clusterList = new RowCache<Stored<ClusterSpec>>({
    table: "Cluster",
    load: rowsById.cluster,
    nameOf: (stored) => stored.spec.name,
  });
  const routeConfigurationList = new RowCache<Stored<RouteConfigurationSpec>>({
    table: "RouteConfiguration",
    load: rowsById.routeConfiguration,
    nameOf: (stored) => stored.spec.name,
  });
  const listenerList = new RowCache<Stored<ListenerSpec>>({
    table: "Listener",
    load: rowsById.listener,
    nameOf: (stored) => stored.spec.name,
  });
  const topology = new TopologyCache();
  // The TARGETS view of a route configuration, made once per cached instance (as messages are).
  const routeTargetsOf = perInstance((item: Stored<RouteConfigurationSpec>) =>
    routeConfigurationTargetsOf(item.spec, item.updatedAt),
  );
  const summarySources: SummarySources = {
    clusters: () => clusterList.read(prisma),
    routeConfigurations: () => routeConfigurationList.read(prisma),
  };
  const clusters = crud(
    prisma,
    {
      kind: "cluster",
      label: "cluster",
      alone: (spec: ClusterSpec) => configSpecOf({ clusters: [spec] }),
      list: (db) => clusterList.read(db),
      find: findCluster,
      write: writeCluster,
      specOf: clusterSpecOf,
      messageOf: clusterMessageOf,
    },
    policy,
    savedIssues,
  );
  const listeners = crud(
    prisma,
    {
      kind: "listener",
      label: "listener",
      alone: (spec: ListenerSpec) => configSpecOf({ listeners: [spec] }),
      list: listListeners,
      find: findListener,
      write: writeListener,
      specOf: listenerSpecOf,
      messageOf: listenerMessageOf,
    },
    policy,
    savedIssues,
  );
  const routeConfigurations = crud(
    prisma,
    {
      kind: "routeConfiguration",
      label: "route configuration",
      alone: (spec: RouteConfigurationSpec) => configSpecOf({ routeConfigurations: [spec] }),
      list: (db) => routeConfigurationList.read(db),
      find: findRouteConfiguration,
      write: writeRouteConfiguration,
      specOf: routeConfigurationSpecOf,
      messageOf: routeConfigurationMessageOf,
      fillOutputOnly: fillVirtualHostOwners,
    },
    policy,
    savedIssues,
  );
  const nodeGroups = crud(
    prisma,
    {
      kind: "nodeGroup",
      label: "node group",
      alone: (spec: NodeGroupSpec) => configSpecOf({ nodeGroups: [spec] }),
      list: listNodeGroups,
      find: findNodeGroup,
      write: writeNodeGroup,
      specOf: nodeGroupSpecOf,
      messageOf: nodeGroupMessageOf,
    },
    policy,
    savedIssues,
  );
  const runtimeLayers = crud(
    prisma,
    {
      kind: "runtimeLayer",
      label: "runtime layer",
      alone: (spec: RuntimeLayerSpec) => configSpecOf({ runtimeLayers: [spec] }),
      list: listRuntimeLayers,
      find: findRuntimeLayer,
      write: writeRuntimeLayer,
      specOf: runtimeLayerSpecOf,
      messageOf: runtimeLayerMessageOf,
    },
    policy,
    savedIssues,
  );

  return {
    async listResources(request) {
      return { resources: await listSummaries(prisma, summarySources, request.kind) };
    },

    listClusters: async () => ({ clusters: await clusters.list() }),
    getCluster: (request) => clusters.get(request.name),
    createCluster: (request, context) => clusters.create(request, context),
    updateCluster: (request, context) => clusters.update(request, context),
    deleteCluster: (request, context) => clusters.delete(request.name, context),

    listListeners: async () => ({ listeners: await listeners.list() }),
    getListener: (request) => listeners.get(request.name),
    createListener: (request, context) => listeners.create(request, context),
    updateListener: (request, context) => listeners.update(request, context),
    deleteListener: (request, context) => listeners.delete(request.name, context),

    listRouteConfigurations: async (request) => ({
      routeConfigurations:
        request.view === RouteConfigurationView.TARGETS
          ? (await routeConfigurationList.read(prisma)).map(routeTargetsOf)
          : await routeConfigurations.list(),
    }),
    getRouteConfiguration: (request) => routeConfigurations.get(request.name),
    createRouteConfiguration: (request, context) => routeConfigurations.create(request, context),
    updateRouteConfiguration: (request, context) => routeConfigurations.update(request, context),
    deleteRouteConfiguration: (request, context) =>
      routeConfigurations.delete(request.name, context),

    listNodeGroups: async () => ({ nodeGroups: await nodeGroups.list() }),
    getNodeGroup: (request) => nodeGroups.get(request.name),
    createNodeGroup: (request, context) => nodeGroups.create(request, context),
    updateNodeGroup: (request, context) => nodeGroups.update(request, context),
    deleteNodeGroup: (request, context) => nodeGroups.delete(request.name, context),

    ...secretHandlers(prisma, keyring),

    listRuntimeLayers: async () => ({ runtimeLayers: await runtimeLayers.list() }),
    getRuntimeLayer: (request) => runtimeLayers.get(request.name),
    createRuntimeLayer: (request, context) => runtimeLayers.create(request, context),
    updateRuntimeLayer: (request, context) => runtimeLayers.update(request, context),
    deleteRuntimeLayer: (request, context) => runtimeLayers.delete(request.name, context),

    async getTopology(request) {
      const [listeners, routeConfigurations, clusters] = await Promise.all([
        listenerList.read(prisma),
        routeConfigurationList.read(prisma),
        clusterList.read(prisma),
      ]);
      return topologyView(topology.of(listeners, routeConfigurations, clusters), request.focus);
    },

    async getEnvoyResource(request) {
      const kind = sourceKindOf(request.kind);
      const forms = envoyForm(await specAt(prisma, request.version), kind, request.name);
      const [first] = forms ?? [];
      if (!first)
        throw notFound(
          `${kind} ${quotedInput(request.name)}${request.version ? ` in version ${request.version}` : ""}`,
        );
      return { resource: first as never, resources: forms as never };
    },
  } satisfies Partial<ServiceImpl<typeof ConfigService>>;
}
