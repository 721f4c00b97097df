/**
 * ConfigService's Envoy API methods (switchyard schema add|list|remove): newer Envoy APIs stored
 * in the database and installed by every replica and worker (store/envoy-schemas.ts).
 *
 * Adding or removing one changes what every stored object means to Switchyard, so neither may
 * break the draft: the draft is validated with the schemas as they would be, and a change that
 * would give it an error it did not have (a field only the removed API defines, a field the added
 * one renamed) is refused with those errors, and nothing changes. The trial installs the
 * candidate set in this process for the moment it takes; a refused one is taken back at once.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import {
  BUNDLED_ENVOY_API,
  type EnvoySchema,
  installEnvoySchemas,
  installedEnvoySchemas,
  readEnvoySchema,
} from "@switchyard/proto";
import {
  type EnvoySchema as EnvoySchemaMessage,
  EnvoySchemaSchema,
  ListEnvoySchemasResponseSchema,
  RemoveEnvoySchemaResponseSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { nameProblem, quotedName, shownPath } from "@switchyard/snapshot";
import { callerOf, ipOf } from "../access/request-context.js";
import { auditActor, recordAudit } from "../auth/index.js";
import {
  checkedSchemas,
  notifySchemasChanged,
  readStoredSchemas,
  type StoredSchemaRow,
} from "../store/envoy-schemas.js";
import type { ConfigServiceOptions } from "./config-options.js";
import { type ApiIssue, invalidArgument } from "./errors.js";

/** Issues shown of a refused change: enough to see the cause. */
const SHOWN_ISSUES = 20;

function schemaMessage(row: StoredSchemaRow, schema: EnvoySchema | undefined): EnvoySchemaMessage {
  return create(EnvoySchemaSchema, {
    name: row.name,
    sha256: row.sha256,
    sizeBytes: BigInt(row.bytes.length),
    files: schema?.files ?? 0,
    messages: schema?.messages ?? 0,
    newMessages: schema?.newMessages ?? 0,
    newFields: schema?.newFields ?? 0,
    addedBy: row.addedBy,
    createTime: timestampFromDate(row.createdAt),
  });
}

export function schemaHandlers({ prisma, store }: ConfigServiceOptions) {
  /** One change of the installed set at a time in this process: each trial sees the last. */
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  const errorsOf = async (): Promise<Map<string, ApiIssue>> => {
    const report = await store.validateDraft();
    return new Map(
      report.issues
        .filter((issue) => issue.severity === "error")
        .map((issue) => [`${issue.path}\u0000${issue.message}`, issue]),
    );
  };

  /**
   * The draft's errors with `candidate` installed that it does not have now; `candidate` stays
   * installed when there are none, and the previous set is back otherwise.
   */
  const trial = async (candidate: readonly EnvoySchema[]): Promise<ApiIssue[]> => {
    const previous = installedEnvoySchemas();
    const before = await errorsOf();
    installEnvoySchemas(candidate);
    try {
      const after = await errorsOf();
      const added = [...after].filter(([key]) => !before.has(key)).map(([, issue]) => issue);
      if (added.length > 0) installEnvoySchemas(previous);
      return added;
    } catch (error) {
      installEnvoySchemas(previous);
      throw error;
    }
  };

  const refuse = (message: string, issues: readonly ApiIssue[]): ConnectError => {
    const shown = issues.slice(0, SHOWN_ISSUES);
    return invalidArgument(
      `${message}: ${shown.map((i) => `${shownPath(i.path)}: ${i.message}`).join("; ")}${issues.length > shown.length ? `; and ${issues.length - shown.length} more` : ""}`,
      shown,
      Code.FailedPrecondition,
    );
  };

  return {
    async addEnvoySchema(
      request: { readonly name: string; readonly descriptorSet: Uint8Array },
      context: HandlerContext,
    ) {
      const name = request.name.trim();
      const problem = nameProblem(name);
      if (problem) {
        throw new ConnectError(
          `schema name ${quotedName(name)} ${problem}: name it after its release, e.g. envoy-1.37`,
          Code.InvalidArgument,
        );
      }
      const read = readEnvoySchema(name, request.descriptorSet);
      if ("problem" in read) {
        throw new ConnectError(
          `descriptor_set is not taken as a newer Envoy API: ${read.problem}`,
          Code.InvalidArgument,
        );
      }
      const caller = callerOf(context);
      return serially(async () => {
        const stored = await readStoredSchemas(prisma);
        const same = stored.find((row) => row.sha256 === read.schema.sha256);
        if (same) {
          throw new ConnectError(
            `this descriptor set is already loaded, as "${same.name}"`,
            Code.AlreadyExists,
          );
        }
        if (stored.some((row) => row.name === name)) {
          throw new ConnectError(
            `another Envoy API is loaded as "${name}": remove it first (switchyard schema remove ${name}), or give this one another name`,
            Code.AlreadyExists,
          );
        }
        const current = checkedSchemas(stored, () => undefined);
        const broken = await trial([...current, read.schema]);
        if (broken.length > 0) {
          throw refuse(
            `with "${name}" loaded the draft would not validate (it redefines fields the draft uses)`,
            broken,
          );
        }
        try {
          const row = await prisma.$transaction(async (tx) => {
            const created = await tx.envoySchema.create({
              data: {
                name,
                sha256: read.schema.sha256,
                descriptorSet: Buffer.from(request.descriptorSet),
                addedBy: caller.username,
              },
            });
            await recordAudit(tx, {
              ...auditActor(caller),
              action: "envoy-schema.add",
              target: `envoy-schema/${name}`,
              ip: ipOf(context),
              detail: {
                sha256: read.schema.sha256,
                newMessages: read.schema.newMessages,
                newFields: read.schema.newFields,
              },
            });
            await notifySchemasChanged(tx);
            return created;
          });
          return schemaMessage(
            {
              name: row.name,
              sha256: row.sha256,
              bytes: row.descriptorSet,
              addedBy: row.addedBy,
              createdAt: row.createdAt,
            },
            read.schema,
          );
        } catch (error) {
          installEnvoySchemas(current);
          throw error;
        }
      });
    },

    async listEnvoySchemas() {
      const stored = await readStoredSchemas(prisma);
      const installed = new Map(installedEnvoySchemas().map((s) => [s.sha256, s]));
      return create(ListEnvoySchemasResponseSchema, {
        schemas: stored.map((row) => schemaMessage(row, installed.get(row.sha256))),
        bundled: BUNDLED_ENVOY_API,
      });
    },

    async removeEnvoySchema(request: { readonly name: string }, context: HandlerContext) {
      const caller = callerOf(context);
      return serially(async () => {
        const stored = await readStoredSchemas(prisma);
        const row = stored.find((s) => s.name === request.name);
        if (!row) {
          throw new ConnectError(
            `no Envoy API is loaded as ${quotedName(request.name)}${stored.length > 0 ? ` (loaded: ${stored.map((s) => s.name).join(", ")})` : ""}`,
            Code.NotFound,
          );
        }
        const current = checkedSchemas(stored, () => undefined);
        const broken = await trial(current.filter((s) => s.sha256 !== row.sha256));
        if (broken.length > 0) {
          throw refuse(
            `the draft uses what only "${row.name}" defines, so it stays loaded`,
            broken,
          );
        }
        try {
          await prisma.$transaction(async (tx) => {
            await tx.envoySchema.delete({ where: { sha256: row.sha256 } });
            await recordAudit(tx, {
              ...auditActor(caller),
              action: "envoy-schema.remove",
              target: `envoy-schema/${row.name}`,
              ip: ipOf(context),
              detail: { sha256: row.sha256 },
            });
            await notifySchemasChanged(tx);
          });
        } catch (error) {
          installEnvoySchemas(current);
          throw error;
        }
        return create(RemoveEnvoySchemaResponseSchema, {});
      });
    },
  };
}
