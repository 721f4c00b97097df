/**
 * Rotating the secrets key: with SWITCHYARD_SECRETS_KEY set to the new key and the old one in
 * SWITCHYARD_SECRETS_KEY_PREVIOUS, the server seals again with the new key, at startup, everything
 * a previous key sealed: the draft's private keys, the published Secret resources and the
 * published source objects of secrets. Then the previous key can be dropped.
 *
 * Published blobs are rewritten in place, under their keys. A Secret resource's blob key is the
 * hash of the resource itself (its plaintext body), which does not change. A source object's key
 * is the hash of its JSON as first stored; it keeps naming the same object (diffs compare keys),
 * and a rollback to that version restores the key sealed with the new key. The draft's rows
 * change their sealed text, so after a rotation the draft shows each TLS secret as modified until
 * it is published (proxies receive nothing new: the served certificate and key did not change).
 */
import type { TransactionClient } from "@switchyard/db";
import { canonicalJson, isSealed, sealedKeyId, TypeUrl } from "@switchyard/snapshot";
import type { SecretKeyring } from "../secrets-key.js";

export interface ResealCounts {
  readonly draftSecrets: number;
  readonly publishedResources: number;
  readonly publishedSources: number;
}

/** Seals again with the current key what a previous key sealed; in one transaction. */
export async function resealSecrets(
  tx: TransactionClient,
  keyring: SecretKeyring,
): Promise<ResealCounts> {
  const previous = new Set(keyring.previousKeyIds);
  const stale = (sealed: string) => previous.has(sealedKeyId(sealed) ?? "");
  const reseal = (sealed: string) => keyring.seal(keyring.open(sealed));

  let draftSecrets = 0;
  for (const row of await tx.secret.findMany({ where: { privateKey: { not: null } } })) {
    if (row.privateKey === null || !stale(row.privateKey)) continue;
    // The revision goes up (draft caches reload the row); updatedAt stays: an editor's etag holds.
    await tx.secret.update({
      where: { id: row.id },
      data: {
        privateKey: reseal(row.privateKey),
        revision: { increment: 1 },
        updatedAt: row.updatedAt,
      },
    });
    draftSecrets++;
  }

  let publishedResources = 0;
  let publishedSources = 0;
  const blobs = await tx.snapshotBlob.findMany({
    where: {
      OR: [{ key: { startsWith: `${TypeUrl.Secret}@` } }, { key: { startsWith: "source:" } }],
    },
  });
  for (const blob of blobs) {
    const text = Buffer.from(blob.body).toString("utf8");
    if (blob.key.startsWith(`${TypeUrl.Secret}@`)) {
      if (!isSealed(text) || !stale(text)) continue;
      await tx.snapshotBlob.update({
        where: { key: blob.key },
        data: { body: Buffer.from(reseal(text)) },
      });
      publishedResources++;
      continue;
    }
    if (!text.includes("sy1.")) continue;
    const source = JSON.parse(text) as { privateKey?: unknown };
    if (typeof source.privateKey !== "string" || !stale(source.privateKey)) continue;
    const json = canonicalJson({ ...source, privateKey: reseal(source.privateKey) });
    await tx.snapshotBlob.update({ where: { key: blob.key }, data: { body: Buffer.from(json) } });
    publishedSources++;
  }
  return { draftSecrets, publishedResources, publishedSources };
}
