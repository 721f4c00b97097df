/**
 * Rotating the secrets key: with SWITCHYARD_SECRETS_KEY set to the new key and the old one in
 * SWITCHYARD_SECRETS_KEY_PREVIOUS, the server seals again with the new key, at startup, everything
 * a previous key sealed (and anything still sealed in the older sy1 form, secret-box.ts): the draft's private keys and secret values, the published Secret
 * resources and the published source objects of secrets. Then the previous key can be dropped.
 *
 * Published blobs are rewritten in place, under their keys. A Secret resource's blob key is the
 * hash of the resource itself (its plaintext body), which does not change. A source object's key
 * is the hash of its JSON as first stored; it keeps naming the same object (diffs compare keys),
 * and a rollback to that version restores the key sealed with the new key. The draft's rows
 * change their sealed text, so after a rotation the draft shows each sealed secret as modified
 * until it is published (proxies receive nothing new: the served certificate and key did not change).
 */
import type { TransactionClient } from "@switchyard/db";
import { canonicalJson, isCurrentSeal, isSealed, sealedKeyId, TypeUrl } from "@switchyard/snapshot";
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
  // What a previous key sealed, and (the rotation rewriting these rows anyway) any text still in
  // the older form (secret-box.ts): both are sealed again with the current key, in the current form.
  const stale = (sealed: string) =>
    previous.has(sealedKeyId(sealed) ?? "") || (isSealed(sealed) && !isCurrentSeal(sealed));
  const reseal = (sealed: string) => keyring.reseal(sealed);
  const resealIfStale = (sealed: string) => (stale(sealed) ? reseal(sealed) : sealed);

  let draftSecrets = 0;
  const rows = await tx.secret.findMany({
    where: { OR: [{ privateKey: { not: null } }, { NOT: { values: { isEmpty: true } } }] },
  });
  for (const row of rows) {
    const values = row.values ?? [];
    const staleKey = row.privateKey !== null && stale(row.privateKey);
    if (!staleKey && !values.some(stale)) continue;
    // The revision goes up (draft caches reload the row); updatedAt stays: an editor's etag holds.
    await tx.secret.update({
      where: { id: row.id },
      data: {
        privateKey: row.privateKey === null ? null : resealIfStale(row.privateKey),
        values: values.map(resealIfStale),
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
    if (!/"sy[12]\./.test(text)) continue;
    const source = JSON.parse(text) as { privateKey?: unknown; values?: unknown };
    const key = typeof source.privateKey === "string" ? source.privateKey : undefined;
    const values = Array.isArray(source.values)
      ? source.values.filter((v): v is string => typeof v === "string")
      : [];
    if (!(key !== undefined && stale(key)) && !values.some(stale)) continue;
    const json = canonicalJson({
      ...source,
      ...(key === undefined ? {} : { privateKey: resealIfStale(key) }),
      ...(Array.isArray(source.values) ? { values: values.map(resealIfStale) } : {}),
    });
    await tx.snapshotBlob.update({ where: { key: blob.key }, data: { body: Buffer.from(json) } });
    publishedSources++;
  }
  return { draftSecrets, publishedResources, publishedSources };
}
