/**
 * ConfigService's secrets (SDS): List/Get/Create/Update/DeleteSecret.
 *
 * Private keys and secret values are write-only. A key arrives in a request, is checked against
 * its certificate (secret-pem.ts: it parses, with its passphrase when encrypted, and is the leaf
 * certificate's key), sealed with the secrets key (secrets-key.ts) and stored sealed; no response,
 * error message, audit entry or log line carries it. What is shown instead: that a key is set and
 * the SHA-256 of its public half. An update without a key keeps the stored one only when the new
 * certificate is for that key (a renewal with the same key); otherwise it is refused, saying to
 * upload the new key.
 *
 * The values of a generic secret (one) and of session ticket keys (one or more, in order) are
 * checked (secret-values.ts: not empty, at most 64 KiB; each ticket key exactly 80 bytes) and
 * sealed the same way. What is shown instead: that they are set, and each one's size and
 * SHA-256. An update without values keeps the stored ones.
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
  holdsValues,
  type JsonValue,
  nameProblem,
  openValue,
  parseCertificates,
  quotedInput,
  type SecretOpener,
  type SecretSpec,
  sdsSecretJsonKeys,
  sealValue,
  VALIDATION_CODES,
  type ValidationCode,
  type ValueInfo,
  type ValueSecretType,
  validate,
  valueInfo,
  valueProblems,
} from "@switchyard/snapshot";
import { auditWrites, authorizeWrites, claimNewOwners } from "../access/config-guard.js";
import { callerOf, ipOf } from "../access/request-context.js";
import type { SecretKeyring } from "../secrets-key.js";
import { findSecret, listSecrets, type Stored } from "../store/config-store.js";
import { deleteObject, writeSecret } from "../store/draft-store.js";
import { type ApiIssue, invalidArgument, notFound, translated } from "./errors.js";

/** A name as a message quotes it: cut when long. */
const quote = quotedInput;
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

/** The API's type of each stored type, and back. */
const API_TYPE: Readonly<Record<SecretSpec["type"], SecretType>> = {
  TLS_CERTIFICATE: SecretType.TLS_CERTIFICATE,
  VALIDATION_CONTEXT: SecretType.VALIDATION_CONTEXT,
  GENERIC_SECRET: SecretType.GENERIC_SECRET,
  SESSION_TICKET_KEYS: SecretType.SESSION_TICKET_KEYS,
};
const STORED_TYPE = new Map(
  Object.entries(API_TYPE).map(([stored, api]) => [api, stored as SecretSpec["type"]]),
);

/**
 * What is shown of each stored value: its size and, to admins only, its SHA-256, read by opening
 * it here (the sealed text says nothing of either). A digest of a guessable value (a password, a
 * short token) is as good as the value to whoever can try guesses offline, so a reader who may not
 * write the secret sees its size alone; an admin, who may replace it and serve it to a proxy of
 * their own, learns nothing new. A value that does not open (no secrets key) shows as set, size 0.
 */
function valueInfos(
  spec: SecretSpec,
  open: SecretOpener | undefined,
  digests: boolean,
): ValueInfo[] {
  return spec.values.map((sealed) => {
    try {
      if (!open) return { sizeBytes: 0, sha256: "" };
      const info = valueInfo(openValue(open, sealed));
      return digests ? info : { ...info, sha256: "" };
    } catch {
      return { sizeBytes: 0, sha256: "" };
    }
  });
}

/** The API form of a stored secret: never its private key or values (not even sealed). */
export function secretMessageOf(
  spec: SecretSpec,
  updatedAt: Date | undefined,
  usedBy: readonly string[],
  open: SecretOpener | undefined,
  /** Whether the caller sees the SHA-256 of the values (admins: valueInfos). */
  digests: boolean,
): Secret {
  const tls = spec.type === "TLS_CERTIFICATE";
  const pem = tls
    ? spec.certificateChain
    : spec.type === "VALIDATION_CONTEXT"
      ? spec.trustedCa
      : "";
  const parsed = parseCertificates(pem);
  return create(SecretSchema, {
    name: spec.name,
    type: API_TYPE[spec.type],
    certificateChain: spec.certificateChain,
    trustedCa: spec.trustedCa,
    matchSubjectAltNames: [...spec.matchSubjectAltNames],
    privateKeySet: spec.privateKey !== null,
    publicKeySha256:
      tls && spec.privateKey !== null
        ? (certificatePublicKeyFingerprint(spec.certificateChain) ?? "")
        : "",
    certificates:
      pem !== "" && parsed.t === "ok" ? parsed.certificates.map(certificateMessage) : [],
    usedBy: [...usedBy],
    updateTime: updatedAt ? timestampFromDate(updatedAt) : undefined,
    valueSet: spec.values.length > 0,
    valueInfos: valueInfos(spec, open, digests),
  });
}

/**
 * "cluster/NAME" and "listener/NAME" naming each secret, in the draft as `db` sees it: by the
 * modelled `tlsSecretName`, or by an SDS secret in what a cluster, listener or filter chain keeps
 * as Envoy JSON (a cluster's client certificate, a chain's several certificates or its session
 * ticket keys, an OAuth2 or credential injector filter's secrets). Only the kept JSON that holds a
 * key under which an SdsSecretConfig can sit (sdsSecretJsonKeys) is read.
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
  // Kept JSON that can name a secret at all: few rows, read with the reference walk.
  const named = SDS_KEYS_PATTERN;
  const keptClusters = await db.$queryRaw<Array<{ name: string; extra: JsonValue }>>`
    SELECT "name", "extra" FROM "Cluster" WHERE "extra"::text ~ ${named}`;
  const keptListeners = await db.$queryRaw<Array<{ name: string; extra: JsonValue }>>`
    SELECT "name", "extra" FROM "Listener" WHERE "extra"::text ~ ${named}`;
  const keptChains = await db.$queryRaw<
    Array<{
      listener: string;
      extra: JsonValue;
      networkFilters: JsonValue;
      httpFilters: JsonValue;
      hcmExtra: JsonValue;
    }>
  >`
    SELECT l."name" AS "listener", f."extra", f."networkFilters", f."httpFilters", f."hcmExtra"
    FROM "FilterChain" f JOIN "Listener" l ON l."id" = f."listenerId"
    WHERE f."extra"::text ~ ${named} OR f."networkFilters"::text ~ ${named}
      OR f."httpFilters"::text ~ ${named} OR f."hcmExtra"::text ~ ${named}`;
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
  for (const l of keptListeners) {
    for (const name of secretsIn("envoy.config.listener.v3.Listener", l.extra)) {
      add(name, `listener/${l.name}`);
    }
  }
  const listOf = (json: JsonValue) => (Array.isArray(json) ? json : []);
  for (const f of keptChains) {
    const names = [
      ...secretsIn("envoy.config.listener.v3.FilterChain", f.extra),
      ...listOf(f.networkFilters).flatMap((filter) =>
        secretsIn("envoy.config.listener.v3.Filter", filter),
      ),
      ...listOf(f.httpFilters).flatMap((filter) =>
        secretsIn("envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter", filter),
      ),
      ...secretsIn(
        "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
        f.hcmExtra,
      ),
    ];
    for (const name of names) add(name, `listener/${f.listener}`);
  }
  return new Map([...users].map(([secret, set]) => [secret, [...set].sort()]));
}

/**
 * A POSIX regex matching stored JSON that holds a key an SdsSecretConfig can sit under: the rows
 * the reference walk reads for the users of secrets. Keys are identifiers: no escaping needed.
 */
const SDS_KEYS_PATTERN = `"(${sdsSecretJsonKeys().join("|")})"`;

function refuse(path: string, message: string, hint?: string): never {
  throw invalidArgument(message, [
    { severity: "error", code: "invalid-secret", path, message, ...(hint ? { hint } : {}) },
  ]);
}

const TYPE_WORDS: Readonly<Record<SecretSpec["type"], string>> = {
  TLS_CERTIFICATE: "a TLS certificate",
  VALIDATION_CONTEXT: "a validation context",
  GENERIC_SECRET: "a generic secret",
  SESSION_TICKET_KEYS: "a set of session ticket keys",
};

/**
 * The spec to store for `message`: its private key checked and sealed, or the stored key kept
 * (`existing`) when none is given and the certificate is still for it; its values checked and
 * sealed, or the stored ones kept when none are given.
 */
function specOf(
  message: Secret,
  existing: SecretSpec | undefined,
  keyring: SecretKeyring,
): SecretSpec {
  const path = secretPath(message.name);
  const type = STORED_TYPE.get(message.type);
  if (type === undefined)
    refuse(
      `${path}.type`,
      `secret ${quote(message.name)} needs a type: TLS_CERTIFICATE, VALIDATION_CONTEXT, GENERIC_SECRET or SESSION_TICKET_KEYS`,
    );
  if (
    type !== "TLS_CERTIFICATE" &&
    (message.privateKey !== "" || message.privateKeyPassphrase !== "")
  )
    refuse(
      `${path}.privateKey`,
      `secret ${quote(message.name)} is ${TYPE_WORDS[type]}, which holds no private key`,
      "leave private_key empty, or make it a TLS certificate",
    );
  if (!holdsValues(type) && message.values.length > 0)
    refuse(
      `${path}.values`,
      `secret ${quote(message.name)} is ${TYPE_WORDS[type]}, which holds no values`,
      "leave values empty, or make it a generic secret or session ticket keys",
    );
  const matchSubjectAltNames = [...message.matchSubjectAltNames];
  // The other types' fields go through as given: validation refuses them at their field.
  const given = {
    name: message.name,
    certificateChain: message.certificateChain,
    privateKey: null,
    trustedCa: message.trustedCa,
    matchSubjectAltNames,
    values: [],
  };
  if (type === "VALIDATION_CONTEXT") return { ...given, type };
  if (holdsValues(type))
    return { ...given, type, values: valuesOf(message, type, existing, keyring) };
  const base = { ...given, type: "TLS_CERTIFICATE" as const };
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
  // Written again: sealed anew if an older form or a previous key sealed it (keyring.reseal).
  return { ...base, privateKey: keyring.reseal(stored) };
}

const VALUE_HINT: Readonly<Record<ValueSecretType, string>> = {
  GENERIC_SECRET: "upload its value (switchyard secret create generic NAME --from-file FILE)",
  SESSION_TICKET_KEYS:
    "upload one or more keys of 80 random bytes each, the newest first (openssl rand 80 > key; switchyard secret create session-ticket-keys NAME --from-file key ...)",
};

/**
 * The sealed values to store: those given, checked (secret-values.ts valueProblems: Envoy's 80
 * bytes a ticket key, a generic secret not empty and at most 64 KiB) and sealed; or, when none are
 * given, the stored ones of a secret of the same type. Problems name a value by its index and
 * size, never by what it holds.
 */
function valuesOf(
  message: Secret,
  type: ValueSecretType,
  existing: SecretSpec | undefined,
  keyring: SecretKeyring,
): string[] {
  const path = secretPath(message.name);
  if (message.values.length === 0) {
    const stored = existing?.type === type ? existing.values : [];
    if (stored.length === 0)
      refuse(
        `${path}.values`,
        `secret ${quote(message.name)} is ${TYPE_WORDS[type]} and needs ${type === "GENERIC_SECRET" ? "its value" : "at least one key"}`,
        VALUE_HINT[type],
      );
    return stored.map((sealed) => keyring.reseal(sealed));
  }
  for (const { index, problem } of valueProblems(type, message.values))
    refuse(
      `${path}.values[${index}]`,
      type === "GENERIC_SECRET"
        ? `the value of secret ${quote(message.name)} ${problem}`
        : `session ticket key ${index + 1} of secret ${quote(message.name)} ${problem}`,
      VALUE_HINT[type],
    );
  return message.values.map((value) => sealValue(keyring.seal, value));
}

/** Problems within the secret itself (a reference to it is not its problem). */
function objectProblems(spec: SecretSpec, keyring: SecretKeyring): ApiIssue[] {
  return validate(configSpecOf({ secrets: [spec] }), { openSecret: keyring.open }).issues.filter(
    (issue) =>
      issue.severity === "error" && !VALIDATION_CODES[issue.code as ValidationCode]?.crossObject,
  );
}

export function secretHandlers(prisma: PrismaClient, keyring: SecretKeyring) {
  const open = keyring.keyId === undefined ? undefined : keyring.open;
  const messageOf = async (
    db: PrismaClient | TransactionClient,
    stored: Stored<SecretSpec>,
    digests: boolean,
  ) =>
    secretMessageOf(
      stored.spec,
      stored.updatedAt,
      (await referrers(db, [stored.spec.name])).get(stored.spec.name) ?? [],
      open,
      digests,
    );
  const seesDigests = (context: HandlerContext) => callerOf(context).role === "ADMIN";

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
        await claimNewOwners(tx, caller, writes);
        await auditWrites(tx, caller, ipOf(context), writes);
        const saved = await findSecret(tx, spec.name);
        if (!saved) throw new Error(`secret ${quote(spec.name)} vanished while saved`);
        return messageOf(tx, saved, seesDigests(context));
      }),
    );
  };

  return {
    listSecrets: async (_request: unknown, context: HandlerContext) => {
      const stored = await listSecrets(prisma);
      const users = await referrers(prisma);
      const digests = seesDigests(context);
      return {
        secrets: stored.map((s) =>
          secretMessageOf(s.spec, s.updatedAt, users.get(s.spec.name) ?? [], open, digests),
        ),
      };
    },
    getSecret: async (request: { name: string }, context: HandlerContext) => {
      const found = await findSecret(prisma, request.name);
      if (!found) throw notFound(`secret ${quote(request.name)}`);
      return messageOf(prisma, found, seesDigests(context));
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
