-- AlterTable
ALTER TABLE "Secret" ADD COLUMN     "ownerTeamId" UUID;

-- AlterTable
ALTER TABLE "Snapshot" ADD COLUMN     "secretOwners" JSONB NOT NULL DEFAULT '{}';

-- CreateTable
CREATE TABLE "Share" (
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "teamId" UUID NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Share_pkey" PRIMARY KEY ("kind","name","teamId")
);

-- CreateIndex
CREATE INDEX "Share_teamId_idx" ON "Share"("teamId");

-- CreateIndex
CREATE INDEX "Secret_ownerTeamId_idx" ON "Secret"("ownerTeamId");

-- AddForeignKey
ALTER TABLE "Secret" ADD CONSTRAINT "Secret_ownerTeamId_fkey" FOREIGN KEY ("ownerTeamId") REFERENCES "Team"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Share" ADD CONSTRAINT "Share_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A team's cluster that names a secret as its modelled TLS secret keeps it: the secret is shared
-- with that team, so upgrading stops serving no secret a cluster uses now. (References kept in a
-- cluster's Envoy JSON are not looked for here: validation warns of each, secret-not-entitled.)
INSERT INTO "Share" ("kind", "name", "teamId")
SELECT DISTINCT 'secret', c."tlsSecretName", c."ownerTeamId"
FROM "Cluster" c
WHERE c."tlsSecretName" IS NOT NULL AND c."ownerTeamId" IS NOT NULL
ON CONFLICT DO NOTHING;
