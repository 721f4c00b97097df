/**
 * `switchyard secret create tls|validation NAME ...`, `switchyard secret rotate NAME ...`, and the
 * secret forms of `get` (a table with type, subject, expiry, fingerprint and users; one secret as
 * YAML). A private key is read from a file and sent once; nothing the CLI prints holds it.
 */
import { readFileSync } from "node:fs";
import { type MessageInitShape, toJson } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { type Secret, SecretSchema, SecretType } from "@switchyard/proto/switchyard/v1/config_pb";
import { stringify as toYaml } from "yaml";
import { CliError, type ConfigClient } from "./client.js";
import { publish } from "./commands.js";
import { type Output, outputFormat, table } from "./output.js";

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

const typeWord = (type: SecretType) =>
  type === SecretType.TLS_CERTIFICATE
    ? "tls"
    : type === SecretType.VALIDATION_CONTEXT
      ? "validation"
      : "?";

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
  output.out(
    table(
      ["NAME", "TYPE", "SUBJECT", "EXPIRES", "SHA-256 FINGERPRINT", "USED BY"],
      secrets.map((s) => [
        s.name,
        typeWord(s.type),
        s.certificates[0]?.subject ?? "",
        expiry(s),
        (s.certificates[0]?.fingerprintSha256 ?? "").slice(0, 23),
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
  output.out(
    `${verb} secret ${saved.name} (${typeWord(saved.type)}${leaf ? `: ${leaf.subject}, expires ${expiry(saved)}` : ""}${saved.privateKeySet ? `, private key set, public key sha256 ${saved.publicKeySha256.slice(0, 16)}…` : ""})\n`,
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
  } else {
    throw new CliError(`unknown secret type "${type}": use tls or validation`);
  }
  await finish(client, output, await client.createSecret(request), "created", options);
}

/**
 * A rotation: the stored secret with a new certificate (and key), or for a validation context a
 * new CA bundle. Without --key the stored key is kept, which the server allows only when the new
 * certificate is for it.
 */
export async function rotateSecret(
  client: ConfigClient,
  output: Output,
  name: string,
  options: SecretWriteOptions,
): Promise<void> {
  const stored = await client.getSecret({ name });
  let request: MessageInitShape<typeof SecretSchema>;
  if (stored.type === SecretType.TLS_CERTIFICATE) {
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
