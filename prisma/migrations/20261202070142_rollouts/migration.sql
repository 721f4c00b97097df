-- CreateTable
CREATE TABLE "Rollout" (
    "id" SERIAL NOT NULL,
    "group" TEXT NOT NULL,
    "fromVersion" INTEGER NOT NULL,
    "toVersion" INTEGER NOT NULL,
    "planName" TEXT NOT NULL DEFAULT '',
    "state" JSONB NOT NULL,
    "phase" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "revision" INTEGER NOT NULL DEFAULT 0,
    "driver" TEXT,
    "driverUntil" TIMESTAMP(3),
    "loadedUntil" TIMESTAMP(3),
    "series" JSONB NOT NULL DEFAULT '[]',
    "supersededBy" INTEGER,
    "createdBy" TEXT NOT NULL,
    "message" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "Rollout_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Rollout_active_idx" ON "Rollout"("active");

-- CreateIndex
CREATE INDEX "Rollout_toVersion_idx" ON "Rollout"("toVersion");

-- One running rollout per node group: a publish to a group with one running is refused or
-- supersedes it (rollouts/rollout-start.ts), and this holds it for every replica.
CREATE UNIQUE INDEX "Rollout_group_active_key" ON "Rollout"("group") WHERE "active";
