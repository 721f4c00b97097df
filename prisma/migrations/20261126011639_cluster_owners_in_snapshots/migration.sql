-- AlterTable
ALTER TABLE "Snapshot" ADD COLUMN     "clusterOwners" JSONB NOT NULL DEFAULT '{}';

-- Backfill: the latest version's owners are those the draft has now (the best record there is).
-- A cluster already deleted from the draft but still published keeps no owner: an admin
-- publishes its deletion.
UPDATE "Snapshot" SET "clusterOwners" = COALESCE(
  (SELECT jsonb_object_agg("name", "ownerTeamId") FROM "Cluster" WHERE "ownerTeamId" IS NOT NULL),
  '{}'::jsonb)
WHERE "version" = (SELECT max("version") FROM "Snapshot");
