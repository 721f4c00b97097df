import type * as http from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Code, ConnectError } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import { quotedInput } from "@switchyard/snapshot";
import { type AuditFilter, assertAllowed, authorize, exportAudit } from "../auth/index.js";
import { authenticateRequest } from "./access-interceptor.js";

/** The path of the audit log's export: a plain GET, so a browser link downloads it. */
export const AUDIT_EXPORT_PATH = "/api/audit/export";

const STATUS_OF: Partial<Record<Code, number>> = {
  [Code.Unauthenticated]: 401,
  [Code.PermissionDenied]: 403,
  [Code.InvalidArgument]: 400,
};

function dateParam(params: URLSearchParams, name: string): Date | undefined {
  const value = params.get(name);
  if (value === null || value === "") return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new ConnectError(
      `query parameter ${name}=${quotedInput(value)} is not a date (ISO 8601, e.g. 2026-01-31T12:00:00Z)`,
      Code.InvalidArgument,
    );
  return date;
}

/**
 * GET /api/audit/export?format=ndjson|csv&actor=&action=&target=&start=&end= — every matching
 * event, newest first, streamed. The same credentials and rule as ListAuditEvents (read audit:
 * admins; tokens need scope "admin"). A GET changes nothing, so it needs no CSRF check.
 */
export function auditExportHandler(prisma: PrismaClient) {
  return (request: http.IncomingMessage, response: http.ServerResponse): void => {
    void (async () => {
      try {
        if (request.method !== "GET")
          throw new ConnectError(`${AUDIT_EXPORT_PATH} takes GET`, Code.InvalidArgument);
        const header = new Headers();
        for (const [name, value] of Object.entries(request.headers))
          if (typeof value === "string") header.set(name, value);
        const principal = await authenticateRequest(prisma, header);
        assertAllowed(authorize(principal, "read", { kind: "audit" }));
        const params = new URL(request.url ?? "/", "http://localhost").searchParams;
        const format = params.get("format") ?? "ndjson";
        if (format !== "ndjson" && format !== "csv")
          throw new ConnectError(
            `query parameter format=${quotedInput(format)} must be ndjson or csv`,
            Code.InvalidArgument,
          );
        const filter: AuditFilter = {
          ...(params.get("actor") ? { actor: params.get("actor") as string } : {}),
          ...(params.get("action") ? { action: params.get("action") as string } : {}),
          ...(params.get("target") ? { target: params.get("target") as string } : {}),
          ...(dateParam(params, "start") ? { since: dateParam(params, "start") as Date } : {}),
          ...(dateParam(params, "end") ? { until: dateParam(params, "end") as Date } : {}),
        };
        response.writeHead(200, {
          "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson",
          "content-disposition": `attachment; filename="switchyard-audit.${format === "csv" ? "csv" : "ndjson"}"`,
          "cache-control": "no-store",
        });
        await pipeline(Readable.from(exportAudit(prisma, filter, format)), response);
      } catch (error) {
        if (response.headersSent) {
          response.destroy(error instanceof Error ? error : undefined);
          return;
        }
        const connectError = ConnectError.from(error);
        response
          .writeHead(STATUS_OF[connectError.code] ?? 500, { "content-type": "text/plain" })
          .end(`${connectError.rawMessage}\n`);
      }
    })();
  };
}
