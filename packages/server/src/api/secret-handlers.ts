/**
 * ConfigService's secrets (SDS): List/Get/Create/Update/DeleteSecret.
 *
 * Private keys are write-only. A key arrives in a request, is checked against its certificate
 * (secret-pem.ts: it parses, with its passphrase when encrypted, and is the leaf certificate's
 * key), sealed with the secrets key (secrets-key.ts) and stored sealed; no response, error
 * message, audit entry or log line carries it. What is shown instead: that a key is set and the
 * SHA-256 of its public half. An update without a key keeps the stored one only when the new
 * certificate is for that key (a renewal with the same key); otherwise it is refused, saying to
 * upload the new key.
 *
 * Deleting a secret a cluster or filter chain of the draft names is refused, naming them: the
 * publish would otherwise fail on a dangling reference, or worse, the listener would lose its
 * certificate.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromDate, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import { type Secret, SecretSchema, SecretType } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type CertificateInfo,
  certificatePublicKeyFingerprint,
  checkPrivateKey,
  configSpecOf,
  findReferencesInJson,
  type JsonValue,
  nameProblem,
  parseCertificates,
  type SecretSpec,
  VALIDATION_CODES,
  type ValidationCode,
  validate,
} from "@switchyard/snapshot";
import { auditWrites, authorizeWrites } from "../access/config-guard.js";
import { callerOf, ipOf } from "../access/request-context.js";
import type { SecretKeyring } from "../secrets-key.js";
import { findSecret, listSecrets, type Stored } from "../store/config-store.js";
import { deleteObject, writeSecret } from "../store/draft-store.js";
import { type ApiIssue, invalidArgument, notFound, translated } from "./errors.js";

const quote = JSON.stringify;
const secretPath = (name: string) => `secrets[${quote(name)}]`;

function certificateMessage(info: CertificateInfo) {
  return {
    subject: info.subject,
    issuer: info.issuer,
    subjectAltNames: [...info.subjectAltNames],
    notBefore: timestampFromDate(new Date(info.notBefore)),
    notAfter: timestampFromDate(new Date(info.notAfter)),
    fingerprintSha256: info.fingerprintSha256,
    isCa: info.isCa,
  };
}

/** The API form of a stored secret: never its private key (not even sealed). */
export function secretMessageOf(
  spec: SecretSpec,
  updatedAt: Date | undefined,
  usedBy: readonly string[],
): Secret {
  const tls = spec.type === "TLS_CERTIFICATE";
  const parsed = parseCertificates(tls ? spec.certificateChain : spec.trustedCa);
  return create(SecretSchema, {
    name: spec.name,
    type: tls ? SecretType.TLS_CERTIFICATE : SecretType.VALIDATION_CONTEXT,
    certificateChain: spec.certificateChain,
    trustedCa: spec.trustedCa,
    matchSubjectAltNames: [...spec.matchSubjectAltNames],
    privateKeySet: spec.privateKey !== null,
    publicKeySha256:
      tls && spec.privateKey !== null
        ? (certificatePublicKeyFingerprint(spec.certificateChain) ?? "")
        : "",
    certificates: parsed.t === "ok" ? parsed.certificates.map(certificateMessage) : [],
    usedBy: [...usedBy],
    updateTime: updatedAt ? timestampFromDate(updatedAt) : undefined,
  });
}

/**
 * "cluster/NAME" and "listener/NAME" naming each secret, in the draft as `db` sees it: by the
 * modelled `tlsSecretName`, or by an SDS secret over ADS in what a cluster or filter chain keeps
 * as Envoy JSON (a cluster's client certificate, a chain's several certificates: an import moves
 * inline keys there). Only the kept JSON that mentions SDS is read.
 */
async function referrers(
  db: PrismaClient | TransactionClient,
  names?: readonly string[],
): Promise<Map<string, string[]>> {
  const wanted = names ? new Set(names) : undefined;
  const where = names ? { tlsSecretName: { in: [...names] } } : { tlsSecretName: { not: null } };
  const clusters = await db.cluster.findMany({
    where,
    select: { name: true, tlsSecretName: true },
    orderBy: { name: "asc" },
  });
  const chains = await db.filterChain.findMany({
    where,
    select: { tlsSecretName: true, listener: { select: { name: true } } },
  });
  // Kept JSON that names an SDS config at all: few rows, read with the reference walk.
  const keptClusters = await db.$queryRaw<Array<{ name: string; extra: JsonValue }>>`
    SELECT "name", "extra" FROM "Cluster" WHERE "extra"::text LIKE '%sdsConfig%'`;
  const keptChains = await db.$queryRaw<Array<{ listener: string; extra: JsonValue }>>`
    SELECT l."name" AS "listener", f."extra" FROM "FilterChain" f
    JOIN "Listener" l ON l."id" = f."listenerId" WHERE f."extra"::text LIKE '%sdsConfig%'`;
  const users = new Map<string, Set<string>>();
  const add = (secret: string | null, user: string) => {
    if (secret === null || (wanted && !wanted.has(secret))) return;
    const set = users.get(secret) ?? new Set<string>();
    set.add(user);
    users.set(secret, set);
  };
  const secretsIn = (typeName: string, json: JsonValue) =>
    findReferencesInJson(typeName, json)
      .filter((reference) => reference.kind === "secret")
      .map((reference) => reference.name);
  for (const c of clusters) add(c.tlsSecretName, `cluster/${c.name}`);
  for (const f of chains) add(f.tlsSecretName, `listener/${f.listener.name}`);
  for (const c of keptClusters) {
    for (const name of secretsIn("envoy.config.cluster.v3.Cluster", c.extra)) {
      add(name, `cluster/${c.name}`);
    }
  }
  for (const f of keptChains) {
    for (const name of secretsIn("envoy.config.listener.v3.FilterChain", f.extra)) {
      add(name, `listener/${f.listener}`);
    }
  }
  return new Map([...users].map(([secret, set]) => [secret, [...set].sort()]));
}

function refuse(path: string, message: string, hint?: string): never {
  throw invalidArgument(message, [
    { severity: "error", code: "invalid-secret", path, message, ...(hint ? { hint } : {}) },
  ]);
}

/**
 * The spec to store for `message`: its private key checked and sealed, or the stored key kept
 * (`existing`) when none is given and the certificate is still for it.
 */
function specOf(
  message: Secret,
  existing: SecretSpec | undefined,
  keyring: SecretKeyring,
): SecretSpec {
  const path = secretPath(message.name);
  const matchSubjectAltNames = [...message.matchSubjectAltNames];
  if (message.type === SecretType.VALIDATION_CONTEXT) {
    if (message.privateKey !== "" || message.privateKeyPassphrase !== "")
      refuse(
        `${path}.privateKey`,
        `secret ${quote(message.name)} is a validation context, which holds no private key`,
        "leave private_key empty, or make it a TLS certificate",
      );
    return {
      name: message.name,
      type: "VALIDATION_CONTEXT",
      certificateChain: message.certificateChain,
      privateKey: null,
      trustedCa: message.trustedCa,
      matchSubjectAltNames,
      values: [],
    };
  }
  if (message.type !== SecretType.TLS_CERTIFICATE)
    refuse(
      `${path}.type`,
      `secret ${quote(message.name)} needs a type: TLS_CERTIFICATE or VALIDATION_CONTEXT`,
    );
  const base = {
    name: message.name,
    type: "TLS_CERTIFICATE" as const,
    certificateChain: message.certificateChain,
    trustedCa: message.trustedCa,
    matchSubjectAltNames,
    values: [],
  };
  if (message.privateKey !== "") {
    const checked = checkPrivateKey(
      message.privateKey,
      message.certificateChain,
      message.privateKeyPassphrase || undefined,
    );
    if (checked.t === "problem") {
      const what = checked.field === "privateKey" ? "the private key" : "the certificate chain";
      refuse(
        `${path}.${checked.field}`,
        `${what} of secret ${quote(message.name)} ${checked.problem}`,
      );
    }
    return { ...base, privateKey: keyring.seal(checked.pkcs8) };
  }
  const stored = existing?.type === "TLS_CERTIFICATE" ? existing.privateKey : null;
  if (stored === null)
    refuse(
      `${path}.privateKey`,
      `secret ${quote(message.name)} is a TLS certificate and needs its private key`,
      "upload the certificate's private key (PEM) with it",
    );
  // Kept only if the new certificate is for the stored key: opened here, compared, never returned.
  const opened = keyring.open(stored);
  const checked = checkPrivateKey(opened, message.certificateChain);
  if (checked.t === "problem") {
    refuse(
      `${path}.${checked.field}`,
      checked.field === "certificateChain"
        ? `the certificate chain of secret ${quote(message.name)} ${checked.problem}`
        : `the new certificate of secret ${quote(message.name)} is for another key than the stored one: upload its private key with it`,
    );
  }
  return { ...base, privateKey: stored };
}

/** Problems within the secret itself (a reference to it is not its problem). */
function objectProblems(spec: SecretSpec, keyring: SecretKeyring): ApiIssue[] {
  return validate(configSpecOf({ secrets: [spec] }), { openSecret: keyring.open }).issues.filter(
    (issue) =>
      issue.severity === "error" && !VALIDATION_CODES[issue.code as ValidationCode]?.crossObject,
  );
}

export function secretHandlers(prisma: PrismaClient, keyring: SecretKeyring) {
  const messageOf = async (db: PrismaClient | TransactionClient, stored: Stored<SecretSpec>) =>
    secretMessageOf(
      stored.spec,
      stored.updatedAt,
      (await referrers(db, [stored.spec.name])).get(stored.spec.name) ?? [],
    );

  const save = async (message: Secret, mode: "create" | "update", context: HandlerContext) => {
    const caller = callerOf(context);
    const problem = nameProblem(message.name);
    if (problem)
      throw new ConnectError(
        message.name === ""
          ? "a secret needs a name"
          : `secret name ${quote(message.name)} ${problem}`,
        Code.InvalidArgument,
      );
    return translated(() =>
      prisma.$transaction(async (tx) => {
        const existing = await findSecret(tx, message.name);
        if (mode === "create" && existing)
          throw new ConnectError(
            `secret ${quote(message.name)} already exists: update it instead (a rotation is an update)`,
            Code.AlreadyExists,
          );
        if (mode === "update" && !existing) throw notFound(`secret ${quote(message.name)}`);
        if (mode === "update" && message.updateTime !== undefined && existing) {
          const edited = timestampMs(message.updateTime);
          if (edited !== existing.updatedAt.getTime())
            throw new ConnectError(
              `secret ${quote(message.name)} was changed by someone else at ${existing.updatedAt.toISOString()}, after the version you edited (${new Date(edited).toISOString()}): read it again and re-apply your change, or update without update_time to overwrite it`,
              Code.Aborted,
            );
        }
        const spec = specOf(message, existing?.spec, keyring);
        const problems = objectProblems(spec, keyring);
        if (problems.length > 0)
          throw invalidArgument(
            `secret ${quote(spec.name)} is invalid: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`,
            problems,
          );
        const writes = [
          { kind: "secret" as const, name: spec.name, before: existing?.spec ?? null, after: spec },
        ];
        await authorizeWrites(tx, caller, writes);
        await writeSecret(tx, spec);
        await auditWrites(tx, caller, ipOf(context), writes);
        const saved = await findSecret(tx, spec.name);
        if (!saved) throw new Error(`secret ${quote(spec.name)} vanished while saved`);
        return messageOf(tx, saved);
      }),
    );
  };

  return {
    listSecrets: async () => {
      const stored = await listSecrets(prisma);
      const users = await referrers(prisma);
      return {
        secrets: stored.map((s) =>
          secretMessageOf(s.spec, s.updatedAt, users.get(s.spec.name) ?? []),
        ),
      };
    },
    getSecret: async (request: { name: string }) => {
      const found = await findSecret(prisma, request.name);
      if (!found) throw notFound(`secret ${quote(request.name)}`);
      return messageOf(prisma, found);
    },
    createSecret: (request: Secret, context: HandlerContext) => save(request, "create", context),
    updateSecret: (request: Secret, context: HandlerContext) => save(request, "update", context),
    deleteSecret: async (request: { name: string }, context: HandlerContext) => {
      const caller = callerOf(context);
      const existed = await translated(() =>
        prisma.$transaction(async (tx) => {
          const existing = await findSecret(tx, request.name);
          if (!existing) return false;
          const users = (await referrers(tx, [request.name])).get(request.name) ?? [];
          if (users.length > 0)
            throw new ConnectError(
              `secret ${quote(request.name)} is used by ${users.join(", ")}: point them at another secret (tlsSecretName) or remove their TLS first`,
              Code.FailedPrecondition,
            );
          const writes = [
            { kind: "secret" as const, name: request.name, before: existing.spec, after: null },
          ];
          await authorizeWrites(tx, caller, writes);
          await deleteObject(tx, "secret", request.name);
          await auditWrites(tx, caller, ipOf(context), writes);
          return true;
        }),
      );
      if (!existed) throw notFound(`secret ${quote(request.name)}`);
      return {};
    },
  };
}
