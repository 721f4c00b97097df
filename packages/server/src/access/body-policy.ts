/**
 * What an API request may cost before it is authorized (issue 22, point 4): the caller is
 * authenticated from the headers before a byte of the body is read, and each method's body is
 * bounded, the larger bounds only where real documents go (Import, TLS secrets).
 */
import type { DescMethod } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { isDatabaseUnavailable, type PrismaClient } from "@switchyard/db";
import { databaseUnavailable } from "../api/error-interceptor.js";
import type { BodyPolicy } from "../api/request-checks.js";
import { authenticateRequest } from "./access-interceptor.js";
import { accessRuleOf } from "./access-rules.js";
import { PRINCIPAL } from "./request-context.js";

const KiB = 1024;
const MiB = 1024 * KiB;

/** Any authenticated method's body: the largest object of the model is a few hundred KB. */
export const DEFAULT_BODY_MAX = 1 * MiB;
/** Methods anyone may call (Login): a username and a password. */
export const PUBLIC_BODY_MAX = 64 * KiB;
/** A secret's certificate chain and CA bundle (a public CA bundle is ~250 KB). */
export const SECRET_BODY_MAX = 4 * MiB;
/** Import and Apply: 8 MiB of YAML (MAX_IMPORT_BYTES), up to twice that escaped as a JSON string. */
export const IMPORT_BODY_MAX = 20 * MiB;

const LARGER: Readonly<Record<string, number>> = {
  "switchyard.v1.ConfigService.Import": IMPORT_BODY_MAX,
  "switchyard.v1.ConfigService.Apply": IMPORT_BODY_MAX,
  "switchyard.v1.ConfigService.CreateSecret": SECRET_BODY_MAX,
  "switchyard.v1.ConfigService.UpdateSecret": SECRET_BODY_MAX,
};

export function bodyLimitOf(method: DescMethod): number {
  if (accessRuleOf(method)?.t === "public") return PUBLIC_BODY_MAX;
  return LARGER[`${method.parent.typeName}.${method.name}`] ?? DEFAULT_BODY_MAX;
}

export function bodyPolicy(prisma: PrismaClient): BodyPolicy {
  return {
    limitOf: bodyLimitOf,
    async admit(method, header, contextValues) {
      const rule = accessRuleOf(method);
      // No rule: the access interceptor refuses it, and a body is not needed for that.
      if (rule === undefined || rule.t === "public") return undefined;
      try {
        // Kept for the access interceptor, which then does not look the caller up again.
        contextValues?.set(PRINCIPAL, await authenticateRequest(prisma, header));
        return undefined;
      } catch (error) {
        // The caller could not be looked up: UNAVAILABLE, as for any call the database failed.
        if (isDatabaseUnavailable(error)) return databaseUnavailable(error);
        return ConnectError.from(error);
      }
    },
  };
}
