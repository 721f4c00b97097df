/**
 * `switchyard secret create tls|validation|generic|session-ticket-keys NAME ...`,
 * `switchyard secret rotate NAME ...`, and the secret forms of `get` (a table with type, subject,
 * size, expiry, fingerprint and users; one secret as YAML). A private key or a secret value is
 * read from a file and sent once; nothing the CLI prints holds it: a value shows as its size and
 * SHA-256 (compare with `sha256sum FILE`).
 */
import { readFileSync, statSync } from "node:fs";
import { type MessageInitShape, toJson } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { type Secret, SecretSchema, SecretType } from "@switchyard/proto/switchyard/v1/config_pb";
import { stringify as toYaml } from "yaml";
import { CliError, type ConfigClient } from "./client.js";
import { type Output, outputFormat, table } from "./output.js";
import { publish } from "./publish-commands.js";

function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new CliError(
      `cannot read the ${what} file ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

const DAY_MS = 24 * 3600_000;

/** "2027-01-01 (in 40 days)", "2026-11-20 (EXPIRED)". */
function expiry(secret: Secret, now = Date.now()): string {
  const leaf = secret.certificates[0]?.notAfter;
  if (!leaf) return "";
  const at = timestampDate(leaf);
  const days = Math.floor((at.getTime() - now) / DAY_MS);
  const date = at.toISOString().slice(0, 10);
  if (at.getTime() <= now) return `${date} (EXPIRED)`;
  return days < 30 ? `${date} (in ${days} days)` : date;
}

/** The word `secret create` takes for each type, and the table shows. */
const TYPE_WORDS: Readonly<Partial<Record<SecretType, string>>> = {
  [SecretType.TLS_CERTIFICATE]: "tls",
  [SecretType.VALIDATION_CONTEXT]: "validation",
  [SecretType.GENERIC_SECRET]: "generic",
  [SecretType.SESSION_TICKET_KEYS]: "session-ticket-keys",
};
const typeWord = (type: SecretType) => TYPE_WORDS[type] ?? "?";

const isValueType = (type: SecretType) =>
  type === SecretType.GENERIC_SECRET || type === SecretType.SESSION_TICKET_KEYS;

/** The largest generic secret the server takes (secret-values.ts MAX_GENERIC_SECRET_BYTES). */
const MAX_GENERIC_SECRET_BYTES = 64 * 1024;
/** The one size of a session ticket key Envoy takes (secret-values.ts). */
const SESSION_TICKET_KEY_BYTES = 80;

/**
 * The bytes of each file, in order, each checked for size before it is read: a generic secret is
 * one file of at most 64 KiB, a session ticket key a file of exactly 80 bytes. A file over the
 * bound is refused here, without reading it.
 */
function readValues(files: readonly string[] | undefined, type: SecretType): Uint8Array[] {
  const generic = type === SecretType.GENERIC_SECRET;
  const usage = generic
    ? "a generic secret needs --from-file FILE (its value: any bytes, at most 64 KiB)"
    : "session ticket keys need --from-file FILE... (one or more files of 80 random bytes each, the key that encrypts new tickets first: openssl rand 80 > FILE)";
  if (!files || files.length === 0) throw new CliError(usage);
  if (generic && files.length > 1)
    throw new CliError(
      `a generic secret holds one value: give one --from-file FILE, not ${files.length}`,
    );
  return files.map((file) => {
    let size: number;
    try {
      size = statSync(file).size;
    } catch (error) {
      throw new CliError(
        `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (generic && size > MAX_GENERIC_SECRET_BYTES)
      throw new CliError(
        `${file} is ${size} bytes, above the ${MAX_GENERIC_SECRET_BYTES / 1024} KiB a generic secret may hold: is it the right file?`,
      );
    if (generic && size === 0)
      throw new CliError(`${file} is empty: a generic secret needs a value`);
    if (!generic && size !== SESSION_TICKET_KEY_BYTES)
      throw new CliError(
        `${file} is ${size} bytes: a session ticket key is exactly ${SESSION_TICKET_KEY_BYTES} bytes, as Envoy requires (make one with: openssl rand 80 > ${file})`,
      );
    return new Uint8Array(readFileSync(file));
  });
}

/** "23 bytes", "2 keys, 80 bytes each": what the table says of a value secret's size. */
function sizeOf(secret: Secret): string {
  if (!isValueType(secret.type) || !secret.valueSet) return "";
  if (secret.type === SecretType.GENERIC_SECRET)
    return `${secret.valueInfos[0]?.sizeBytes ?? 0} bytes`;
  const n = secret.valueInfos.length;
  return `${n} key${n === 1 ? "" : "s"}, ${SESSION_TICKET_KEY_BYTES} bytes each`;
}

export async function listSecrets(
  client: ConfigClient,
  output: Output,
  format: string,
): Promise<void> {
  const { secrets } = await client.listSecrets({});
  if (format !== "table") {
    const list = secrets.map((s) => toJson(SecretSchema, s));
    output.out(format === "json" ? `${JSON.stringify(list, null, 2)}\n` : toYaml(list));
    return;
  }
  if (secrets.length === 0) {
    output.out("no secrets stored\n");
    return;
  }
  // A value secret's fingerprint is its (first) value's SHA-256: `sha256sum FILE` shows the same.
  output.out(
    table(
      ["NAME", "TYPE", "SUBJECT", "SIZE", "EXPIRES", "SHA-256 FINGERPRINT", "USED BY"],
      secrets.map((s) => [
        s.name,
        typeWord(s.type),
        s.certificates[0]?.subject ?? "",
        sizeOf(s),
        expiry(s),
        (s.certificates[0]?.fingerprintSha256 ?? s.valueInfos[0]?.sha256 ?? "").slice(0, 23),
        s.usedBy.join(", "),
      ]),
    ),
  );
}

export async function showSecret(
  client: ConfigClient,
  output: Output,
  name: string,
  format: string,
): Promise<void> {
  const secret = toJson(SecretSchema, await client.getSecret({ name }));
  output.out(
    format === "json" ? `${JSON.stringify(secret, null, 2)}\n` : toYaml(secret, { lineWidth: 0 }),
  );
}

export interface SecretWriteOptions {
  readonly cert?: string;
  readonly key?: string;
  readonly passphraseFile?: string;
  readonly ca?: string;
  readonly matchSan?: readonly string[];
  /** generic: the value's file; session-ticket-keys: the keys' files, in order. */
  readonly fromFile?: readonly string[];
  /** Publish right after, with this message (rotation in one step). */
  readonly publish?: string;
}

async function finish(
  client: ConfigClient,
  output: Output,
  saved: Secret,
  verb: string,
  options: SecretWriteOptions,
): Promise<void> {
  const leaf = saved.certificates[0];
  const values = saved.valueInfos
    .map(
      (v, i) =>
        `${saved.valueInfos.length > 1 ? `key ${i + 1}: ` : ""}${v.sizeBytes} bytes, sha256 ${v.sha256.slice(0, 16)}…`,
    )
    .join("; ");
  output.out(
    `${verb} secret ${saved.name} (${typeWord(saved.type)}${leaf ? `: ${leaf.subject}, expires ${expiry(saved)}` : ""}${saved.privateKeySet ? `, private key set, public key sha256 ${saved.publicKeySha256.slice(0, 16)}…` : ""}${values ? `: ${values}` : ""})\n`,
  );
  if (options.publish !== undefined) {
    await publish(client, output, { message: options.publish });
    return;
  }
  output.out("saved to the draft; publish to send it to proxies (switchyard publish -m MESSAGE)\n");
}

export async function createSecret(
  client: ConfigClient,
  output: Output,
  type: string,
  name: string,
  options: SecretWriteOptions,
): Promise<void> {
  let request: MessageInitShape<typeof SecretSchema>;
  if (type === "tls") {
    if (!options.cert || !options.key)
      throw new CliError("a tls secret needs --cert FILE and --key FILE (PEM)");
    request = {
      name,
      type: SecretType.TLS_CERTIFICATE,
      certificateChain: readPem(options.cert, "certificate"),
      privateKey: readPem(options.key, "private key"),
      privateKeyPassphrase: options.passphraseFile
        ? readPem(options.passphraseFile, "passphrase").trimEnd()
        : "",
    };
  } else if (type === "validation") {
    if (!options.ca) throw new CliError("a validation secret needs --ca FILE (PEM)");
    request = {
      name,
      type: SecretType.VALIDATION_CONTEXT,
      trustedCa: readPem(options.ca, "CA"),
      matchSubjectAltNames: [...(options.matchSan ?? [])],
    };
  } else if (type === "generic" || type === "session-ticket-keys") {
    const secretType =
      type === "generic" ? SecretType.GENERIC_SECRET : SecretType.SESSION_TICKET_KEYS;
    request = { name, type: secretType, values: readValues(options.fromFile, secretType) };
  } else {
    throw new CliError(
      `unknown secret type "${type}": use tls, validation, generic or session-ticket-keys`,
    );
  }
  await finish(client, output, await client.createSecret(request), "created", options);
}

/**
 * A rotation: the stored secret with a new certificate (and key), for a validation context a new
 * CA bundle, for a generic secret a new value, for session ticket keys the new keys in order (the
 * new one first; give the current one after it so tickets it issued are still honoured: the
 * server never shows a stored key back). Without --key the stored key is kept, which the server
 * allows only when the new certificate is for it.
 */
export async function rotateSecret(
  client: ConfigClient,
  output: Output,
  name: string,
  options: SecretWriteOptions,
): Promise<void> {
  const stored = await client.getSecret({ name });
  let request: MessageInitShape<typeof SecretSchema>;
  if (isValueType(stored.type)) {
    request = {
      name,
      type: stored.type,
      values: readValues(options.fromFile, stored.type),
      updateTime: stored.updateTime,
    };
  } else if (stored.type === SecretType.TLS_CERTIFICATE) {
    if (!options.cert)
      throw new CliError("rotating a tls secret needs --cert FILE (and --key FILE)");
    request = {
      name,
      type: stored.type,
      certificateChain: readPem(options.cert, "certificate"),
      privateKey: options.key ? readPem(options.key, "private key") : "",
      privateKeyPassphrase: options.passphraseFile
        ? readPem(options.passphraseFile, "passphrase").trimEnd()
        : "",
      updateTime: stored.updateTime,
    };
  } else {
    if (!options.ca) throw new CliError("rotating a validation secret needs --ca FILE");
    request = {
      name,
      type: stored.type,
      trustedCa: readPem(options.ca, "CA"),
      matchSubjectAltNames: options.matchSan?.length
        ? [...options.matchSan]
        : stored.matchSubjectAltNames,
      updateTime: stored.updateTime,
    };
  }
  await finish(client, output, await client.updateSecret(request), "rotated", options);
}

/**
 * `switchyard get secret [name]`: the secrets as a table (or JSON/YAML), or one with its
 * certificate details: never a private key.
 */
export function getSecrets(
  client: ConfigClient,
  output: Output,
  name: string | undefined,
  options: { output?: string },
): Promise<void> {
  if (name === undefined)
    return listSecrets(
      client,
      output,
      outputFormat(options.output, ["table", "json", "yaml"], "table"),
    );
  return showSecret(client, output, name, outputFormat(options.output, ["yaml", "json"], "yaml"));
}
